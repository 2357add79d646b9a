// -w '%{json}': curl 7.88's keys in its order with its value types (compared with curl's own
// output key by key in scripts/cli-differential); here the shape, offline.

import Testing

extension CLITests {
    @Suite("-w %{json}")
    struct WriteOutJSONTests {
        @Test("curl's 40 keys in curl's order, then curl_version; numbers bare, absent strings null, strings escaped")
        func shape() {
            let run = courier(["--offline", "-o", "/dev/null", "-w", "%{json}", "-e", "http://r/\"q\"", "http://h/a"])
            // --offline prints the request first; the object follows it.
            let text = String(run.stdoutText.drop { $0 != "{" })
            let keys = ["certs", "content_type", "errormsg", "exitcode", "filename_effective", "ftp_entry_path", "http_code",
                        "http_connect", "http_version", "local_ip", "local_port", "method", "num_certs", "num_connects", "num_headers",
                        "num_redirects", "proxy_ssl_verify_result", "redirect_url", "referer", "remote_ip", "remote_port",
                        "response_code", "scheme", "size_download", "size_header", "size_request", "size_upload", "speed_download",
                        "speed_upload", "ssl_verify_result", "time_appconnect", "time_connect", "time_namelookup", "time_pretransfer",
                        "time_redirect", "time_starttransfer", "time_total", "url", "url_effective", "urlnum", "curl_version"]
            var position = text.startIndex
            for key in keys {
                guard let range = text[position...].firstRange(of: "\"\(key)\":") else {
                    Issue.record("\(key) missing or out of order in \(text)")
                    return
                }
                position = range.upperBound
            }
            #expect(text.hasPrefix("{\"certs\":\"\",\"content_type\":null,\"errormsg\":null,\"exitcode\":0,"))
            #expect(text.contains("\"http_code\":0,"), "a number, not curl's %{http_code} 000")
            #expect(text.contains("\"referer\":\"http://r/\\\"q\\\"\""))
            #expect(text.contains("\"time_total\":0.0"))
            #expect(text.hasSuffix("}"))
            let failed = String(courier(["--offline", "-s", "-w", "%{json}", "http://h/a\tb"]).stdoutText.drop { $0 != "{" })
            #expect(failed.contains("\"errormsg\":\"URL using bad/illegal format or missing URL\",\"exitcode\":3,"))
            #expect(failed.contains("\"url\":\"http://h/a\\tb\""), "a control character escaped as curl escapes it")
        }
    }
}
