// --offline: the exact request bytes for each URL, nothing added — the head the connection would
// write (Host first, the fields in curl's order) and the body.

import Testing

private let ua = "User-Agent: courier/0.1\n"

extension CLITests {
    @Suite("--offline request bytes")
    struct OfflineTests {
        @Test("GET: Host, User-Agent, Accept; no scheme means http://")
        func plainGet() {
            let run = courier(["--offline", "example.com:8080/a/b?c=d#frag"])
            #expect(run.status == 0)
            #expect(run.stdout == crlfText("GET /a/b?c=d HTTP/1.1\nHost: example.com:8080\n\(ua)Accept: */*\n\n"))
            #expect(run.stderr.isEmpty)
        }

        @Test("one request per URL, in order")
        func severalURLs() {
            let run = courier(["--offline", "http://a/1", "https://b:443/2"])
            #expect(run.stdoutText == String(decoding: crlfText("GET /1 HTTP/1.1\nHost: a\n\(ua)Accept: */*\n\nGET /2 HTTP/1.1\nHost: b\n\(ua)Accept: */*\n\n"), as: UTF8.self))
        }

        @Test("-d joins with & in command-line order, with --data-urlencode's five forms")
        func dataOrder() {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/v", "line one\r\nline two\n")
            let run = courier(["--offline", "-d", "a=1", "--data-urlencode", "b c=d e&f", "--data-urlencode", "=x y",
                               "--data-urlencode", "plain text", "-d", "@" + dir + "/v", "--data-urlencode", "n@" + dir + "/v",
                               "--data-urlencode", "@" + dir + "/v", "--data-raw", "@raw", "http://h/"])
            let body = "a=1&b c=d+e%26f&x+y&plain+text&line oneline two&n=line+one%0D%0Aline+two%0A&line+one%0D%0Aline+two%0A&@raw"
            #expect(run.stdoutText == String(decoding: crlfText("POST / HTTP/1.1\nHost: h\n\(ua)Accept: */*\nContent-Length: \(body.utf8.count)\nContent-Type: application/x-www-form-urlencoded\n\n"), as: UTF8.self) + body)
        }

        @Test("-d @FILE strips CR and LF; --data-binary @FILE is byte for byte")
        func dataFiles() {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/f", [0x61, 13, 10, 0x62, 0, 0xFF, 10])
            let stripped = courier(["--offline", "-d", "@" + dir + "/f", "http://h/"])
            #expect(stripped.stdout.suffix(4) == [0x61, 0x62, 0, 0xFF])
            #expect(stripped.stdoutText.contains("Content-Length: 4\r\n"))
            let binary = courier(["--offline", "--data-binary", "@" + dir + "/f", "http://h/"])
            #expect(binary.stdout.suffix(7) == [0x61, 13, 10, 0x62, 0, 0xFF, 10])
            #expect(binary.stdoutText.contains("Content-Length: 7\r\n"))
        }

        @Test("-d @- reads standard input")
        func dataFromStdin() {
            let run = courier(["--offline", "-d", "@-", "http://h/"], stdin: Array("x=1\n".utf8))
            #expect(run.stdoutText.hasSuffix("Content-Length: 3\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nx=1"))
        }

        @Test("-G puts the data in the query after an existing one")
        func getData() {
            let run = courier(["--offline", "-G", "-d", "a=1", "--data-urlencode", "b=x y", "http://h/p?q"])
            #expect(run.stdout == crlfText("GET /p?q&a=1&b=x+y HTTP/1.1\nHost: h\n\(ua)Accept: */*\n\n"))
        }

