// TransferOptions: every flag of `courier [options] URL [URL ...]` (design §9). The table below
// (`TransferOptions.table`) is the one description of the command line: CommandLineParser parses
// curl's grammar from it, `--help` is generated from it, and later work (-K config files,
// -:/--next groups, URL globbing, completions, the man page) reads the same entries.
//
// Repeated options accumulate (-H, -d, -F, -o, --resolve, ...) or the last one wins (-X, -m,
// -w, ...), as each entry says. The data options (-d, --data-binary, --data-raw,
// --data-urlencode, --json) are joined in the order they were given, as curl joins them: each
// keeps its position among all arguments (`OrderedValue`).

import Courier

/// A value that remembers where it was on the command line, among all arguments.
struct OrderedValue: Sendable, Equatable {
    let text: String
    let sequence: Int
}

/// What each option of the transfer command is.
enum TransferKey: Hashable, Sendable {
    case request, header, data, dataBinary, dataRaw, dataURLEncode, get, json, params, form, user
    case output, createFileMode, continueAt, include, head, verbose, writeOut, silent, showError, progressBar
    case jsonResponse, sanitizeNulls, offline
    case location, maxRedirects, fail, connectTimeout, maxTime, idleTimeout, maxFilesize, compressed, resolve
    case caCertificate, insecure, pinnedPublicKey, pinnedCertificate
    case help, version
}

/// The options of a transfer.
struct TransferOptions: Sendable {
    // MARK: The table

    private static let request = "The request"
    private static let output = "Output"
    private static let behaviour = "Behaviour"
    private static let tls = "TLS"
    private static let general = "General"

    /// Every option of `courier [options] URL [URL ...]`, in help order.
    static let table = OptionTable<TransferKey>([
        OptionSpec(.request, short: "X", long: "request", value: "METHOD", section: request,
                   help: "The request method, sent as typed."),
        OptionSpec(.header, short: "H", long: "header", value: "FIELD", .accumulates, section: request,
                   help: "A request field \"Name: value\"; \"Name:\" removes one, \"Name;\" sends it empty; @FILE reads one per line."),
        OptionSpec(.data, short: "d", long: "data", value: "DATA", .accumulates, section: request,
                   help: "POST data, form-urlencoded; @FILE reads a file without its CR and LF (pieces joined with &)."),
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
        OptionSpec(.user, short: "u", long: "user", value: "USER:PASSWORD", section: request,
                   help: "Basic authentication credentials."),

        OptionSpec(.output, short: "o", long: "output", value: "FILE", .accumulates, section: output,
                   help: "Write the body to FILE, one per URL in order: a regular file is replaced atomically on success, a device or FIFO written as it is."),
        OptionSpec(.createFileMode, long: "create-file-mode", value: "MODE", section: output,
                   help: "The mode (octal) of a file -o creates, before the umask; default 0666."),
        OptionSpec(.continueAt, short: "C", long: "continue-at", value: "-", section: output,
                   help: "\"-\": resume the partial download in the -o FILE (Range and If-Range)."),
        OptionSpec(.include, short: "i", long: "include", section: output,
                   help: "Write the response head before the body."),
        OptionSpec(.head, short: "I", long: "head", section: output,
                   help: "Send HEAD and write the response head only."),
        OptionSpec(.verbose, short: "v", long: "verbose", section: output,
                   help: "Trace on stderr: \"> \" request head, \"< \" response head, \"* \" information."),
        OptionSpec(.writeOut, short: "w", long: "write-out", value: "FORMAT", section: output,
                   help: "Write FORMAT after each URL: %{http_code} %{num_connects} %{size_download} %{time_total} %{url_effective} ... (@FILE reads it)."),
        OptionSpec(.silent, short: "s", long: "silent", section: output,
                   help: "No progress bar and no error line."),
        OptionSpec(.showError, short: "S", long: "show-error", section: output,
                   help: "With -s, still print the error line."),
        OptionSpec(.progressBar, long: "progress-bar", section: output,
                   help: "Show the progress bar on stderr even when it is not a terminal."),
        OptionSpec(.jsonResponse, long: "json-response", section: output,
                   help: "Validate the response as AFNetworking's JSON serializer and print compact JSON."),
        OptionSpec(.sanitizeNulls, long: "sanitize-nulls", section: output,
                   help: "As --json-response, with members whose value is null removed."),
        OptionSpec(.offline, long: "offline", section: output,
                   help: "Print the exact request bytes that would be sent; connect nowhere."),

        OptionSpec(.location, short: "L", long: "location", section: behaviour,
                   help: "Follow redirects."),
        OptionSpec(.maxRedirects, long: "max-redirs", value: "N", section: behaviour,
                   help: "The most redirects to follow (default 10; -1: no limit)."),
        OptionSpec(.fail, short: "f", long: "fail", section: behaviour,
                   help: "Exit 22 on an HTTP status of 400 or more, printing no body."),
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
        OptionSpec(.resolve, long: "resolve", value: "HOST:PORT:ADDRESS", .accumulates, section: behaviour,
                   help: "Use ADDRESS for HOST:PORT."),

        OptionSpec(.caCertificate, long: "cacert", value: "FILE", section: tls,
                   help: "Trust the certificates of this PEM file instead of the system store."),
        OptionSpec(.insecure, short: "k", long: "insecure", section: tls,
                   help: "Turn off all certificate and host name verification."),
        OptionSpec(.pinnedPublicKey, long: "pinnedpubkey", value: "PIN", section: tls,
                   help: "Pin the leaf's public key: a PEM/DER key file or sha256//BASE64[;sha256//...]."),
        OptionSpec(.pinnedCertificate, long: "pinnedcert", value: "FILE", section: tls,
                   help: "Pass only if the verified chain holds a certificate of this PEM file."),

        OptionSpec(.help, short: "h", long: "help", section: general,
                   help: "Print this help and exit."),
        OptionSpec(.version, short: "V", long: "version", section: general,
                   help: "Print the version and exit."),
    ])

