// TransferOptions: every flag of `courier [options] URL [URL ...]` (design §9). The table below
// (`TransferOptions.table`) is the one description of the command line: CommandLineParser parses
// curl's grammar from it, `--help` is generated from it, and docs/cli.md lists the same entries.
//
// Groups (curl's -:/--next): the ordered argument list is cut at each `-:`; every group has its
// own URLs and its own options, starting from the defaults, as in curl. A few options are global
// (`globalKeys`: -s, -S, -v, -#, --no-progress-meter, --stderr, --fail-early, -h, -V): they apply to
// the whole command line wherever they stand, the last one winning, as curl's global options do.
//
// Within a group, repeated options accumulate (-H, -d, -F, -o, --resolve, ...) or the last one wins
// (-X, -m, -w, ...), as each entry says. The data options (-d, --data-ascii, --data-binary,
// --data-raw, --data-urlencode, --json) are joined in the order they were given, as curl joins them:
// each keeps its position among all arguments (`OrderedValue`); so do -F and --form-string.
//
// URLs, outputs and uploads pair up as curl pairs them (its "getout" nodes): the n-th URL (a
// positional argument or --url) goes with the n-th output (-o FILE or -O) and the n-th upload
// (-T FILE) of its group, whatever their order on the command line (`URLNode`).

import Courier
import CourierPosix

/// A value that remembers where it was on the command line, among all arguments.
struct OrderedValue: Sendable, Equatable {
    let text: String
    let sequence: Int
}

/// What each option of the transfer command is.
enum TransferKey: Hashable, Sendable {
    // The request
    case request, header, userAgent, referer, data, dataASCII, dataBinary, dataRaw, dataURLEncode, get, json, params
    case form, formString, uploadFile, range, timeCondition, urlQuery, requestTarget, pathAsIs, url, globOff, next, http1_0
    // Authentication
    case user, basic, digest, anyAuth, oauth2Bearer, disallowUsernameInURL
    // Output
    case output, remoteName, remoteNameAll, remoteHeaderName, remoteTime, outputDir, createDirs, noClobber, removeOnError
    case createFileMode, continueAt, include, head, dumpHeader, etagSave, etagCompare, verbose, writeOut
    case silent, showError, progressBar, noProgressMeter, noBuffer, stderr
    case jsonResponse, sanitizeNulls, offline
    // Behaviour
    case location, locationTrusted, maxRedirects, post301, post302, post303, fail, failWithBody, failEarly
    case connectTimeout, maxTime, idleTimeout, maxFilesize, compressed, expect100Timeout, limitRate, speedLimit, speedTime, raw, ignoreContentLength
    case retry, retryDelay, retryMaxTime, retryAllErrors, retryConnrefused
    // Connection
    case resolve, connectTo, ipv4, ipv6, proto, protoRedirect, protoDefault, noKeepalive, keepaliveTime, tcpNoDelay, happyEyeballsTimeout
    case unixSocket, abstractUnixSocket, interface, localPort
    // Proxy
    case proxy, noproxy, proxyUser, proxytunnel, proxyHeader
    // TLS
    case caCertificate, caPath, clientCertificate, privateKey, keyType, passphrase, insecure, pinnedPublicKey, pinnedCertificate, tlsv1_2, tlsv1_3, tlsMax, ciphers, tls13Ciphers, noSessionID
    // Cookies
    case cookie, cookieJar, junkSessionCookies
    // General
    case help, version
}

/// An output slot of a URL: a file, or the name the server gives (-O).
enum OutputSpec: Sendable, Equatable {
    /// -o FILE ("-" is standard output).
    case file(String)
    /// -O (or --remote-name-all): the URL's last path segment (or, with -J, the server's name).
    case remoteName
}

/// One URL with the output and upload curl pairs with it.
struct URLNode: Sendable, Equatable {
    var url: String?
    var output: OutputSpec?
    var upload: String?
}

/// The options that apply to the whole command line, whatever group they stand in.
struct GlobalOptions: Sendable {
    var silent = false
    var showError = false
    var progressBar = false
    var noProgressMeter = false
    var verbose = false
    var stderrPath: String?
    var failEarly = false
    var showsHelp = false
    var showsVersion = false

    /// Whether the error line is printed (-s hides it, -S brings it back).
    var showsErrors: Bool { !silent || showError }
}

/// The options of one group of URLs (the whole command line when there is no -:).
struct TransferOptions: Sendable {
    // MARK: The table

    private static let request = "The request"
    private static let authentication = "Authentication"
    private static let output = "Output"
    private static let behaviour = "Behaviour"
    private static let connection = "Connection"
    private static let tls = "TLS"
    private static let cookies = "Cookies"
    private static let proxies = "Proxy"
    private static let general = "General"

    /// The options that apply to the whole command line (curl's global options).
    static let globalKeys: Set<TransferKey> = [.silent, .showError, .progressBar, .noProgressMeter, .verbose, .stderr, .failEarly,
                                                .help, .version]