        @Test("--json is verbatim with Content-Type and Accept application/json after the -H fields (curl's order); several are concatenated")
        func json() {
            let run = courier(["--offline", "--json", "{\"a\": [1, 2]}", "--json", " ", "http://h/"])
            let body = "{\"a\": [1, 2]} "
            #expect(run.stdout == crlfText("POST / HTTP/1.1\nHost: h\n\(ua)Content-Type: application/json\nAccept: application/json\nContent-Length: \(body.utf8.count)\n\n") + Array(body.utf8))
            let withHeader = courier(["--offline", "--json", "{}", "-H", "X-A: 1", "-H", "Accept: text/x", "http://h/"])
            #expect(withHeader.stdout == crlfText("POST / HTTP/1.1\nHost: h\n\(ua)X-A: 1\nAccept: text/x\nContent-Type: application/json\nContent-Length: 2\n\n{}"))
        }

        @Test("--params: query for GET, HEAD, DELETE (upper-cased), form body for others, method as typed")
        func params() {
            let params = "{\"b\":[1,2],\"a\":\"x y\",\"n\":null}"
            let get = courier(["--offline", "--params", params, "http://h/q?z"])
            #expect(get.stdout == crlfText("GET /q?z&a=x%20y&b%5B%5D=1&b%5B%5D=2&n HTTP/1.1\nHost: h\n\(ua)Accept: */*\n\n"))
            let delete = courier(["--offline", "-X", "delete", "--params", params, "http://h/"])
            #expect(delete.stdoutText.hasPrefix("delete /?a=x%20y&b%5B%5D=1&b%5B%5D=2&n HTTP/1.1\r\n"))
            let put = courier(["--offline", "-X", "put", "--params", params, "http://h/"])
            let body = "a=x%20y&b%5B%5D=1&b%5B%5D=2&n"
            #expect(put.stdout == crlfText("put / HTTP/1.1\nHost: h\n\(ua)Accept: */*\nContent-Length: \(body.utf8.count)\nContent-Type: application/x-www-form-urlencoded\n\n") + Array(body.utf8))
            let forced = courier(["--offline", "-G", "-X", "POST", "--params", "{\"a\":1}", "http://h/"])
            #expect(forced.stdoutText.hasPrefix("POST /?a=1 HTTP/1.1\r\n"))
            #expect(forced.stdoutText.contains("Content-Length: 0\r\n"))
        }

        @Test("POST, PUT and PATCH without a body send Content-Length: 0; GET and DELETE do not")
        func emptyBodies() {
            for method in ["POST", "PUT", "PATCH", "post"] {
                let run = courier(["--offline", "-X", method, "http://h/"])
                #expect(run.stdout == crlfText("\(method) / HTTP/1.1\nHost: h\n\(ua)Accept: */*\nContent-Length: 0\n\n"), "\(method)")
            }
            for method in ["GET", "DELETE", "OPTIONS"] {
                #expect(!courier(["--offline", "-X", method, "http://h/"]).stdoutText.contains("Content-Length"))
            }
        }

        @Test("-H replaces a default, removes one with 'Name:', sends an empty one with 'Name;'")
        func headerRules() {
            let run = courier(["--offline", "-H", "accept: text/plain", "-H", "User-Agent:", "-H", "X-Empty;",
                               "-H", "X-Two:  spaced value  ", "-H", "nocolon", "http://h/"])
            #expect(run.stdout == crlfText("GET / HTTP/1.1\nHost: h\naccept: text/plain\nX-Empty: \nX-Two: spaced value\n\n"))
            let host = courier(["--offline", "-H", "Host: other:81", "http://h/"])
            #expect(host.stdoutText.hasPrefix("GET / HTTP/1.1\r\nHost: other:81\r\n"))
            let type = courier(["--offline", "-H", "Content-Type: text/plain", "-d", "x", "http://h/"])
            #expect(type.stdoutText.contains("Content-Type: text/plain\r\n"))
            #expect(!type.stdoutText.contains("x-www-form-urlencoded"))
        }

