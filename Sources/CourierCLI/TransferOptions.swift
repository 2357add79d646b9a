// TransferOptions: every flag of `courier [options] URL [URL ...]` (design §9), parsed by
// swift-argument-parser with curl's habits:
//
// - an option always takes the next argument as its value, even one that starts with "-"
//   (`-H -x` sends a field named "-x"... and is refused as invalid, as curl would send it);
// - short options take joined values (`-XPOST`, `-HAccept:x`, `-o-`), long ones `--name=value`;
// - flags combine (`-sSfL`);
// - repeated options accumulate (-H, -d, -F, -o) or the last one wins (-X, -m, -w, ...).
//
// The data options (-d, --data-binary, --data-raw, --data-urlencode, --json) are joined in the
// order they were given, as curl joins them; ArgumentParser keeps each option's values in order
// but not the order between options, so every data value records a sequence number when it is
// parsed (`OrderedValue`).

import ArgumentParser
import Courier
import Synchronization

/// A value that remembers when, among all ordered values, it was parsed.
struct OrderedValue: ExpressibleByArgument, Sendable {
    let text: String
    let sequence: Int

    private static let counter = Atomic<Int>(0)

    init?(argument: String) {
        text = argument
        sequence = OrderedValue.counter.add(1, ordering: .relaxed).newValue
    }
}