    /// Every option of `courier [options] URL [URL ...]`, in help order.
    static let table = OptionTable<TransferKey>([
        OptionSpec(.request, short: "X", long: "request", value: "METHOD", section: request,
                   help: "The request method, sent as typed."),
        OptionSpec(.header, short: "H", long: "header", value: "FIELD", .accumulates, section: request,
                   help: "A request field \"Name: value\"; \"Name:\" removes one, \"Name;\" sends it empty; @FILE reads one per line."),
        OptionSpec(.userAgent, short: "A", long: "user-agent", value: "NAME", section: request,
                   help: "The User-Agent field (\"\" sends none)."),
        OptionSpec(.referer, short: "e", long: "referer", value: "URL", section: request,
                   help: "The Referer field; \";auto\" (alone or after a URL) sets it to the previous URL on redirects."),
        OptionSpec(.data, short: "d", long: "data", value: "DATA", .accumulates, section: request,
                   help: "POST data, form-urlencoded; @FILE reads a file without its CR and LF (pieces joined with &)."),
        OptionSpec(.dataASCII, long: "data-ascii", value: "DATA", .accumulates, section: request,
                   help: "The same as -d."),
        OptionSpec(.dataBinary, long: "data-binary", value: "DATA", .accumulates, section: request,
                   help: "POST data sent byte for byte; @FILE reads a file as it is."),
        OptionSpec(.dataRaw, long: "data-raw", value: "DATA", .accumulates, section: request,
                   help: "POST data with no @FILE meaning."),
        OptionSpec(.dataURLEncode, long: "data-urlencode", value: "DATA", .accumulates, section: request,
                   help: "POST data, percent-encoded: CONTENT, =CONTENT, NAME=CONTENT, @FILE or NAME@FILE."),
        OptionSpec(.get, short: "G", long: "get", section: request,
                   help: "Put the -d and --data-urlencode data (and --params) in the URL query; method GET."),
        OptionSpec(.json, long: "json", value: "JSON", .accumulates, section: request,
                   help: "A JSON body, sent verbatim (@FILE reads a file); Content-Type and Accept application/json."),
        OptionSpec(.params, long: "params", value: "JSON", section: request,
                   help: "A JSON object of AFNetworking parameters: query for GET/HEAD/DELETE, form body otherwise."),
        OptionSpec(.form, short: "F", long: "form", value: "PART", .accumulates, section: request,
                   help: "A multipart part: NAME=VALUE, NAME=<FILE or NAME=@FILE[;type=MIME][;filename=NAME]."),
        OptionSpec(.formString, long: "form-string", value: "NAME=STRING", .accumulates, section: request,
                   help: "A multipart field whose value is taken literally (no @, < or ;type=)."),
        OptionSpec(.uploadFile, short: "T", long: "upload-file", value: "FILE", .accumulates, section: request,
                   help: "PUT FILE (streamed; \"-\": standard input, chunked); a URL ending in / gets the file name."),
        OptionSpec(.range, short: "r", long: "range", value: "RANGE", section: request,
                   help: "Ask for a byte range: Range: bytes=RANGE (\"0-499\", \"500-\", \"-500\")."),
        OptionSpec(.timeCondition, short: "z", long: "time-cond", value: "TIME", section: request,
                   help: "If-Modified-Since TIME (a date or a file's mtime); \"-TIME\": If-Unmodified-Since."),
        OptionSpec(.urlQuery, long: "url-query", value: "DATA", .accumulates, section: request,
                   help: "Add to the URL query, encoded as --data-urlencode (\"+DATA\": as it is)."),
        OptionSpec(.requestTarget, long: "request-target", value: "TARGET", section: request,
                   help: "Send TARGET as the request-target instead of the URL's path and query."),
        OptionSpec(.pathAsIs, long: "path-as-is", section: request,
                   help: "Send the path as given: no removal of /./ and /../ segments."),
        OptionSpec(.http1_0, short: "0", long: "http1.0", section: request,
                   help: "Send HTTP/1.0 requests."),
        OptionSpec(.url, long: "url", value: "URL", .accumulates, section: request,
                   help: "A URL, as if given as an argument."),
        OptionSpec(.globOff, short: "g", long: "globoff", section: request,
                   help: "No URL globbing: [ ] { } are taken literally."),
        OptionSpec(.next, short: ":", long: "next", section: request,
                   help: "Start a new group of URLs with options of their own."),

        OptionSpec(.user, short: "u", long: "user", value: "USER:PASSWORD", section: authentication,
                   help: "Credentials (Basic unless --digest or --anyauth)."),
        OptionSpec(.basic, long: "basic", section: authentication,
                   help: "Send -u credentials with Basic (the default); with --digest too, the one the server asks for."),
        OptionSpec(.digest, long: "digest", section: authentication,
                   help: "Send -u credentials with Digest (RFC 7616: MD5, SHA-256, SHA-512-256, -sess, userhash) when the server asks."),
        OptionSpec(.anyAuth, long: "anyauth", section: authentication,
                   help: "Send -u credentials only when the server asks, with the strongest scheme it offers (Digest, then Basic)."),
        OptionSpec(.oauth2Bearer, long: "oauth2-bearer", value: "TOKEN", section: authentication,
                   help: "Authorization: Bearer TOKEN."),
        OptionSpec(.disallowUsernameInURL, long: "disallow-username-in-url", section: authentication,
                   help: "Refuse a URL with a user name in it (exit 67)."),

        OptionSpec(.output, short: "o", long: "output", value: "FILE", .accumulates, section: output,
                   help: "Write the body to FILE, one per URL in order: a regular file is replaced atomically on success, a device or FIFO written as it is; #N is the N-th glob's text."),
        OptionSpec(.remoteName, short: "O", long: "remote-name", .accumulates, section: output,
                   help: "Write the body to a file named as the URL's last path segment (decoded; never a path)."),
        OptionSpec(.remoteNameAll, long: "remote-name-all", section: output,
                   help: "-O for every URL that has no -o."),
        OptionSpec(.remoteHeaderName, short: "J", long: "remote-header-name", section: output,
                   help: "With -O, the name the server gives in Content-Disposition (filename*, filename); never overwrites a file."),
        OptionSpec(.remoteTime, short: "R", long: "remote-time", section: output,
                   help: "Give the file the Last-Modified time of the response."),
        OptionSpec(.outputDir, long: "output-dir", value: "DIR", section: output,
                   help: "The directory -o and -O files go to."),
        OptionSpec(.createDirs, long: "create-dirs", section: output,
                   help: "Create the missing directories of an -o path or --output-dir (mode 0750)."),
        OptionSpec(.noClobber, long: "no-clobber", section: output,
                   help: "Never overwrite a file: write NAME.1 ... NAME.99 instead."),
        OptionSpec(.removeOnError, long: "remove-on-error", section: output,
                   help: "Remove a file written in place or resumed when the transfer fails."),
        OptionSpec(.createFileMode, long: "create-file-mode", value: "MODE", section: output,
                   help: "The mode (octal) of a file -o creates, before the umask; default 0666."),
        OptionSpec(.continueAt, short: "C", long: "continue-at", value: "-", section: output,
                   help: "\"-\": resume the partial download in the -o or -O file (Range and If-Range); with -T, Content-Range."),
        OptionSpec(.include, short: "i", long: "include", section: output,
                   help: "Write the response head before the body."),
        OptionSpec(.head, short: "I", long: "head", section: output,
                   help: "Send HEAD and write the response head only."),
        OptionSpec(.dumpHeader, short: "D", long: "dump-header", value: "FILE", section: output,
                   help: "Write the response heads to FILE (\"-\": standard output)."),
        OptionSpec(.etagSave, long: "etag-save", value: "FILE", section: output,
                   help: "Save the response's ETag to FILE."),
        OptionSpec(.etagCompare, long: "etag-compare", value: "FILE", section: output,
                   help: "Send If-None-Match with the ETag saved in FILE."),
        OptionSpec(.verbose, short: "v", long: "verbose", section: output,
                   help: "Trace on stderr: \"> \" request head, \"< \" response head, \"* \" information."),
        OptionSpec(.writeOut, short: "w", long: "write-out", value: "FORMAT", section: output,
                   help: "Write FORMAT after each URL: %{http_code} %{num_connects} %{size_download} %{time_total} %{url_effective} ... (@FILE reads it)."),
        OptionSpec(.silent, short: "s", long: "silent", section: output,
                   help: "No progress bar and no error line."),
        OptionSpec(.showError, short: "S", long: "show-error", section: output,
                   help: "With -s, still print the error line."),
        OptionSpec(.progressBar, short: "#", long: "progress-bar", section: output,
                   help: "Show the progress bar on stderr even when it is not a terminal."),
        OptionSpec(.noProgressMeter, long: "no-progress-meter", section: output,
                   help: "Never show the progress bar (errors are still shown)."),
        OptionSpec(.noBuffer, short: "N", long: "no-buffer", section: output,
                   help: "Write output as it arrives (courier always does)."),
        OptionSpec(.stderr, long: "stderr", value: "FILE", section: output,
                   help: "Write what goes to stderr (errors, -v, progress) to FILE (\"-\": standard output)."),
        OptionSpec(.jsonResponse, long: "json-response", section: output,
                   help: "Validate the response as AFNetworking's JSON serializer and print compact JSON."),
        OptionSpec(.sanitizeNulls, long: "sanitize-nulls", section: output,
                   help: "As --json-response, with members whose value is null removed."),
        OptionSpec(.offline, long: "offline", section: output,
                   help: "Print the exact request bytes that would be sent; connect nowhere."),

        OptionSpec(.location, short: "L", long: "location", section: behaviour,
                   help: "Follow redirects."),
        OptionSpec(.locationTrusted, long: "location-trusted", section: behaviour,
                   help: "Follow redirects and send the credentials to other hosts too."),
        OptionSpec(.maxRedirects, long: "max-redirs", value: "N", section: behaviour,
                   help: "The most redirects to follow (default 10; -1: no limit)."),
        OptionSpec(.post301, long: "post301", section: behaviour,
                   help: "Keep a POST a POST after a 301."),
        OptionSpec(.post302, long: "post302", section: behaviour,
                   help: "Keep a POST a POST after a 302."),
        OptionSpec(.post303, long: "post303", section: behaviour,
                   help: "Keep a POST a POST after a 303."),
        OptionSpec(.fail, short: "f", long: "fail", section: behaviour,
                   help: "Exit 22 on an HTTP status of 400 or more, printing no body."),
        OptionSpec(.failWithBody, long: "fail-with-body", section: behaviour,
                   help: "Exit 22 on an HTTP status of 400 or more, after writing the body."),
        OptionSpec(.failEarly, long: "fail-early", section: behaviour,
                   help: "Stop at the first URL that fails (its exit code is the result)."),
        OptionSpec(.connectTimeout, long: "connect-timeout", value: "SECONDS", section: behaviour,
                   help: "Seconds allowed for the connection phase (DNS, TCP, TLS)."),
        OptionSpec(.maxTime, short: "m", long: "max-time", value: "SECONDS", section: behaviour,
                   help: "Seconds allowed for each whole transfer."),
        OptionSpec(.idleTimeout, long: "idle-timeout", value: "SECONDS", section: behaviour,
                   help: "Seconds allowed without a byte read or written (default 60)."),
        OptionSpec(.maxFilesize, long: "max-filesize", value: "BYTES", section: behaviour,
                   help: "The largest (decoded) body accepted, in bytes (suffixes k, M, G)."),
        OptionSpec(.compressed, long: "compressed", section: behaviour,
                   help: "Ask for gzip or deflate and decode the body."),
        OptionSpec(.retry, long: "retry", value: "N", section: behaviour,
                   help: "Retry a transient failure (timeout, 408, 429, 500, 502, 503, 504) up to N times; POST and PATCH only with an Idempotency-Key field."),
        OptionSpec(.retryDelay, long: "retry-delay", value: "SECONDS", section: behaviour,
                   help: "Wait this long between retries (default: 1 s, doubling; Retry-After wins)."),
        OptionSpec(.retryMaxTime, long: "retry-max-time", value: "SECONDS", section: behaviour,
                   help: "Start no retry after this many seconds since the first attempt."),
        OptionSpec(.retryAllErrors, long: "retry-all-errors", section: behaviour,
                   help: "With --retry, retry every error too (never after body bytes were written)."),
        OptionSpec(.retryConnrefused, long: "retry-connrefused", section: behaviour,
                   help: "With --retry, retry a refused connection too."),
        OptionSpec(.expect100Timeout, long: "expect100-timeout", value: "SECONDS", section: behaviour,
                   help: "Seconds a body over 1 MiB (or of unknown length) waits for 100 Continue before it is sent anyway (default 1)."),
        OptionSpec(.raw, long: "raw", section: behaviour,
                   help: "No decoding: a chunked body is written with its chunk framing, a compressed one as it came."),
        OptionSpec(.ignoreContentLength, long: "ignore-content-length", section: behaviour,
                   help: "Read the body until the server closes, whatever its Content-Length says."),
        OptionSpec(.limitRate, long: "limit-rate", value: "RATE", section: behaviour,
                   help: "The most bytes per second read and written (suffixes k, m, g: powers of 1024; 0: no cap)."),
        OptionSpec(.speedLimit, short: "Y", long: "speed-limit", value: "BYTES", section: behaviour,
                   help: "Exit 28 when slower than BYTES per second for the -y time (default 30 s)."),
        OptionSpec(.speedTime, short: "y", long: "speed-time", value: "SECONDS", section: behaviour,
                   help: "How long the speed may stay below -Y (default 1 byte/s when -Y is not given)."),

        OptionSpec(.proxy, short: "x", long: "proxy", value: "[http://][USER:PASSWORD@]HOST[:PORT]", section: proxies,
                   help: "Use this HTTP proxy (default port 1080; \"\": none). Without it the environment's http_proxy, https_proxy, all_proxy apply, as in curl."),
        OptionSpec(.noproxy, long: "noproxy", value: "LIST", section: proxies,
                   help: "Hosts, domains and addresses (CIDR) reached directly; replaces no_proxy/NO_PROXY; \"*\": all; \"\": none."),
        OptionSpec(.proxyUser, short: "U", long: "proxy-user", value: "USER:PASSWORD", section: proxies,
                   help: "Basic credentials for the proxy (instead of the proxy URL's)."),
        OptionSpec(.proxytunnel, short: "p", long: "proxytunnel", section: proxies,
                   help: "Tunnel http URLs through the proxy with CONNECT too (https always is)."),
        OptionSpec(.proxyHeader, long: "proxy-header", value: "\"Name: value\"", .accumulates, section: proxies,
                   help: "A header field sent to the proxy only (CONNECT, or requests in absolute form)."),

        OptionSpec(.resolve, long: "resolve", value: "HOST:PORT:ADDRESS", .accumulates, section: connection,
                   help: "Use ADDRESS for HOST:PORT."),
        OptionSpec(.connectTo, long: "connect-to", value: "HOST1:PORT1:HOST2:PORT2", .accumulates, section: connection,
                   help: "Connect to HOST2:PORT2 for HOST1:PORT1 (an empty part matches any); Host and SNI stay HOST1."),
        OptionSpec(.ipv4, short: "4", long: "ipv4", section: connection,
                   help: "Connect over IPv4 only."),
        OptionSpec(.ipv6, short: "6", long: "ipv6", section: connection,
                   help: "Connect over IPv6 only."),
        OptionSpec(.proto, long: "proto", value: "PROTOCOLS", section: connection,
                   help: "The schemes allowed (\"=https\", \"-http\", \"all\"); another → exit 1."),
        OptionSpec(.protoRedirect, long: "proto-redir", value: "PROTOCOLS", section: connection,
                   help: "The schemes a redirect may go to (as --proto)."),
        OptionSpec(.protoDefault, long: "proto-default", value: "SCHEME", section: connection,
                   help: "The scheme of a URL given without one (default http)."),
        OptionSpec(.unixSocket, long: "unix-socket", value: "PATH", section: connection,
                   help: "Connect to this AF_UNIX socket instead of the URL's host and port (Host and TLS still name the URL's host)."),
        OptionSpec(.abstractUnixSocket, long: "abstract-unix-socket", value: "NAME", section: connection,
                   help: "As --unix-socket, a socket in Linux's abstract namespace."),
        OptionSpec(.interface, long: "interface", value: "NAME", section: connection,
                   help: "Bind the local end to an interface (\"if!NAME\"), a host or address (\"host!NAME\"), or NAME as either; exit 45 when it cannot."),
        OptionSpec(.localPort, long: "local-port", value: "N[-M]", section: connection,
                   help: "Bind the local end to port N, or the first free one of N-M; exit 45 when none is free."),
        OptionSpec(.keepaliveTime, long: "keepalive-time", value: "SECONDS", section: connection,
                   help: "Idle seconds before the first TCP keep-alive probe, and between probes (default 60)."),
        OptionSpec(.noKeepalive, long: "no-keepalive", section: connection,
                   help: "No TCP keep-alive probes (by default, as curl, a probe after 60 idle seconds)."),
        OptionSpec(.tcpNoDelay, long: "tcp-nodelay", section: connection,
                   help: "TCP_NODELAY (courier always sets it)."),
        OptionSpec(.happyEyeballsTimeout, long: "happy-eyeballs-timeout-ms", value: "MS", section: connection,
                   help: "Milliseconds before the next address is tried while one is connecting (default 250)."),

        OptionSpec(.caCertificate, long: "cacert", value: "FILE", section: tls,
                   help: "Trust the certificates of this PEM file instead of the system store."),
        OptionSpec(.caPath, long: "capath", value: "DIR", section: tls,
                   help: "Also look for issuers in this OpenSSL hashed directory (HASH.0 files, see openssl rehash)."),
        OptionSpec(.clientCertificate, short: "E", long: "cert", value: "FILE[:PASS]", section: tls,
                   help: "Client certificate (PEM; with its key unless --key), for servers that ask; \"\\:\" is a colon in FILE."),
        OptionSpec(.privateKey, long: "key", value: "FILE", section: tls,
                   help: "The client certificate's private key (PEM, encrypted or not)."),
        OptionSpec(.keyType, long: "key-type", value: "TYPE", section: tls,
                   help: "The key file's type: PEM (the only one courier reads)."),
        OptionSpec(.passphrase, long: "pass", value: "PHRASE", section: tls,
                   help: "The pass phrase of an encrypted private key."),
        OptionSpec(.insecure, short: "k", long: "insecure", section: tls,
                   help: "Turn off all certificate and host name verification."),
        OptionSpec(.pinnedPublicKey, long: "pinnedpubkey", value: "PIN", section: tls,
                   help: "Pin the leaf's public key: a PEM/DER key file or sha256//BASE64[;sha256//...]."),
        OptionSpec(.pinnedCertificate, long: "pinnedcert", value: "FILE", section: tls,
                   help: "Pass only if the verified chain holds a certificate of this PEM file."),
        OptionSpec(.tlsv1_2, long: "tlsv1.2", section: tls,
                   help: "TLS 1.2 or later (the default)."),
        OptionSpec(.tlsv1_3, long: "tlsv1.3", section: tls,
                   help: "TLS 1.3 or later."),
        OptionSpec(.tlsMax, long: "tls-max", value: "VERSION", section: tls,
                   help: "The highest TLS version offered: 1.2, 1.3 or default."),
        OptionSpec(.ciphers, long: "ciphers", value: "LIST", section: tls,
                   help: "OpenSSL's cipher list for TLS 1.2."),
        OptionSpec(.tls13Ciphers, long: "tls13-ciphers", value: "LIST", section: tls,
                   help: "OpenSSL's cipher suites for TLS 1.3."),
        OptionSpec(.noSessionID, long: "no-sessionid", section: tls,
                   help: "No TLS session resumption."),

        OptionSpec(.cookie, short: "b", long: "cookie", value: "DATA|FILE", .accumulates, section: cookies,
                   help: "\"NAME=VALUE; ...\" sent as given; or a cookie file to load (\"-\": stdin, \"\": none), which turns cookies on."),
        OptionSpec(.cookieJar, short: "c", long: "cookie-jar", value: "FILE", section: cookies,
                   help: "Write all cookies to FILE (\"-\": stdout) at the end, also after a failure; turns cookies on."),
        OptionSpec(.junkSessionCookies, short: "j", long: "junk-session-cookies", section: cookies,
                   help: "Discard the session cookies of the -b files."),

        OptionSpec(.help, short: "h", long: "help", section: general,
                   help: "Print this help and exit."),
        OptionSpec(.version, short: "V", long: "version", section: general,
                   help: "Print the version and exit."),
    ])

