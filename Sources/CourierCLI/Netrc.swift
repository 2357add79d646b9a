// Netrc: credentials from a .netrc file for -n/--netrc, --netrc-optional and --netrc-file, read
// as curl 7.88 reads them (lib/netrc.c):
// - tokens are separated by blanks and line ends; `#` (where a token would start) comments out
//   the rest of the line; a token in double quotes may hold blanks, with `\n \r \t` and `\`
//   before any other character taken as that character; an unterminated quote is a syntax error
//   (curl's ".netrc parser error", 26);
// - `machine NAME` starts the entry of host NAME (compared without case), `default` an entry for
//   every host; inside the entry, `login X` and `password Y`; `macdef NAME` skips the lines up
//   to the next empty one;
// - the first entry that names the host (or `default`) and gives a login and a password wins;
//   with a user name already known (from the URL), only the password of an entry with that login
//   is taken.
// The file is looked up once per request, for the request's own host: after a redirect to
// another host only that host's entry (if any) is used, so one host's credentials never reach
// another, as in curl.

import CourierBytes
import CourierPosix
import CourierURL

/// How a group takes credentials from a .netrc file.
struct NetrcUse: Sendable, Equatable {
    /// --netrc-file FILE (nil: $HOME/.netrc).
    var file: String?
    /// --netrc-optional: credentials in the URL come first (curl's CURL_NETRC_OPTIONAL).
    var optional: Bool

    /// The file to read: --netrc-file, else $HOME/.netrc (nil without HOME).
    var path: String? {
        if let file { return file }
        return ProcessEnvironment.value("HOME").map { $0 + "/.netrc" }
    }
}

/// A .netrc file's contents.
struct Netrc: Sendable {
    /// The file's bytes.
    let bytes: [UInt8]

    /// The parser's verdict for one host.
    enum Lookup: Sendable, Equatable {
        /// An entry named the host (or `default`): its login and password, either may be missing.
        case found(login: String?, password: String?)
        /// No entry for the host.
        case notFound
        /// A quoted token without its closing quote, or a backslash at its end.
        case syntaxError
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Reads FILE (nil when it cannot be read: curl then goes on without credentials).
    init?(path: String) {
        guard let buffer = try? readWholeFile(path) else { return nil }
        bytes = buffer.readableBytesArray
    }

    private enum State { case nothing, hostFound, hostValid, macro }

