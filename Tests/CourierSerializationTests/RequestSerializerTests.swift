import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierURL
import Glibc
import Testing
@testable import Courier

private func uri(_ text: String) -> URI { try! URI(parsing: text) }
private func method(_ name: String) -> HTTPMethod { try! HTTPMethod(name) }
private func bodyText(_ request: HTTPRequest) -> String? { request.body.bytes?.readableString }

@Suite struct FormRequestSerializerTests {
    let parameters: QueryValue = ["foo": "bar", "baz": [1, 2, 3]]

    @Test func getPutsParametersInTheQuery() throws {
        let request = try FormRequestSerializer().request(method: .get, uri: uri("http://a.example/p"), parameters: parameters)
        #expect(request.uri.description == "http://a.example/p?baz%5B%5D=1&baz%5B%5D=2&baz%5B%5D=3&foo=bar")
        #expect(request.body.bytes == nil)
        #expect(!request.headers.contains(name: "Content-Type"))
    }

    @Test func queryIsJoinedWithAmpersandWhenOneExists() throws {
        let request = try FormRequestSerializer().request(method: .get, uri: uri("http://a.example/p?x=1"), parameters: ["y": "2"])
        #expect(request.uri.description == "http://a.example/p?x=1&y=2")
        let emptyQuery = try FormRequestSerializer().request(method: .get, uri: uri("http://a.example/p?"), parameters: ["y": "2"])
        #expect(emptyQuery.uri.description == "http://a.example/p?&y=2")
    }

    @Test func methodIsComparedUpperCased() throws {
        let lower = try FormRequestSerializer().request(method: method("get"), uri: uri("http://a/"), parameters: ["k": "v"])
        #expect(lower.uri.description == "http://a/?k=v")
        #expect(lower.method.rawValue == "get")
        for name in ["HEAD", "DELETE", "delete"] {
            let request = try FormRequestSerializer().request(method: method(name), uri: uri("http://a/"), parameters: ["k": "v"])
            #expect(request.uri.query == "k=v")
        }
    }

    @Test func emptyParametersAppendNothing() throws {
        let request = try FormRequestSerializer().request(method: .get, uri: uri("http://a/p"), parameters: .dictionary([]))
        #expect(request.uri.description == "http://a/p")
        let none = try FormRequestSerializer().request(method: .get, uri: uri("http://a/p"), parameters: nil)
        #expect(none.uri.description == "http://a/p")
    }

    @Test func postSendsAFormBody() throws {
        let request = try FormRequestSerializer().request(method: .post, uri: uri("http://a/p"), parameters: parameters)
        #expect(request.uri.description == "http://a/p")
        #expect(bodyText(request) == "baz%5B%5D=1&baz%5B%5D=2&baz%5B%5D=3&foo=bar")
        #expect(request.headers.first(name: "Content-Type") == "application/x-www-form-urlencoded")
        // An empty parameter set still sends an (empty) form body, as AFNetworking does.
        let empty = try FormRequestSerializer().request(method: .put, uri: uri("http://a/p"), parameters: .dictionary([]))
        #expect(bodyText(empty) == "")
        #expect(empty.headers.first(name: "Content-Type") == "application/x-www-form-urlencoded")
        // No parameters: no body, no Content-Type.
        let none = try FormRequestSerializer().request(method: .post, uri: uri("http://a/p"), parameters: nil)
        #expect(none.body.bytes == nil)
        #expect(!none.headers.contains(name: "Content-Type"))
    }

    @Test func callerContentTypeIsKept() throws {
        let request = try FormRequestSerializer().request(method: .post, uri: uri("http://a/"), parameters: ["a": "b"],
                                                          headers: ["content-type": "text/plain"])
        #expect(request.headers["Content-Type"] == ["text/plain"])
    }

    @Test func customMethodSetMovesParameters() throws {
        var serializer = FormRequestSerializer()
        serializer.httpMethodsEncodingParametersInURI = ["GET", "POST"]
        let post = try serializer.request(method: .post, uri: uri("http://a/"), parameters: ["a": "b"])
        #expect(post.uri.query == "a=b")
        let delete = try serializer.request(method: .delete, uri: uri("http://a/"), parameters: ["a": "b"])
        #expect(bodyText(delete) == "a=b")
    }