    /// The whole `--help` text.
    static var helpText: String {
        """
        Usage: courier [options] URL [URL ...] [-: [options] URL ...]
               courier bench [standard|get|download|upload|soak] ...

        A curl-compatible HTTP/1.1 client built on Courier (no Foundation, no libcurl). Several URLs
        run in order on one session (connections are reused); the exit code is the last URL's. Exit
        codes follow curl's (docs/cli.md). A URL without scheme:// is taken as http://. URLs are
        globbed as curl globs them: [1-10], [001-010], [a-z], [0-100:10], {a,b,c} (-g turns it off).


        """ + table.helpText()
    }

    // MARK: The values

    // The request
    var method: String?
    var headers: [String] = []
    var userAgent: String?
    var referer: String?
    var data: [OrderedValue] = []
    var dataBinary: [OrderedValue] = []
    var dataRaw: [OrderedValue] = []
    var dataURLEncode: [OrderedValue] = []
    var get = false
    var json: [OrderedValue] = []
    var params: String?
    /// -F parts (`isString` false) and --form-string fields (true), in command-line order.
    var form: [(text: String, isString: Bool)] = []
    var range: String?
    var timeCondition: String?
    var urlQuery: [String] = []
    var requestTarget: String?
    var pathAsIs = false
    var globOff = false
    var http1_0 = false
    // Authentication
    var user: String?
    /// --anyauth (or --basic with --digest): the credentials wait for a 401 and answer Digest or Basic.
    var anyAuth = false
    /// --digest alone: the credentials wait for a 401 and answer Digest only.
    var digest = false
    /// Whether -u credentials wait for a 401 (--digest, --anyauth) instead of going as Basic.
    var defersCredentials: Bool { anyAuth || digest }
    var oauth2Bearer: String?
    var disallowUsernameInURL = false
    // Output
    var remoteNameAll = false
    var remoteHeaderName = false
    var remoteTime = false
    var outputDir: String?
    var createDirs = false
    var noClobber = false
    var removeOnError = false
    var createFileMode: String?
    var continueAt: String?
    var include = false
    var headOnly = false
    var dumpHeader: String?
    var etagSave: String?
    var etagCompare: String?
    var writeOut: String?
    var jsonResponse = false
    var sanitizeNulls = false
    var offline = false
    // Behaviour
    var location = false
    var locationTrusted = false
    var maxRedirects: String?
    var post301 = false
    var post302 = false
    var post303 = false
    var fail = false
    var failWithBody = false
    var connectTimeout: String?
    var maxTime: String?
    var idleTimeout: String?
    var maxFilesize: String?
    var expect100Timeout: String?
    var retry: String?
    var retryDelay: String?
    var retryMaxTime: String?
    var retryAllErrors = false
    var retryConnrefused = false
    var compressed = false
    var limitRate: String?
    var raw = false
    var ignoreContentLength = false
    var speedLimit: String?
    var speedTime: String?
    // Connection
    var resolve: [String] = []
    // Proxy
    var proxy: String?
    var noproxy: String?
    var proxyUser: String?
    var proxytunnel = false
    var proxyHeader: [String] = []
    var connectTo: [String] = []
    var ipv4 = false
    var ipv6 = false
    var proto: String?
    var protoRedirect: String?
    var protoDefault: String?
    var happyEyeballsTimeout: String?
    /// --unix-socket PATH or --abstract-unix-socket NAME, the last one given.
    var unixSocket: UnixSocketAddress?
    var interface: String?
    var localPort: String?
    var keepaliveTime: String?
    var noKeepalive = false
    // TLS
    var caCertificate: String?
    var caPath: String?
    /// -E FILE[:PASS], as given.
    var clientCertificate: String?
    var privateKey: String?
    var keyType: String?
    var passphrase: String?
    var insecure = false
    var pinnedPublicKey: String?
    var pinnedCertificate: String?
    var tlsv1_3 = false
    var tlsMax: String?
    var ciphers: String?
    var tls13Ciphers: String?
    var noSessionID = false
    // Cookies
    var cookie: [String] = []
    var cookieJar: String?
    var junkSessionCookies = false
    /// The URLs with their outputs and uploads, in order (nodes without a URL are dropped).
    var nodes: [URLNode] = []
    /// The global options (the same value in every group).
    var global = GlobalOptions()

