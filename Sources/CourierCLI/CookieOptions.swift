// CookieOptions: curl's cookie flags (docs/cli.md "Cookies", docs/cookies.md).
//
// - `-b DATA` with a "=" in it is sent as it is in the Cookie field of every request to the URL's
//   origin (several are joined with "; ", as curl joins them), unless a -H gives a Cookie field;
//   it does not turn the cookie engine on and is dropped when a redirect changes origin.
// - `-b FILE` (no "=") loads a Netscape cookie file, or a file of Set-Cookie lines, into the jar
//   and turns the engine on; "-" reads standard input; "" turns the engine on with nothing loaded;
//   a file that does not exist or is a directory is skipped (a warning with -v), as in curl.
// - `-c FILE` turns the engine on and writes every cookie to FILE after the last URL — also when
//   transfers failed — through a temporary file renamed over FILE; "-" writes to standard output.
//   A file that cannot be written is a warning (curl only says so with -v); the exit code stays.
// - `-j` drops session cookies while the -b files are read.
//
// With the engine on, one jar serves every URL of the run (and every redirect hop): Set-Cookie
// fields are stored and each request carries its cookies. The public suffix list is read from
// /usr/share/publicsuffix (Debian's `publicsuffix`); without it, the dot rule applies.

import Courier
import CourierBytes
import CourierCookies
import CourierPosix

/// The cookie options of a command line, checked.
struct CookieOptions: Sendable {
    /// The -b strings with "=", joined as curl joins them.
    var literal: String?
    /// The -b arguments without "=": files to load ("" loads nothing, "-" is standard input).
    var files: [String] = []
    /// -c FILE.
    var jarPath: String?
    /// -j.
    var discardsSessionCookies = false

    /// Whether cookies are stored and sent (curl's cookie engine).
    var enablesEngine: Bool { !files.isEmpty || jarPath != nil }

    /// - Throws: `CLIError` 2 for `-c ""`.
    init(options: TransferOptions) throws(CLIError) {
        for value in options.cookie {
            if value.contains("=") {
                // curl: the first as it is, each next one after ";" and a space unless it starts with one.
                if let joined = literal {
                    literal = joined + ";" + (value.first == " " || value.first == "\t" ? "" : " ") + value
                } else {
                    literal = value
                }
            } else {
                files.append(value)
            }
        }
        if let path = options.cookieJar, path.isEmpty { throw .usage("-c, --cookie-jar needs a file name (\"-\" for standard output)") }
        jarPath = options.cookieJar
        discardsSessionCookies = options.junkSessionCookies
    }

    /// The jar of this run with the -b files loaded, or nil when the engine is off.
    /// - Parameter verbose: print a warning for each file that cannot be read.
    /// - Returns: the jar.
    func makeJar(verbose: Bool) async -> CookieJar? {
        guard enablesEngine else { return nil }
        let jar = await CookieJar.withSystemPublicSuffixList()
        for path in files where !path.isEmpty {
            if path == "-" {
                guard let input = try? StandardStreams.readInput() else { continue }
                jar.loadNetscapeFile(input.readableString, discardingSessionCookies: discardsSessionCookies)
                continue
            }
            do {
                try await jar.load(contentsOf: path, discardingSessionCookies: discardsSessionCookies)
            } catch {
                if verbose { StandardStreams.writeError("* WARNING: failed to open cookie file \"\(path)\"\n") }
            }
        }
        return jar
    }

    /// Adds the -b literal to a request that has no Cookie field of its own.
    func apply(to request: inout HTTPRequest) {
        guard let literal, !request.headers.contains(name: "Cookie") else { return }
        request.headers.add(name: "Cookie", value: literal)
    }

    /// Writes the jar to the -c file (run after the last URL, whatever happened to it).
    /// - Parameters:
    ///   - jar: the run's jar.
    ///   - showsErrors: whether a failure is reported on stderr.
    func save(_ jar: CookieJar?, showsErrors: Bool) async {
        guard let jar, let jarPath else { return }
        if jarPath == "-" {
            do { try StandardStreams.writeOutput(jar.netscapeFile()) } catch {
                if showsErrors { printError("courier: warning: failed to write cookies to standard output: \(error)") }
            }
            return
        }
        do { try await jar.save(to: jarPath) } catch {
            if showsErrors { printError("courier: warning: failed to save cookies in \(jarPath): \(error.reason)") }
        }
    }
}