    /// The credentials for `host`, by the state machine of Debian's curl 7.88.1 (with the
    /// upstream netrc fixes of curl 8.11 backported): an entry's password is kept until the next
    /// `machine` or `default` clears it; with a user name given, the entry whose login is that
    /// name ends the search, and without one the first entry with a login and a password does.
    /// - Parameters:
    ///   - host: the request's host name.
    ///   - login: a user name already given (the URL's, even empty): it stays the user name.
    func lookup(host: String, login given: String? = nil) -> Lookup {
        let specificLogin = given != nil
        var login = given
        var password: String?
        var found = false
        var state = State.nothing
        var keyword = 0  // 1: login, 2: password
        var foundLogin = false
        var foundPassword = false
        var ourLogin = false
        var lineStart = 0
        func newEntry() {
            keyword = 0
            foundLogin = false
            foundPassword = false
            password = nil
            if !specificLogin { login = nil }
        }
        lines: while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            let line = bytes[lineStart..<lineEnd]
            if state == .macro {
                // A macro runs to a line that is empty (or holds only its CR).
                if line.isEmpty || line.first == UInt8(ascii: "\r") { state = .nothing } else { continue }
            }
            var i = line.startIndex
            while true {
                while i < line.endIndex && (line[i] == 0x20 || line[i] == 0x09) { i += 1 }
                if i >= line.endIndex || line[i] == UInt8(ascii: "#") || line[i] == 0x0D || line[i] == 0x0B || line[i] == 0x0C { break }
                var token: [UInt8] = []
                if line[i] == UInt8(ascii: "\"") {
                    i += 1
                    var escape = false
                    var closed = false
                    while i < line.endIndex {
                        var byte = line[i]
                        i += 1
                        if escape {
                            escape = false
                            switch byte {
                            case UInt8(ascii: "n"): byte = 0x0A
                            case UInt8(ascii: "r"): byte = 0x0D
                            case UInt8(ascii: "t"): byte = 0x09
                            default: break
                            }
                        } else if byte == UInt8(ascii: "\\") {
                            escape = true
                            continue
                        } else if byte == UInt8(ascii: "\"") {
                            closed = true
                            break
                        }
                        token.append(byte)
                    }
                    if escape || !closed { return .syntaxError }
                    i += 1  // the character after the closing quote
                } else {
                    while i < line.endIndex && !(line[i] == 0x20 || (line[i] >= 0x09 && line[i] <= 0x0D)) {
                        token.append(line[i])
                        i += 1
                    }
                    i += 1
                }
                let text = String(decoding: token, as: UTF8.self)
                switch state {
                case .nothing:
                    if equalsIgnoringCase(text, "macdef") {
                        state = .macro
                    } else if equalsIgnoringCase(text, "machine") {
                        state = .hostFound
                        newEntry()
                        ourLogin = false
                    } else if equalsIgnoringCase(text, "default") {
                        state = .hostValid
                        found = true
                    }
                case .macro:
                    if text.isEmpty { state = .nothing }
                case .hostFound:
                    if equalsIgnoringCase(text, host) {
                        state = .hostValid
                        found = true
                    } else {
                        state = .nothing
                    }
                case .hostValid:
                    if keyword == 1 {
                        if specificLogin {
                            ourLogin = login == text
                        } else {
                            ourLogin = true
                            login = text
                        }
                        foundLogin = true
                        keyword = 0
                    } else if keyword == 2 {
                        password = text
                        foundPassword = true
                        keyword = 0
                    } else if equalsIgnoringCase(text, "login") {
                        keyword = 1
                    } else if equalsIgnoringCase(text, "password") {
                        keyword = 2
                    } else if equalsIgnoringCase(text, "machine") {
                        state = .hostFound
                        newEntry()
                    } else if equalsIgnoringCase(text, "default") {
                        state = .hostValid
                        found = true
                        password = nil
                        if !specificLogin { login = nil }
                    }
                    if foundLogin && foundPassword && ourLogin { break lines }
                }
                if state == .macro { break }
            }
        }
        guard found else { return .notFound }
        if password == nil && ourLogin { password = "" }
        return .found(login: login, password: password)
    }

    private func equalsIgnoringCase(_ a: String, _ b: String) -> Bool { ASCIICase.lowercased(a) == ASCIICase.lowercased(b) }
}

extension RequestBuilder {
    /// -n, --netrc-optional, --netrc-file: the credentials ("login:password") for the URL's host
    /// from the .netrc file, as curl's override_login takes them. Not asked when -u, a bearer
    /// token or an -H field decides Authorization (the caller checks); a URL with both a user
    /// name and a password keeps them; a URL with a user name only takes that login's password.
    /// - Returns: nil when the file has nothing for the host (the URL's credentials, if any, are
    ///   then used as without -n).
    /// - Throws: `CLIError` 26 for a file curl's parser refuses (".netrc parser error").
    func netrcCredentials(for uri: URI, netrc: Netrc?) throws(CLIError) -> String? {
        guard let use = options.netrc, let netrc, let host = uri.host?.text else { return nil }
        var urlUser: String?
        if let userinfo = uri.userinfo {
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            urlUser = (try? PercentEncoding.decodeToString(String(parts[0]))) ?? String(parts[0])
            // --netrc-optional: a password in the URL comes first.
            if use.optional, parts.count > 1, !parts[1].isEmpty { return nil }
        }
        switch netrc.lookup(host: host, login: urlUser) {
        case .syntaxError:
            throw CLIError(26, ".netrc parser error")
        case .notFound, .found(_, nil):
            // Nothing for the host, or no password: the URL's credentials stay (curl).
            return nil
        case .found(let login, let password?):
            return (login ?? "") + ":" + password
        }
    }
}
