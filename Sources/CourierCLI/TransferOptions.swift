// TransferOptions: every flag of `courier [options] URL [URL ...]` (design §9). The table below
// (`TransferOptions.table`) is the one description of the command line: CommandLineParser parses
// curl's grammar from it, `--help` is generated from it, and docs/cli.md lists the same entries.
//
// Groups (curl's -:/--next): the ordered argument list is cut at each `-:`; every group has its
// own URLs and its own options, starting from the defaults, as in curl. A few options are global
// (`globalKeys`: -s, -S, -v, --trace, --trace-ascii, --trace-time, -#, --no-progress-meter, --stderr, --fail-early, -Z, --parallel-max,
// --parallel-immediate, -h, -V): they apply to
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
    case http1_1, http2, http2PriorKnowledge, http3
    // Authentication
    case user, basic, digest, anyAuth, oauth2Bearer, disallowUsernameInURL, netrc, netrcFile, netrcOptional
    // Output
    case output, remoteName, remoteNameAll, remoteHeaderName, remoteTime, outputDir, createDirs, noClobber, removeOnError
    case createFileMode, continueAt, include, head, dumpHeader, etagSave, etagCompare, verbose, trace, traceASCII, traceTime, writeOut
    case silent, showError, progressBar, noProgressMeter, noBuffer, stderr
    case jsonResponse, sanitizeNulls, offline
    // Behaviour
    case location, locationTrusted, maxRedirects, post301, post302, post303, fail, failWithBody, failEarly
    case parallel, parallelMax, parallelImmediate
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
    case help, version, config, disable, generateCompletion, generateManPage
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
    /// -v: curl's "* ", "> ", "< " lines on stderr (the trace kind is plain).
    var verbose = false
    /// The trace asked for: -v, --trace, --trace-ascii, the last one given (nil: none).
    var traceKind: TraceKind?
    /// --trace-time: a local time stamp before each trace record or -v line.
    var traceTime = false
    /// The --trace or --trace-ascii writer (one for the whole command line), when asked for.
    var trace: WireTrace?
    /// curl's "X overrides an earlier trace/verbose option" warnings; empty when -s came first.
    var traceWarnings: [String] = []
    var stderrPath: String?
    var failEarly = false
    /// -Z: the URLs run at once (curl's parallel mode).
    var parallel = false
    /// --parallel-max as given (nil: curl's default, 50).
    var parallelMax: String?
    /// --parallel-immediate: open connections at once rather than wait for the first to an origin.
    var parallelImmediate = false
    var showsHelp = false
    var showsVersion = false
    /// --generate-completion-script SHELL.
    var completionShell: String?
    /// --generate-man-page.
    var showsManPage = false
    /// Warnings about -K files (curl's `FILE:LINE: warning: ...`), in the order met; empty when
    /// -s came first.
    var configWarnings: [String] = []

    /// Whether the error line is printed (-s hides it, -S brings it back).
    var showsErrors: Bool { !silent || showError }
}

/// The options of one group of URLs (the whole command line when there is no -:).
struct TransferOptions: Sendable {
    // MARK: The table (TransferOptionTable.swift)

    /// The options that apply to the whole command line (curl's global options).
    static let globalKeys: Set<TransferKey> = [.silent, .showError, .progressBar, .noProgressMeter, .verbose, .stderr, .failEarly,
                                                .trace, .traceASCII, .traceTime,
                                                .parallel, .parallelMax, .parallelImmediate,
                                                .help, .version, .disable, .generateCompletion, .generateManPage]

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

    // HTTP versions, netrc
    var http2 = false
    var http3 = false
    /// --netrc, --netrc-optional or --netrc-file: how credentials come from a .netrc file.
    var netrc: NetrcUse?

    /// The URLs, in order.
    var urls: [String] { nodes.compactMap(\.url) }

    /// Parses the arguments after the program's name into groups (split at -:).
    /// - Parameter arguments: the arguments.
    /// - Returns: the groups, in order (at least one), each carrying the global options.
    /// - Throws: `UsageError` (curl's messages; exit code 2).
    static func parse(_ arguments: [String]) throws(UsageError) -> [TransferOptions] {
        var global = GlobalOptions()
        let parsed = try ConfigFile.expand(try table.parse(arguments), table: table, warnings: &global.configWarnings,
                                            configKey: .config, silentKey: .silent)
        var groups: [[ParsedArgument<TransferKey>]] = [[]]
        var tracePath: String?
        // curl's tool_getparam.c: -v, --trace and --trace-ascii each replace an earlier one, with
        // a warning when it was of another kind.
        func setTrace(_ kind: TraceKind?, path: String?, spelling: String) {
            if let kind, let earlier = global.traceKind, earlier != kind, !global.silent {
                global.traceWarnings.append("\(spelling) overrides an earlier trace/verbose option")
            }
            global.traceKind = kind
            tracePath = path
        }
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
                    case .verbose: setTrace(option.isOn ? .plain : nil, path: nil, spelling: "-v, --verbose")
                    case .trace: setTrace(.hex, path: option.value, spelling: "--trace")
                    case .traceASCII: setTrace(.ascii, path: option.value, spelling: "--trace-ascii")
                    case .traceTime: global.traceTime = option.isOn
                    case .stderr: global.stderrPath = option.value
                    case .failEarly: global.failEarly = option.isOn
                    case .parallel: global.parallel = option.isOn
                    case .parallelMax: global.parallelMax = option.value
                    case .parallelImmediate: global.parallelImmediate = option.isOn
                    case .help: global.showsHelp = option.isOn
                    case .version: global.showsVersion = option.isOn
                    case .generateCompletion: global.completionShell = option.value
                    case .generateManPage: global.showsManPage = option.isOn
                    default: break
                    }
                    continue
                }
            }
            groups[groups.count - 1].append(argument)
        }
        global.verbose = global.traceKind == .plain
        if let kind = global.traceKind, kind != .plain, let tracePath {
            global.trace = WireTrace(path: tracePath, ascii: kind == .ascii, time: global.traceTime)
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
        http2 = values.flag(.http2) || values.flag(.http2PriorKnowledge)
        http3 = values.flag(.http3)
        // curl: --netrc-optional wins over --netrc; --netrc-file alone means --netrc.
        let netrcFile = values.value(.netrcFile)
        if values.flag(.netrcOptional) {
            netrc = NetrcUse(file: netrcFile, optional: true)
        } else if values.flag(.netrc) || netrcFile != nil {
            netrc = NetrcUse(file: netrcFile, optional: false)
        }
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
