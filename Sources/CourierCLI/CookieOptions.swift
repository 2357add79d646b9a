// CookieOptions: curl's cookie flags (docs/cli.md "Cookies", docs/cookies.md), per group (-:).
//
// - `-b DATA` with a "=" in it is sent as it is in the Cookie field of every request of the group
//   (several are joined with ";", as curl 7.88 joins them; RequestBuilder puts it where curl does),
//   unless a -H gives a Cookie field; it does not turn the cookie engine on and is dropped when a
//   redirect changes origin.
// - `-b FILE` (no "=") loads a Netscape cookie file, or a file of Set-Cookie lines, into the jar
//   and turns the engine on; "-" reads standard input; "" turns the engine on with nothing loaded;
//   a file that does not exist or is a directory is skipped (a warning with -v), as in curl.
// - `-c FILE` turns the engine on and writes every cookie to FILE after the group's last URL —
//   also when transfers failed — through a temporary file renamed over FILE; "-" writes to
//   standard output. A file that cannot be written is a warning (curl only says so with -v); the
//   exit code stays.
// - `-j` drops session cookies while the group's -b files are read.
//
// One jar serves the run, as curl's transfers share one cookie store: every group whose engine is
// on uses it (each URL and each redirect hop: Set-Cookie fields are stored and each request
// carries its cookies); a group whose engine is off neither sends nor stores cookies, as in curl.
// The public suffix list is read from /usr/share/publicsuffix (Debian's `publicsuffix`); without
// it, the dot rule applies.

import Courier
import CourierBytes
import CourierCookies
import CourierPosix

/// The cookie options of a command line, checked.
struct CookieOptions: Sendable {
    /// The -b arguments without "=": files to load ("" loads nothing, "-" is standard input).
    var files: [String] = []
    /// -c FILE.
    var jarPath: String?
    /// -j.
    var discardsSessionCookies = false

    /// Whether cookies are stored and sent (curl's cookie engine).
    var enablesEngine: Bool { CookieOptions.enablesEngine(options: files, jar: jarPath) }

    /// Whether a group's -b and -c arguments turn the engine on: a -b without "=" or a -c.
    static func enablesEngine(options cookie: [String], jar: String?) -> Bool {
        jar != nil || cookie.contains { !$0.contains("=") }
    }

    /// The -b strings with "=" joined as curl 7.88 joins them: the first as it is, each next one
    /// after a ";" (no space: `-b a=1 -b b=2` sends `a=1;b=2`). Nil when there are none.
    static func literal(of cookie: [String]) -> String? {
        var literal: String?
        for value in cookie where value.contains("=") {
            if let joined = literal {
                literal = joined + ";" + value
            } else {
                literal = value
            }
        }
        return literal
    }

    /// - Throws: `CLIError` 2 for `-c ""`.
    init(options: TransferOptions) throws(CLIError) {
        files = options.cookie.filter { !$0.contains("=") }
        if let path = options.cookieJar, path.isEmpty { throw .usage("-c, --cookie-jar needs a file name (\"-\" for standard output)") }
        jarPath = options.cookieJar
        discardsSessionCookies = options.junkSessionCookies
    }

    /// Loads this group's -b files into the run's jar (when the group starts).
    /// - Parameters:
    ///   - jar: the run's jar.
    ///   - global: the trace (-v, --trace) that tells of each file that cannot be read.
    func load(into jar: CookieJar, global: GlobalOptions) async {
        for path in files where !path.isEmpty {
            if path == "-" {
                guard let input = try? StandardStreams.readInput() else { continue }
                jar.loadNetscapeFile(input.readableString, discardingSessionCookies: discardsSessionCookies)
                continue
            }
            do {
                try await jar.load(contentsOf: path, discardingSessionCookies: discardsSessionCookies)
            } catch {
                global.information("* WARNING: failed to open cookie file \"\(path)\"\n")
            }
        }
    }

    /// Writes the jar to the -c file (run after the group's last URL, whatever happened to it).
    /// - Parameters:
    ///   - jar: the run's jar (nil: no group has the engine on).
    ///   - showsErrors: whether a failure is reported on stderr.
    func save(_ jar: CookieJar?, showsErrors: Bool) async {
        guard let jar, let jarPath else { return }
        if jarPath == "-" {
            do { try await StandardOutput.write(jar.netscapeFile()) } catch {
                if showsErrors { printError("courier: warning: failed to write cookies to standard output: \(error)") }
            }
            return
        }
        do { try await jar.save(to: jarPath) } catch {
            if showsErrors { printError("courier: warning: failed to save cookies in \(jarPath): \(error.reason)") }
        }
    }
}