    init() {}

    /// The URLs, in order.
    var urls: [String] { nodes.compactMap(\.url) }

    /// Parses the arguments after the program's name into groups (split at -:).
    /// - Parameter arguments: the arguments.
    /// - Returns: the groups, in order (at least one), each carrying the global options.
    /// - Throws: `UsageError` (curl's messages; exit code 2).
    static func parse(_ arguments: [String]) throws(UsageError) -> [TransferOptions] {
        let parsed = try table.parse(arguments)
        var global = GlobalOptions()
        var groups: [[ParsedArgument<TransferKey>]] = [[]]
        for argument in parsed {
            if case .option(let option) = argument {
                if option.key == .next {
                    groups.append([])
                    continue
                }
                if globalKeys.contains(option.key) {
                    switch option.key {
                    case .silent: global.silent = option.isOn
                    case .showError: global.showError = option.isOn
                    case .progressBar: global.progressBar = option.isOn
                    case .noProgressMeter: global.noProgressMeter = option.isOn
                    case .verbose: global.verbose = option.isOn
                    case .stderr: global.stderrPath = option.value
                    case .failEarly: global.failEarly = option.isOn
                    case .help: global.showsHelp = option.isOn
                    case .version: global.showsVersion = option.isOn
                    default: break
                    }
                    continue
                }
            }
            groups[groups.count - 1].append(argument)
        }
        return groups.map { group in
            var options = TransferOptions(group)
            options.global = global
            return options
        }
    }