        @Test("-u and URL credentials send Basic; -u wins")
        func basic() {
            let run = courier(["--offline", "-u", "user:pa:ss", "http://h/"])
            #expect(run.stdoutText.contains("Host: h\r\nAuthorization: Basic dXNlcjpwYTpzcw==\r\nUser-Agent"))
            let url = courier(["--offline", "http://al%20ice:pw@h/"])
            #expect(url.stdoutText.contains("Authorization: Basic YWwgaWNlOnB3\r\n"))
            #expect(url.stdoutText.contains("Host: h\r\n"))
            let both = courier(["--offline", "-u", "a:b", "http://c:d@h/"])
            #expect(both.stdoutText.contains("Authorization: Basic YTpi\r\n"))
        }

        @Test("Accept-Language comes from LANGUAGE / LANG with AFNetworking's q-values")
        func acceptLanguage() {
            let run = courier(["--offline", "http://h/"], environment: ["LANGUAGE": "fr_CA:en", "LANG": "de_DE.UTF-8"])
            #expect(run.stdoutText.contains("Accept: */*\r\nAccept-Language: fr-CA;q=1, en;q=0.9\r\n\r\n"))
            let lang = courier(["--offline", "http://h/"], environment: ["LANG": "de_DE.UTF-8"])
            #expect(lang.stdoutText.contains("Accept-Language: de-DE;q=1\r\n"))
            #expect(!courier(["--offline", "http://h/"], environment: ["LANG": "C"]).stdoutText.contains("Accept-Language"))
        }

        @Test("-F: parameters first as fields, then the parts; files, <file values, type= and filename=")
        func multipart() {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/doc.txt", "file body\n")
            let run = courier(["--offline", "--params", "{\"p\":1}", "-F", "a=b c", "-F", "f=@" + dir + "/doc.txt;type=text/x-doc;filename=re\"named.txt",
                               "-F", "g=<" + dir + "/doc.txt", "-F", "h=@" + dir + "/doc.txt", "http://h/up"],
                              environment: ["COURIER_MULTIPART_BOUNDARY": "Boundary+0123456789ABCDEF"])
            let body = """
                --Boundary+0123456789ABCDEF
                Content-Disposition: form-data; name="p"

                1
                --Boundary+0123456789ABCDEF
                Content-Disposition: form-data; name="a"

                b c
                --Boundary+0123456789ABCDEF
                Content-Disposition: form-data; name="f"; filename="re%22named.txt"
                Content-Type: text/x-doc

                file body

                --Boundary+0123456789ABCDEF
                Content-Disposition: form-data; name="g"

                file body

                --Boundary+0123456789ABCDEF
                Content-Disposition: form-data; name="h"; filename="doc.txt"
                Content-Type: text/plain

                file body

                --Boundary+0123456789ABCDEF--

                """
            // The file's own "\n" stays a bare LF; every framing line ends in CRLF.
            var expectedBody = crlfText(body)
            expectedBody = replacing(expectedBody, Array("file body\r\n\r\n".utf8), Array("file body\n\r\n".utf8))
            let head = crlfText("POST /up HTTP/1.1\nHost: h\n\(ua)Accept: */*\nContent-Length: \(expectedBody.count)\nContent-Type: multipart/form-data; boundary=Boundary+0123456789ABCDEF\n\n")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == head + expectedBody)
        }

        @Test("without the test boundary, the boundary is AFNetworking's random Boundary+16HEX")
        func randomBoundary() {
            let run = courier(["--offline", "-F", "a=b", "http://h/"])
            let text = run.stdoutText
            guard let range = text.firstRange(of: "boundary=Boundary+") else { Issue.record("no boundary"); return }
            let hex = text[range.upperBound...].prefix(16)
            #expect(hex.count == 16 && hex.allSatisfy { $0.isHexDigit && !$0.isLowercase })
        }
    }
}

func replacing(_ bytes: [UInt8], _ old: [UInt8], _ new: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        if i + old.count <= bytes.count && Array(bytes[i..<(i + old.count)]) == old {
            out += new
            i += old.count
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return out
}