    /// The whole `--help` text.
    static var helpText: String {
        """
        Usage: courier [options] URL [URL ...]
               courier bench [standard|get|download|upload|soak] ...

        A curl-compatible HTTP/1.1 client built on Courier (no Foundation, no libcurl). Several URLs
        run in order on one session (connections are reused); the exit code is the last URL's. Exit
        codes follow curl's (docs/cli.md). A URL without scheme:// is taken as http://.


        """ + table.helpText()
    }

    // MARK: The values

    // The request
    var method: String?
    var headers: [String] = []
    var data: [OrderedValue] = []
    var dataBinary: [OrderedValue] = []
    var dataRaw: [OrderedValue] = []
    var dataURLEncode: [OrderedValue] = []
    var get = false
    var json: [OrderedValue] = []
    var params: String?
    var form: [String] = []
    var user: String?
    // Output
    var output: [String] = []
    var createFileMode: String?
    var continueAt: String?
    var include = false
    var headOnly = false
    var verbose = false
    var writeOut: String?
    var silent = false
    var showError = false
    var progressBar = false
    var jsonResponse = false
    var sanitizeNulls = false
    var offline = false
    // Behaviour
    var location = false
    var maxRedirects: String?
    var fail = false
    var connectTimeout: String?
    var maxTime: String?
    var idleTimeout: String?
    var maxFilesize: String?
    var compressed = false
    var resolve: [String] = []
    // TLS
    var caCertificate: String?
    var insecure = false
    var pinnedPublicKey: String?
    var pinnedCertificate: String?
    // General
    var showsHelp = false
    var showsVersion = false
    /// The URLs, in order.
    var urls: [String] = []

    init() {}

    /// Parses the arguments after the program's name.
    /// - Parameter arguments: the arguments.
    /// - Returns: the options.
    /// - Throws: `UsageError` (curl's messages; exit code 2).
    static func parse(_ arguments: [String]) throws(UsageError) -> TransferOptions {
        let values = OptionValues(try table.parse(arguments), table: table)
        var o = TransferOptions()
        o.method = values.value(.request)
        o.headers = values.all(.header)
        for item in values.ordered {
            let value = OrderedValue(text: item.value, sequence: item.position)
            switch item.key {
            case .data: o.data.append(value)
            case .dataBinary: o.dataBinary.append(value)
            case .dataRaw: o.dataRaw.append(value)
            case .dataURLEncode: o.dataURLEncode.append(value)
            case .json: o.json.append(value)
            default: break
            }
        }
        o.get = values.flag(.get)
        o.params = values.value(.params)
        o.form = values.all(.form)
        o.user = values.value(.user)
        o.output = values.all(.output)
        o.createFileMode = values.value(.createFileMode)
        o.continueAt = values.value(.continueAt)
        o.include = values.flag(.include)
        o.headOnly = values.flag(.head)
        o.verbose = values.flag(.verbose)
        o.writeOut = values.value(.writeOut)
        o.silent = values.flag(.silent)
        o.showError = values.flag(.showError)
        o.progressBar = values.flag(.progressBar)
        o.jsonResponse = values.flag(.jsonResponse)
        o.sanitizeNulls = values.flag(.sanitizeNulls)
        o.offline = values.flag(.offline)
        o.location = values.flag(.location)
        o.maxRedirects = values.value(.maxRedirects)
        o.fail = values.flag(.fail)
        o.connectTimeout = values.value(.connectTimeout)
        o.maxTime = values.value(.maxTime)
        o.idleTimeout = values.value(.idleTimeout)
        o.maxFilesize = values.value(.maxFilesize)
        o.compressed = values.flag(.compressed)
        o.resolve = values.all(.resolve)
        o.caCertificate = values.value(.caCertificate)
        o.insecure = values.flag(.insecure)
        o.pinnedPublicKey = values.value(.pinnedPublicKey)
        o.pinnedCertificate = values.value(.pinnedCertificate)
        o.showsHelp = values.flag(.help)
        o.showsVersion = values.flag(.version)
        o.urls = values.positionals
        return o
    }
}

/// Facts about this build of the tool.
enum CourierCLIInfo {
    /// The version in `courier --version` and the User-Agent.
    static let version = CourierVersion.version
}