    /// One group's options from its arguments.
    private init(_ parsed: [ParsedArgument<TransferKey>]) {
        let values = OptionValues(parsed, table: TransferOptions.table)
        method = values.value(.request)
        headers = values.all(.header)
        userAgent = values.value(.userAgent)
        referer = values.value(.referer)
        for item in values.ordered {
            let value = OrderedValue(text: item.value, sequence: item.position)
            switch item.key {
            case .data, .dataASCII: data.append(value)
            case .dataBinary: dataBinary.append(value)
            case .dataRaw: dataRaw.append(value)
            case .dataURLEncode: dataURLEncode.append(value)
            case .json: json.append(value)
            case .form: form.append((item.value, false))
            case .formString: form.append((item.value, true))
            default: break
            }
        }
        get = values.flag(.get)
        params = values.value(.params)
        range = values.value(.range)
        timeCondition = values.value(.timeCondition)
        urlQuery = values.all(.urlQuery)
        requestTarget = values.value(.requestTarget)
        pathAsIs = values.flag(.pathAsIs)
        globOff = values.flag(.globOff)
        http1_0 = values.flag(.http1_0)
        user = values.value(.user)
        // --basic and --digest add their scheme to the set and --no-basic/--no-digest take it out;
        // --anyauth sets every scheme (--no-anyauth changes nothing) — curl's bits of
        // CURLOPT_HTTPAUTH. Basic alone (or nothing) sends -u at once; Digest alone waits for a
        // 401 and answers Digest only; both wait and answer the stronger one offered.
        var basicBit = false
        var digestBit = false
        for argument in parsed {
            guard case .option(let option) = argument else { continue }
            switch option.key {
            case .anyAuth where option.isOn:
                basicBit = true
                digestBit = true
            case .basic: basicBit = option.isOn
            case .digest: digestBit = option.isOn
            default: break
            }
        }
        anyAuth = digestBit && basicBit
        digest = digestBit && !basicBit
        oauth2Bearer = values.value(.oauth2Bearer)
        disallowUsernameInURL = values.flag(.disallowUsernameInURL)
        remoteNameAll = values.flag(.remoteNameAll)
        remoteHeaderName = values.flag(.remoteHeaderName)
        remoteTime = values.flag(.remoteTime)
        outputDir = values.value(.outputDir)
        createDirs = values.flag(.createDirs)
        noClobber = values.flag(.noClobber)
        removeOnError = values.flag(.removeOnError)
        createFileMode = values.value(.createFileMode)
        continueAt = values.value(.continueAt)
        include = values.flag(.include)
        headOnly = values.flag(.head)
        dumpHeader = values.value(.dumpHeader)
        etagSave = values.value(.etagSave)
        etagCompare = values.value(.etagCompare)
        writeOut = values.value(.writeOut)
        jsonResponse = values.flag(.jsonResponse)
        sanitizeNulls = values.flag(.sanitizeNulls)
        offline = values.flag(.offline)
        location = values.flag(.location) || values.flag(.locationTrusted)
        locationTrusted = values.flag(.locationTrusted)
        maxRedirects = values.value(.maxRedirects)
        post301 = values.flag(.post301)
        post302 = values.flag(.post302)
        post303 = values.flag(.post303)
        fail = values.flag(.fail)
        failWithBody = values.flag(.failWithBody)
        connectTimeout = values.value(.connectTimeout)
        maxTime = values.value(.maxTime)
        idleTimeout = values.value(.idleTimeout)
        maxFilesize = values.value(.maxFilesize)
        expect100Timeout = values.value(.expect100Timeout)
        retry = values.value(.retry)
        retryDelay = values.value(.retryDelay)
        retryMaxTime = values.value(.retryMaxTime)
        retryAllErrors = values.flag(.retryAllErrors)
        retryConnrefused = values.flag(.retryConnrefused)
        compressed = values.flag(.compressed)
        limitRate = values.value(.limitRate)
        raw = values.flag(.raw)
        ignoreContentLength = values.flag(.ignoreContentLength)
        speedLimit = values.value(.speedLimit)
        speedTime = values.value(.speedTime)
        resolve = values.all(.resolve)
        proxy = values.value(.proxy)
        noproxy = values.value(.noproxy)
        proxyUser = values.value(.proxyUser)
        proxytunnel = values.flag(.proxytunnel)
        proxyHeader = values.all(.proxyHeader)
        connectTo = values.all(.connectTo)
        // -4 and -6: the last one given wins (curl's CURLOPT_IPRESOLVE).
        for argument in parsed {
            guard case .option(let option) = argument, option.key == .ipv4 || option.key == .ipv6 else { continue }
            ipv4 = option.key == .ipv4 && option.isOn
            ipv6 = option.key == .ipv6 && option.isOn
        }
        proto = values.value(.proto)
        protoRedirect = values.value(.protoRedirect)
        protoDefault = values.value(.protoDefault)
        happyEyeballsTimeout = values.value(.happyEyeballsTimeout)
        // --unix-socket and --abstract-unix-socket set one thing (curl's CURLOPT_UNIX_SOCKET_PATH
        // or its abstract twin): the last one given wins.
        for argument in parsed {
            guard case .option(let option) = argument, let value = option.value else { continue }
            if option.key == .unixSocket { unixSocket = UnixSocketAddress(path: value) }
            if option.key == .abstractUnixSocket { unixSocket = UnixSocketAddress(abstractName: value) }
        }
        interface = values.value(.interface)
        localPort = values.value(.localPort)
        keepaliveTime = values.value(.keepaliveTime)
        noKeepalive = values.flag(.noKeepalive)
        caCertificate = values.value(.caCertificate)
        caPath = values.value(.caPath)
        clientCertificate = values.value(.clientCertificate)
        privateKey = values.value(.privateKey)
        keyType = values.value(.keyType)
        passphrase = values.value(.passphrase)
        insecure = values.flag(.insecure)
        pinnedPublicKey = values.value(.pinnedPublicKey)
        pinnedCertificate = values.value(.pinnedCertificate)
        // --tlsv1.2 and --tlsv1.3 set the minimum; the last one given wins.
        for argument in parsed {
            guard case .option(let option) = argument, option.key == .tlsv1_2 || option.key == .tlsv1_3 else { continue }
            tlsv1_3 = option.key == .tlsv1_3 && option.isOn
        }
        tlsMax = values.value(.tlsMax)
        ciphers = values.value(.ciphers)
        tls13Ciphers = values.value(.tls13Ciphers)
        noSessionID = values.flag(.noSessionID)
        cookie = values.all(.cookie)
        cookieJar = values.value(.cookieJar)
        junkSessionCookies = values.flag(.junkSessionCookies)
        nodes = TransferOptions.pairNodes(parsed)
    }

