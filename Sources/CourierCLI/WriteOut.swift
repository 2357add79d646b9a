// WriteOut: curl's -w/--write-out formatting (tool_writeout.c), for one finished URL.
//
// Syntax, as curl reads it:
//   %{name}      a variable (unknown names print nothing and a warning on stderr);
//   %header{N}   the response field N (all values joined by ", ");
//   %%           a "%";
//   %{stderr} / %{stdout}   switch where the rest goes;
//   \n \r \t     line feed, carriage return, tab; any other "\x" is printed as it is;
//   "%{" with no "}" prints "%{"; "%" followed by anything else prints both characters;
//   %{json}      every variable as one JSON object, curl 7.88's names, order and value types
//                (WriteOut+JSON.swift).
// `-w @FILE` reads the format from a file ("@-": standard input).

import CourierBytes
import CourierHTTP1

/// What -w can print about one URL.
struct WriteOutValues: Sendable {
    var httpCode = 0
    var numConnects = 0
    /// The status of the proxy's reply to CONNECT (0: none).
    var httpConnect = 0
    var numRedirects = 0
    var sizeDownload: UInt64 = 0
    var sizeUpload: UInt64 = 0
    var sizeHeader: UInt64 = 0
    var sizeRequest: UInt64 = 0
    var timeTotal: Duration = .zero
    var timeNameLookup: Duration = .zero
    var timeConnect: Duration = .zero
    var timeAppConnect: Duration = .zero
    var timePreTransfer: Duration = .zero
    var timeStartTransfer: Duration = .zero
    var urlEffective = ""
    var url = ""
    var contentType = ""
    var method = ""
    var scheme = ""
    var httpVersion = "0"
    var remoteIP = ""
    var remotePort = ""
    var redirectURL = ""
    var filenameEffective = ""
    var exitCode: Int32 = 0
    var errorMessage = ""
    var responseHeaders = HTTPHeaders()
    var numHeaders = 0
    /// The Referer field sent with the last request ("" for none).
    var referer = ""
    /// The index of the URL on the command line (of its group), from 0; a glob's URLs share it.
    var urlNumber = 0
}

/// Renders a -w format.
struct WriteOutFormatter {
    let format: [UInt8]

    init(format: String) { self.format = Array(format.utf8) }

    /// The bytes for standard output and for standard error (after `%{stderr}`), and the warnings
    /// for unknown variables.
    func render(_ values: WriteOutValues) -> (stdout: [UInt8], stderr: [UInt8], warnings: [String]) {
        var out: [UInt8] = []
        var err: [UInt8] = []
        var toError = false
        var warnings: [String] = []
        func emit(_ bytes: [UInt8]) { if toError { err += bytes } else { out += bytes } }
        func emit(_ text: String) { emit(Array(text.utf8)) }
        let f = format
        var i = 0
        while i < f.count {
            let byte = f[i]
            if byte == UInt8(ascii: "%") && i + 1 < f.count {
                let next = f[i + 1]
                if next == UInt8(ascii: "%") {
                    emit([UInt8(ascii: "%")]); i += 2
                } else if next == UInt8(ascii: "{") {
                    guard let end = f[(i + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                        emit("%{"); i += 2; continue
                    }
                    let name = String(decoding: f[(i + 2)..<end], as: UTF8.self)
                    i = end + 1
                    switch name {
                    case "stderr": toError = true
                    case "stdout": toError = false
                    case "json": emit(json(values))
                    default:
                        if let text = value(of: name, values) { emit(text) } else {
                            warnings.append("unknown --write-out variable: '\(name)'")
                        }
                    }
                } else if f[(i + 1)...].starts(with: Array("header{".utf8)) {
                    let start = i + 8
                    guard let end = f[start...].firstIndex(of: UInt8(ascii: "}")) else {
                        emit("%header{"); i = start; continue
                    }
                    let name = String(decoding: f[start..<end], as: UTF8.self)
                    let found = values.responseHeaders[name]
                    if !found.isEmpty { emit(found.joined(separator: ", ")) }
                    i = end + 1
                } else {
                    emit([byte, next]); i += 2
                }
            } else if byte == UInt8(ascii: "\\") && i + 1 < f.count {
                switch f[i + 1] {
                case UInt8(ascii: "n"): emit([10])
                case UInt8(ascii: "r"): emit([13])
                case UInt8(ascii: "t"): emit([9])
                default: emit([byte, f[i + 1]])
                }
                i += 2
            } else {
                emit([byte]); i += 1
            }
        }
        return (out, err, warnings)
    }

    /// A variable's text, or nil for a name curl would not know.
    func value(of name: String, _ v: WriteOutValues) -> String? {
        switch name {
        case "http_code", "response_code": return threeDigits(v.httpCode)
        case "num_connects": return String(v.numConnects)
        case "http_connect": return threeDigits(v.httpConnect)
        case "num_redirects": return String(v.numRedirects)
        case "num_headers": return String(v.numHeaders)
        case "size_download": return String(v.sizeDownload)
        case "size_upload": return String(v.sizeUpload)
        case "size_header": return String(v.sizeHeader)
        case "size_request": return String(v.sizeRequest)
        case "time_total": return seconds(v.timeTotal)
        case "time_namelookup": return seconds(v.timeNameLookup)
        case "time_connect": return seconds(v.timeConnect)
        case "time_appconnect": return seconds(v.timeAppConnect)
        case "time_pretransfer": return seconds(v.timePreTransfer)
        case "time_starttransfer": return seconds(v.timeStartTransfer)
        case "time_redirect": return seconds(.zero)
        case "speed_download": return String(speed(v.sizeDownload, v.timeTotal))
        case "speed_upload": return String(speed(v.sizeUpload, v.timeTotal))
        case "url_effective": return v.urlEffective
        case "url": return v.url
        case "content_type": return v.contentType
        case "method": return v.method
        case "scheme": return v.scheme
        case "http_version": return v.httpVersion
        case "remote_ip": return v.remoteIP
        case "remote_port": return v.remotePort
        case "redirect_url": return v.redirectURL
        case "filename_effective": return v.filenameEffective
        case "exitcode": return String(v.exitCode)
        case "errormsg": return v.errorMessage
        case "referer": return v.referer
        case "urlnum": return String(v.urlNumber)
        case "local_ip": return ""
        case "local_port": return "0"
        case "num_certs", "ssl_verify_result", "proxy_ssl_verify_result": return "0"
        case "certs", "ftp_entry_path": return ""
        default: return nil
        }
    }

    func threeDigits(_ code: Int) -> String {
        let text = String(code)
        return String(repeating: "0", count: max(0, 3 - text.count)) + text
    }

    /// Seconds with six decimals, as curl prints times ("0.012345").
    func seconds(_ duration: Duration) -> String {
        let (whole, atto) = duration.components
        let micros = atto / 1_000_000_000_000
        let fraction = String(micros)
        return String(whole) + "." + String(repeating: "0", count: max(0, 6 - fraction.count)) + fraction
    }

    func speed(_ bytes: UInt64, _ duration: Duration) -> UInt64 {
        let (whole, atto) = duration.components
        let seconds = Double(whole) + Double(atto) / 1e18
        guard seconds > 0 else { return 0 }
        return UInt64(Double(bytes) / seconds)
    }
}