    @Test func customQueryStringClosureReplacesTheBuiltInOne() throws {
        var serializer = FormRequestSerializer()
        serializer.defaults.queryStringSerialization = { method, _, _ in "custom=\(method.rawValue)" }
        #expect(try serializer.request(method: .get, uri: uri("http://a/"), parameters: ["x": "y"]).uri.query == "custom=GET")
        #expect(try bodyText(serializer.request(method: .post, uri: uri("http://a/"), parameters: ["x": "y"])) == "custom=POST")
        struct Boom: Error {}
        serializer.defaults.queryStringSerialization = { _, _, _ in throw Boom() }
        #expect { try serializer.request(method: .get, uri: uri("http://a/"), parameters: ["x": "y"]) } throws: {
            ($0 as? RequestSerializationError)?.code == .queryStringSerializationFailed && ($0 as? RequestSerializationError)?.underlying is Boom
        }
    }

    @Test func defaultHeadersAndOverrides() throws {
        let defaults = RequestDefaults(preferredLanguages: ["en", "fr", "de"])
        var serializer = FormRequestSerializer(defaults: defaults)
        serializer.timeout = .seconds(30)
        let request = try serializer.request(method: .get, uri: uri("http://a/"), parameters: nil, headers: ["user-agent": "mine/1", "X-A": "1"])
        #expect(request.headers.first(name: "Accept-Language") == "en;q=1, fr;q=0.9, de;q=0.8")
        #expect(request.headers["User-Agent"] == ["mine/1"])
        #expect(request.headers.fields.map(\.name) == ["Accept-Language", "user-agent", "X-A"])
        #expect(request.timeout == .seconds(30))
        #expect(try FormRequestSerializer().request(method: .get, uri: uri("http://a/")).headers.first(name: "User-Agent") == CourierVersion.userAgent)
    }

    @Test func acceptLanguageStopsAtSixLanguages() {
        let value = RequestDefaults.acceptLanguage(["a", "b", "c", "d", "e", "f", "g", "h"])
        #expect(value == "a;q=1, b;q=0.9, c;q=0.8, d;q=0.7, e;q=0.6, f;q=0.5")
        #expect(RequestDefaults.acceptLanguage([]) == nil)
        #expect(!RequestDefaults(preferredLanguages: []).headers.contains(name: "Accept-Language"))
    }

    @Test func preferredLanguagesFromEnvironment() {
        #expect(preferredLanguages(environment: ["LANGUAGE": "fr:en_US", "LANG": "de_DE.UTF-8"]) == ["fr", "en-US"])
        #expect(preferredLanguages(environment: ["LANG": "de_DE.UTF-8"]) == ["de-DE"])
        #expect(preferredLanguages(environment: ["LANG": "C"]) == [])
        #expect(preferredLanguages(environment: ["LANG": "POSIX"]) == [])
        #expect(preferredLanguages(environment: ["LANG": "C.UTF-8"]) == [])
        #expect(preferredLanguages(environment: ["LANGUAGE": "", "LC_ALL": "pt_BR.UTF-8@euro", "LANG": "en_GB"]) == ["pt-BR"])
        #expect(preferredLanguages(environment: ["LANGUAGE": "fr:C:fr:en\r\nX"]) == ["fr"])
        #expect(preferredLanguages(environment: [:]) == [])
        let header = RequestDefaults(preferredLanguages: preferredLanguages(environment: ["LANGUAGE": "fr:en_US"])).headers
        #expect(header.first(name: "Accept-Language") == "fr;q=1, en-US;q=0.9")
    }

    @Test func basicAuthorization() throws {
        var serializer = FormRequestSerializer()
        serializer.setAuthorization(username: "Aladdin", password: "open sesame")
        #expect(serializer.defaults.headers.first(name: "Authorization") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        serializer.setAuthorization(username: "user", password: "pässword")
        #expect(serializer.defaults.headers.first(name: "Authorization") == "Basic dXNlcjpww6Rzc3dvcmQ=")
        #expect(serializer.defaults.headers["authorization"].count == 1)
        serializer.defaults.clearAuthorization()
        #expect(!serializer.defaults.headers.contains(name: "Authorization"))
    }

    @Test func headerInjectionIsRefusedBeforeAnythingIsBuilt() {
        for headers: HTTPHeaders in [["X-A": "a\r\nEvil: 1"], ["X\nA": "v"], ["X-A": "a\0b"], ["": "v"]] {
            #expect { try FormRequestSerializer().request(method: .get, uri: uri("http://a/"), parameters: nil, headers: headers) } throws: {
                ($0 as? RequestSerializationError)?.code == .invalidHeaderField
            }
        }
        var serializer = FormRequestSerializer()
        serializer.setValue("x\ry", forHeader: "X-Default")
        #expect(throws: RequestSerializationError.self) { try serializer.request(method: .get, uri: uri("http://a/")) }
        serializer.setValue(nil, forHeader: "X-Default")
        #expect(throws: Never.self) { try serializer.request(method: .get, uri: uri("http://a/")) }
    }
}