/// The options of a transfer.
struct TransferOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "A curl-compatible HTTP/1.1 client built on Courier (no Foundation, no libcurl).",
        usage: "courier [options] URL [URL ...]\n  courier bench [standard|get|download|upload] ...",
        discussion: """
            Several URLs run in order on one session (connections are reused); the exit code is \
            the last URL's. Exit codes follow curl's (docs/cli.md).
            """,
        version: "courier \(CourierCLIInfo.version)",
        helpNames: [.customShort("h"), .customLong("help")]
    )

    // MARK: The request

    @Option(name: [.customShort("X", allowingJoined: true), .customLong("request")], parsing: .unconditional,
            help: ArgumentHelp("The request method, sent as typed.", valueName: "METHOD"))
    var method: String?

    @Option(name: [.customShort("H", allowingJoined: true), .customLong("header")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A request field \"Name: value\" (repeatable); \"Name:\" removes one, \"Name;\" sends it empty.", valueName: "FIELD"))
    var headers: [String] = []

    @Option(name: [.customShort("d", allowingJoined: true), .customLong("data")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST data, form-urlencoded; @FILE reads a file without its CR and LF (repeatable, joined with &).", valueName: "DATA"))
    var data: [OrderedValue] = []

    @Option(name: .customLong("data-binary"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST data sent byte for byte; @FILE reads a file as it is.", valueName: "DATA"))
    var dataBinary: [OrderedValue] = []

    @Option(name: .customLong("data-raw"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST data with no @FILE meaning.", valueName: "DATA"))
    var dataRaw: [OrderedValue] = []

    @Option(name: .customLong("data-urlencode"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("POST data, percent-encoded: CONTENT, =CONTENT, NAME=CONTENT, @FILE or NAME@FILE.", valueName: "DATA"))
    var dataURLEncode: [OrderedValue] = []

    @Flag(name: [.customShort("G"), .customLong("get")],
          help: "Put the -d and --data-urlencode data (and --params) in the URL query; method GET.")
    var get = false

    @Option(name: .customLong("json"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A JSON body, sent verbatim (@FILE reads a file); Content-Type and Accept application/json.", valueName: "JSON"))
    var json: [OrderedValue] = []

    @Option(name: .customLong("params"), parsing: .unconditional,
            help: ArgumentHelp("A JSON object of AFNetworking parameters: query for GET/HEAD/DELETE, form body otherwise.", valueName: "JSON"))
    var params: String?

    @Option(name: [.customShort("F", allowingJoined: true), .customLong("form")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A multipart part: NAME=VALUE, NAME=<FILE or NAME=@FILE[;type=MIME][;filename=NAME] (repeatable).", valueName: "PART"))
    var form: [String] = []

    @Option(name: [.customShort("u", allowingJoined: true), .customLong("user")], parsing: .unconditional,
            help: ArgumentHelp("Basic authentication credentials.", valueName: "USER:PASSWORD"))
    var user: String?

    // MARK: Output

    @Option(name: [.customShort("o", allowingJoined: true), .customLong("output")], parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Write the body to FILE, one per URL in order: a regular file is replaced atomically on success, a device or FIFO written as it is.", valueName: "FILE"))
    var output: [String] = []

    @Option(name: .customLong("create-file-mode"), parsing: .unconditional,
            help: ArgumentHelp("The mode (octal) of a file -o creates, before the umask; default 0666.", valueName: "MODE"))
    var createFileMode: String?

    @Option(name: [.customShort("C", allowingJoined: true), .customLong("continue-at")], parsing: .unconditional,
            help: ArgumentHelp("\"-\": resume the partial download in the -o FILE (Range and If-Range).", valueName: "-"))
    var continueAt: String?

    @Flag(name: [.customShort("i"), .customLong("include")], help: "Write the response head before the body.")
    var include = false

    @Flag(name: [.customShort("I"), .customLong("head")], help: "Send HEAD and write the response head only.")
    var headOnly = false

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Trace on stderr: \"> \" request head, \"< \" response head, \"* \" information.")
    var verbose = false

    @Option(name: [.customShort("w", allowingJoined: true), .customLong("write-out")], parsing: .unconditional,
            help: ArgumentHelp("Write FORMAT after each URL: %{http_code} %{num_connects} %{num_redirects} %{size_download} %{size_upload} %{time_total} %{url_effective} ... (@FILE reads it).", valueName: "FORMAT"))
    var writeOut: String?

    @Flag(name: [.customShort("s"), .customLong("silent")], help: "No progress bar and no error line.")
    var silent = false

    @Flag(name: [.customShort("S"), .customLong("show-error")], help: "With -s, still print the error line.")
    var showError = false

    @Flag(name: .customLong("progress-bar"), help: "Show the progress bar on stderr even when it is not a terminal.")
    var progressBar = false

    @Flag(name: .customLong("json-response"), help: "Validate the response as AFNetworking's JSON serializer and print compact JSON.")
    var jsonResponse = false

    @Flag(name: .customLong("sanitize-nulls"), help: "As --json-response, with members whose value is null removed.")
    var sanitizeNulls = false

    @Flag(name: .customLong("offline"), help: "Print the exact request bytes that would be sent; connect nowhere.")
    var offline = false

    // MARK: Behaviour

    @Flag(name: [.customShort("L"), .customLong("location")], help: "Follow redirects.")
    var location = false

    @Option(name: .customLong("max-redirs"), parsing: .unconditional,
            help: ArgumentHelp("The most redirects to follow (default 10).", valueName: "N"))
    var maxRedirects: String?

    @Flag(name: [.customShort("f"), .customLong("fail")], help: "Exit 22 on an HTTP status of 400 or more, printing no body.")
    var fail = false

    @Option(name: .customLong("connect-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Seconds allowed for the connection phase (DNS, TCP, TLS).", valueName: "SECONDS"))
    var connectTimeout: String?

    @Option(name: [.customShort("m", allowingJoined: true), .customLong("max-time")], parsing: .unconditional,
            help: ArgumentHelp("Seconds allowed for each whole transfer.", valueName: "SECONDS"))
    var maxTime: String?

    @Option(name: .customLong("idle-timeout"), parsing: .unconditional,
            help: ArgumentHelp("Seconds allowed without a byte read or written (default 60).", valueName: "SECONDS"))
    var idleTimeout: String?

    @Option(name: .customLong("max-filesize"), parsing: .unconditional,
            help: ArgumentHelp("The largest (decoded) body accepted, in bytes.", valueName: "BYTES"))
    var maxFilesize: String?

    @Flag(name: .customLong("compressed"), help: "Ask for gzip or deflate and decode the body.")
    var compressed = false

    @Option(name: .customLong("resolve"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Use ADDRESS for HOST:PORT (repeatable).", valueName: "HOST:PORT:ADDRESS"))
    var resolve: [String] = []

    // MARK: TLS

    @Option(name: .customLong("cacert"), parsing: .unconditional,
            help: ArgumentHelp("Trust the certificates of this PEM file instead of the system store.", valueName: "FILE"))
    var caCertificate: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Turn off all certificate and host name verification.")
    var insecure = false

    @Option(name: .customLong("pinnedpubkey"), parsing: .unconditional,
            help: ArgumentHelp("Pin the leaf's public key: a PEM/DER key file or sha256//BASE64[;sha256//...].", valueName: "PIN"))
    var pinnedPublicKey: String?

    @Option(name: .customLong("pinnedcert"), parsing: .unconditional,
            help: ArgumentHelp("Pass only if the verified chain holds a certificate of this PEM file.", valueName: "FILE"))
    var pinnedCertificate: String?

    // MARK: URLs

    @Argument(help: ArgumentHelp("The URLs (http:// is assumed when no scheme is given).", valueName: "URL"))
    var urls: [String] = []
}

/// Facts about this build of the tool.
enum CourierCLIInfo {
    /// The version in `courier --version` and the User-Agent.
    static let version = CourierVersion.version
}