    /// curl's pairing: the n-th URL, the n-th output (-o or -O) and the n-th upload (-T) of a
    /// group form one node, whatever their order.
    private static func pairNodes(_ parsed: [ParsedArgument<TransferKey>]) -> [URLNode] {
        var urls: [String] = []
        var outputs: [OutputSpec] = []
        var uploads: [String] = []
        for argument in parsed {
            switch argument {
            case .positional(let text):
                urls.append(text)
            case .option(let option):
                switch option.key {
                case .url: if let value = option.value { urls.append(value) }
                case .output: if let value = option.value { outputs.append(.file(value)) }
                case .remoteName: if option.isOn { outputs.append(.remoteName) }
                case .uploadFile: if let value = option.value { uploads.append(value) }
                default: break
                }
            }
        }
        return urls.indices.map { index in
            URLNode(url: urls[index], output: index < outputs.count ? outputs[index] : nil,
                    upload: index < uploads.count ? uploads[index] : nil)
        }
    }
}

/// Facts about this build of the tool.
enum CourierCLIInfo {
    /// The version in `courier --version` and the User-Agent.
    static let version = CourierVersion.version

    /// `courier --version`: the version, then (as curl's) the protocols and features, so a script
    /// can check what this build has.
    static var versionText: String {
        "courier \(version)\nProtocols: http https\nFeatures: IDN IPv6 Largefile libz SSL\n"
    }
}