@Suite struct JSONRequestSerializerTests {
    @Test func bodyAndContentType() throws {
        let request = try JSONRequestSerializer().request(method: .post, uri: uri("http://a/"), parameters: ["b": [1, true, nil], "a": "x"])
        #expect(bodyText(request) == #"{"b":[1,true,null],"a":"x"}"#)
        #expect(request.headers.first(name: "Content-Type") == "application/json")
        let overridden = try JSONRequestSerializer().request(method: .post, uri: uri("http://a/"), parameters: [1], headers: ["Content-Type": "application/vnd.x+json"])
        #expect(overridden.headers["content-type"] == ["application/vnd.x+json"])
    }

    @Test func nilParametersSendNothing() throws {
        let request = try JSONRequestSerializer().request(method: .post, uri: uri("http://a/"), parameters: nil)
        #expect(request.body.bytes == nil)
        #expect(!request.headers.contains(name: "Content-Type"))
    }

    @Test func getUsesTheQuery() throws {
        let request = try JSONRequestSerializer().request(method: .get, uri: uri("http://a/?q=1"), parameters: ["n": 2.5, "i": 3, "s": "a b", "z": nil])
        #expect(request.uri.query == "q=1&i=3&n=2.5&s=a%20b&z")
        #expect(request.body.bytes == nil)
    }

    @Test func encodableBodiesAndNonFiniteNumbers() throws {
        struct Point: Encodable { var x: Double; var y: Int }
        let request = try JSONRequestSerializer().request(method: .put, uri: uri("http://a/"), encoding: Point(x: 1.5, y: 2))
        #expect(bodyText(request) == #"{"x":1.5,"y":2}"#)
        #expect { try JSONRequestSerializer().request(method: .put, uri: uri("http://a/"), encoding: Point(x: .nan, y: 2)) } throws: {
            ($0 as? RequestSerializationError)?.code == .invalidJSONValue
        }
        #expect { try JSONRequestSerializer().request(method: .put, uri: uri("http://a/"), encoding: [Double.infinity]) } throws: {
            ($0 as? RequestSerializationError)?.code == .invalidJSONValue
        }
    }
}

