// -w '%{json}': every write-out variable as one JSON object, as curl 7.88 prints it
// (tool_writeout.c, ourWriteOutJSON): its names in its order, numbers as numbers (times with six
// decimals), strings as strings, and null for a string that has no value (no Content-Type, no
// error, standard output as the file, no redirect, no Referer, no scheme before a connection); curl_version last, here the
// courier version. Keys courier cannot fill (docs/cli.md): local_ip and local_port (the session
// does not report the local address: "" and 0), certs and num_certs ("" and 0, as curl without
// --write-out certificates), ftp_entry_path (null), time_redirect (0).

extension WriteOutFormatter {
    /// How a variable is written in the object.
    private enum Kind { case number, string, nullableString, time }

    /// curl 7.88's variables in the order %{json} writes them.
    private static let jsonFields: [(name: String, kind: Kind)] = [
        ("certs", .string), ("content_type", .nullableString), ("errormsg", .nullableString), ("exitcode", .number),
        ("filename_effective", .nullableString), ("ftp_entry_path", .nullableString), ("http_code", .number),
        ("http_connect", .number), ("http_version", .string), ("local_ip", .string), ("local_port", .number),
        ("method", .string), ("num_certs", .number), ("num_connects", .number), ("num_headers", .number),
        ("num_redirects", .number), ("proxy_ssl_verify_result", .number), ("redirect_url", .nullableString),
        ("referer", .nullableString), ("remote_ip", .string), ("remote_port", .number), ("response_code", .number),
        ("scheme", .nullableString), ("size_download", .number), ("size_header", .number), ("size_request", .number),
        ("size_upload", .number), ("speed_download", .number), ("speed_upload", .number), ("ssl_verify_result", .number),
        ("time_appconnect", .time), ("time_connect", .time), ("time_namelookup", .time), ("time_pretransfer", .time),
        ("time_redirect", .time), ("time_starttransfer", .time), ("time_total", .time), ("url", .string),
        ("url_effective", .string), ("urlnum", .number),
    ]

    /// The %{json} object for one URL (no newline after it, as curl).
    func json(_ values: WriteOutValues) -> String {
        var out = "{"
        for (name, kind) in Self.jsonFields {
            var text = value(of: name, values) ?? ""
            switch kind {
            case .number:
                // A status is a number here, not curl's three digits.
                if name == "http_code" || name == "response_code" { text = String(values.httpCode) }
                if name == "http_connect" { text = String(values.httpConnect) }
                if name == "remote_port", text.isEmpty { text = "0" }
                out += "\"\(name)\":\(text),"
            case .time:
                out += "\"\(name)\":\(text),"
            case .string:
                out += "\"\(name)\":\(Self.quoted(text)),"
            case .nullableString:
                out += "\"\(name)\":" + (text.isEmpty ? "null" : Self.quoted(text)) + ","
            }
        }
        return out + "\"curl_version\":\(Self.quoted("courier/\(CourierCLIInfo.version)"))}"
    }

    /// A JSON string as curl writes one (jsonquoted): `"` and `\` escaped, \b \f \n \r \t, other
    /// control bytes as \u00XX; everything else as it is.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