@Suite struct PropertyListRequestSerializerTests {
    @Test func xmlBody() throws {
        let value: PropertyListValue = .dictionary([("name", .string("a<b&c")), ("n", .integer(-3)), ("ok", .bool(true)), ("list", .array([.real(1.5), .data([0, 1, 2])]))])
        let request = try PropertyListRequestSerializer().request(method: .post, uri: uri("http://a/"), parameters: value)
        #expect(request.headers.first(name: "Content-Type") == "application/x-plist")
        let expected = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>name</key>
        \t<string>a&lt;b&amp;c</string>
        \t<key>n</key>
        \t<integer>-3</integer>
        \t<key>ok</key>
        \t<true/>
        \t<key>list</key>
        \t<array>
        \t\t<real>1.5</real>
        \t\t<data>AAEC</data>
        \t</array>
        </dict>
        </plist>

        """
        #expect(bodyText(request) == expected)
    }

    @Test func valuesWithoutAnXMLFormAreRefused() {
        for value: PropertyListValue in [.null, .uid(1), .array([.string("a\u{1}b")]), .dictionary([("k\u{0}", .bool(true))])] {
            #expect { try PropertyListRequestSerializer().request(method: .post, uri: uri("http://a/"), parameters: value) } throws: {
                ($0 as? RequestSerializationError)?.code == .invalidPropertyListValue
            }
        }
    }

    @Test func getUsesTheQuery() throws {
        let request = try PropertyListRequestSerializer().request(method: .get, uri: uri("http://a/"), parameters: .dictionary([("b", .bool(false)), ("a", .integer(1))]))
        #expect(request.uri.query == "a=1&b=0")
    }
}

@Suite struct UserAgentTests {
    @Test("the default User-Agent: <executable>/<version> (Linux <kernel release>), from uname and /proc/self/exe")
    func defaultUserAgent() throws {
        var names = utsname()
        #expect(uname(&names) == 0)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let agent = CourierVersion.userAgent
        #expect(agent.hasSuffix("/0.1 (Linux \(release))"), "\(agent)")
        // The test runner is the executable here.
        var path = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &path, path.count)
        #expect(count > 0)
        let runner = String(decoding: path[..<max(count, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/").last.map(String.init) ?? ""
        #expect(!runner.isEmpty && agent.hasPrefix(runner + "/"), "\(agent)")
        #expect(agent.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
    }

    @Test("pure ASCII, product tokens and comments kept valid, as AFNetworking makes it", arguments: [
        ("myservice", "1.2", "6.1.0-18-amd64", "myservice/1.2 (Linux 6.1.0-18-amd64)"),
        ("my service", "1.2", nil, "my-service/1.2 (Linux)"),
        ("café", "1.0 beta", "5.10", "caf/1.0-beta (Linux 5.10)"),
        ("日本", "1", "6.1 (custom)", "courier/1 (Linux 6.1 custom)"),
        ("a/b", "2", "x\\y\u{7}", "a-b/2 (Linux xy)"),
    ] as [(String, String, String?, String)])
    func shape(executable: String, version: String, release: String?, expected: String) {
        #expect(CourierVersion.userAgent(executable: executable, version: version, kernelRelease: release) == expected)
    }
}

@Suite struct TopLevelParametersTests {
    @Test("query-string and form parameters must be a dictionary at the top level; a JSON body may be anything")
    func topLevel() throws {
        let notKeyValue: [QueryValue] = [.array([.int(1)]), .string("a"), .int(1), .double(1.5), .bool(true), .null, .set([.string("a")])]
        for value in notKeyValue {
            for method in [HTTPMethod.get, .post, .delete] {
                #expect { try FormRequestSerializer().request(method: method, uri: uri("http://a/"), parameters: value) } throws: {
                    ($0 as? RequestSerializationError)?.code == .parametersNotKeyValue
                }
            }
        }
        // A JSON array: refused in a query (GET), sent as it is in a body (POST).
        #expect { try JSONRequestSerializer().request(method: .get, uri: uri("http://a/"), parameters: [1, 2]) } throws: {
            ($0 as? RequestSerializationError)?.code == .parametersNotKeyValue
        }
        #expect(bodyText(try JSONRequestSerializer().request(method: .post, uri: uri("http://a/"), parameters: [1, 2])) == "[1,2]")
        // A dictionary (even empty) is fine; a custom query-string closure takes anything.
        #expect(try FormRequestSerializer().request(method: .get, uri: uri("http://a/"), parameters: .dictionary([("k", .array([.int(1)]))])).uri.description == "http://a/?k%5B%5D=1")
        #expect(try FormRequestSerializer().request(method: .get, uri: uri("http://a/"), parameters: .dictionary([])).uri.description == "http://a/")
        var defaults = RequestDefaults()
        defaults.queryStringSerialization = { _, _, value in value == .string("raw") ? "raw" : "other" }
        #expect(try FormRequestSerializer(defaults: defaults).request(method: .get, uri: uri("http://a/"), parameters: .string("raw")).uri.description == "http://a/?raw")
    }
}
