// TransferRunner: runs `courier [options] URL [URL ...] [-: ...]` — checks every group's options and
// builds its request template before anything is sent, then handles each URL in order whatever
// happened to the one before (curl), expanding globs (and -T globs) as it goes: the request, the
// output, the error line, -w. The exit code is the last URL's; with --fail-early, the first
// failure ends the run with its code.
//
// Output streams: bodies, -i heads, --offline bytes, --json-response JSON and -w text go to
// stdout (or a file for bodies); the error line, -v trace and the progress bar go to stderr
// (--stderr FILE sends them there).

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierPosix
import CourierMultipart
import CourierTLS
import CourierURL

struct TransferRunner {
    let groups: [TransferOptions]

    var global: GlobalOptions { groups[0].global }

    /// A group ready to run.
    struct Plan: Sendable {
        let options: TransferOptions
        let settings: TransferSettings
        let builder: RequestBuilder
        let template: RequestTemplate
        let writeOut: WriteOutFormatter?
        let cookies: CookieOptions
    }

    func run() async -> Int32 {
        ProcessControl.ignoreBrokenPipe()
        if let path = global.stderrPath {
            do {
                if path == "-" { try StandardStreams.redirectErrorToOutput() } else { try StandardStreams.redirectError(toPath: path) }
            } catch {
                printError("courier: Warning: Failed to open \(path): \(error)")
            }
        }
        // Every group is checked before anything is sent.
        var plans: [Plan] = []
        let boundary = RequestBuilder.makeBoundary()
        let environment = ProcessEnvironment.values(["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"])
        do throws(CLIError) {
            guard groups.contains(where: { !$0.urls.isEmpty }) else { throw .usage("no URL specified!") }
            for options in groups {
                guard !options.urls.isEmpty else { throw .usage("no URL specified!") }
                let settings = try TransferSettings(options: options)
                let cookies = try CookieOptions(options: options)
                let builder = RequestBuilder(options: options, environment: environment, boundary: boundary)
                var template = try builder.template()
                template.netrc = settings.netrc
                let writeOut = try options.writeOut.map { (format) throws(CLIError) in
                    WriteOutFormatter(format: format.hasPrefix("@") ? try readInputFile(String(format.dropFirst())).readableString : format)
                }
                plans.append(Plan(options: options, settings: settings, builder: builder, template: template, writeOut: writeOut,
                                  cookies: cookies))
            }
        } catch {
            report(error)
            return error.code
        }

        let control = TransferControl()
        let offline = plans.allSatisfy { $0.options.offline }
        let showsBar = !global.silent && !global.noProgressMeter && (global.progressBar || Terminal.isTerminal(2)) && !offline
        if global.parallel { return await runParallel(plans, control: control, showsMeter: showsBar) }
        let progress = showsBar ? ProgressBar() : nil
        if !offline { try? ProcessControl.onTermination { signal in control.terminate(by: signal) } }
        var sessions: [String: (Session, RedirectMonitor)] = [:]
        let dumped = SharedPaths()
        var exitCode: Int32 = 0
        // One jar for the run, used by the groups whose cookie engine is on (-b FILE, -c), as
        // curl's transfers share one cookie store; each group's -b files go into it when the group
        // starts, its -c file is written when the group ends, whatever happened to its URLs.
        let jar: CookieJar? = plans.contains { $0.cookies.enablesEngine } ? await CookieJar.withSystemPublicSuffixList() : nil
        var started = 0  // the groups that have started
        var saved = 0  // the groups whose -c file has been written

        groups: for plan in plans {
            let options = plan.options
            var settings = plan.settings
            let transfers: NetworkTransfers?
            let offlineSession: Session?
            started += 1
            if let jar, plan.cookies.enablesEngine {
                await plan.cookies.load(into: jar, verbose: global.verbose)
                settings.cookieJar = jar
            }
            do throws(CLIError) {
                (transfers, offlineSession) = try makeTransfers(plan: plan, settings: settings, sessions: &sessions, control: control,
                                                                progress: progress, dumped: dumped)
            } catch {
                report(error)
                exitCode = error.code
                if global.failEarly { break groups }
                await plan.cookies.save(jar, showsErrors: global.showsErrors)
                saved = started
                continue
            }
            for (urlNumber, node) in options.nodes.enumerated() {
                guard let urlText = node.url else { continue }
                let urlGlob: URLGlob
                let uploads: [String?]
                do throws(GlobError) {
                    (urlGlob, uploads) = try TransferRunner.globs(url: urlText, upload: node.upload, globOff: options.globOff)
                } catch {
                    // curl stops at a URL it cannot glob.
                    if global.showsErrors { printError("courier: (3) " + error.text(for: urlText)) }
                    exitCode = 3
                    break groups
                }
                for upload in uploads {
                    var iterator = urlGlob.makeIterator()
                    while let expansion = iterator.next() {
                        let code = await perform(expansion: expansion, node: node, urlNumber: urlNumber, upload: upload, plan: plan,
                                                 transfers: transfers, offlineSession: offlineSession, control: control)
                        exitCode = code
                        if code != 0 && global.failEarly { break groups }
                    }
                }
            }
            await plan.cookies.save(jar, showsErrors: global.showsErrors)
            saved = started
        }
        // A group that ended the run early (--fail-early, a URL that cannot be globbed).
        if saved < started { await plans[started - 1].cookies.save(jar, showsErrors: global.showsErrors) }
        progress?.close()
        for (session, _) in sessions.values { await session.finishTasksAndInvalidate() }
        return exitCode
    }

    /// The group's transfers on the session its settings call for (made on first use and shared
    /// with every group whose settings are alike), or, for --offline, that session alone.
    func makeTransfers(plan: Plan, settings: TransferSettings, sessions: inout [String: (Session, RedirectMonitor)],
                       control: TransferControl, progress: (any ProgressDisplay)?,
                       dumped: SharedPaths) throws(CLIError) -> (NetworkTransfers?, Session?) {
        let options = plan.options
        let key = NetworkTransfers.sessionKey(options)
        let entry: (Session, RedirectMonitor)
        if let existing = sessions[key] {
            entry = existing
        } else {
            let monitor = RedirectMonitor()
            var configuration = try NetworkTransfers.configuration(options: options, settings: settings, monitor: monitor)
            // The bar's visibility: every task of every session counted on its tracker (issue 16).
            configuration.activityTracker = progress?.activityTracker
            let session = Session(configuration: configuration)
            entry = (session, monitor)
            sessions[key] = entry
        }
        if options.offline { return (nil, entry.0) }
        return (NetworkTransfers(options: options, settings: settings, session: entry.0, monitor: entry.1,
                                 control: control, progress: progress, dumpedFiles: dumped), nil)
    }

    /// One URL: build, check, transfer, report, -w. Returns its exit code.
    func perform(expansion: URLGlob.Expansion, node: URLNode, urlNumber: Int, upload: String?, plan: Plan,
                         transfers: NetworkTransfers?, offlineSession: Session?, control: TransferControl,
                         responseStarted: (@Sendable () -> Void)? = nil) async -> Int32 {
        let options = plan.options
        var values = WriteOutValues()
        values.url = expansion.url
        values.urlNumber = urlNumber
        var exitCode: Int32 = 0
        do throws(CLIError) {
            // -Z --fail-early: a transfer not yet begun when another failed is aborted (curl's 42).
            if control.isAborted { throw CLIError.abortedByOtherTransfer }
            let prepared = try plan.builder.request(for: expansion.url, upload: upload, template: plan.template)
            let request = prepared.request
            values.method = request.method.rawValue
            values.urlEffective = request.uri.redactedDescription
            values.scheme = ASCIICase.uppercased(request.uri.scheme ?? "")  // curl 7.88 prints "HTTP"
            values.referer = request.headers.first(name: "Referer") ?? ""
            if let allowed = plan.settings.protocols, let scheme = request.uri.scheme, !allowed.contains(scheme) {
                throw CLIError(1, "Protocol \"\(scheme)\" not supported or disabled in libcurl")
            }
            if let transfers {
                try await transfers.perform(prepared, output: outputPlan(for: node, expansion: expansion, request: request, options: options),
                                            values: &values, responseStarted: responseStarted)
            } else if let offlineSession {
                let bytes: ByteBuffer
                do { bytes = try await offlineSession.renderedRequest(for: request) } catch {
                    throw CLIError(Int32(error.curlExitCode), error.message)
                }
                values.sizeRequest = UInt64(bytes.readableBytes)
                values.sizeUpload = request.body.length ?? 0
                do { try await StandardOutput.write(bytes) } catch {
                    throw CLIError.writeFailure
                }
            }
        } catch {
            // A termination signal: no error line, no -w, as when the signal ends curl.
            if let signal = control.terminationSignal { ProcessControl.terminate(bySignal: signal) }
            values.errorMessage = error.message
            report(error)
            exitCode = error.code
        }
        values.exitCode = exitCode
        if let signal = control.terminationSignal { ProcessControl.terminate(bySignal: signal) }
        if let writeOut = plan.writeOut { await emit(writeOut.render(values)) }
        return exitCode
    }

    /// Where the body of one URL goes: -o (with #N and --output-dir), -O / --remote-name-all, or
    /// stdout.
    private func outputPlan(for node: URLNode, expansion: URLGlob.Expansion, request: HTTPRequest, options: TransferOptions) -> OutputPlan {
        let directory = options.outputDir.flatMap { $0.isEmpty ? nil : $0 }
        switch node.output ?? (options.remoteNameAll ? .remoteName : nil) {
        case .file(let name)?:
            guard name != "-" else { return .stdout }
            let substituted = expansion.substituting(into: name)
            return .file(directory.map { $0 + "/" + substituted } ?? substituted)
        case .remoteName?:
            return .remote(urlName: OutputNames.remoteName(ofPath: request.uri.path), directory: directory)
        case nil:
            return .stdout
        }
    }

    func report(_ error: CLIError) {
        if global.showsErrors { printError(error.line) }
    }

    func emit(_ rendered: (stdout: [UInt8], stderr: [UInt8], warnings: [String])) async {
        for warning in rendered.warnings { printError("courier: " + warning) }
        if !rendered.stdout.isEmpty { try? await StandardOutput.write(ByteBuffer(bytes: rendered.stdout)) }
        if !rendered.stderr.isEmpty { StandardStreams.writeError(String(decoding: rendered.stderr, as: UTF8.self)) }
    }
}

/// The options of a group that need checking and converting before anything runs.
struct TransferSettings: Sendable {
    var connectTimeout: Duration?
    var maxTime: Duration?
    var idleTimeout: Duration?
    var maxRedirects: Int = 10
    var maxFilesize: UInt64?
    /// --expect100-timeout.
    var expect100Timeout: Duration?
    /// --retry (0: none).
    var retries = 0
    /// --retry-delay (nil: curl's schedule, 1 s doubling).
    var retryDelay: Duration?
    /// --retry-max-time.
    var retryMaxTime: Duration?
    var createFileMode: UInt32 = 0o666
    var resume: Bool
    /// --happy-eyeballs-timeout-ms.
    var attemptDelay: Duration?
    /// --tls-max (nil: the highest).
    var tlsMaximum: TLSVersion?
    /// --proto: the schemes a URL may have (nil: http and https).
    var protocols: Set<String>?
    /// --proto-redir: the schemes a redirect may go to (nil: the session's rule).
    var redirectProtocols: Set<String>?
    /// The run's cookie jar when the group's cookie engine is on (set by the runner), else nil.
    var cookieJar: CookieJar?
    /// --limit-rate in bytes per second (nil: no cap).
    var rateLimit: Int?
    /// -Y and -y.
    var lowSpeedLimit: LowSpeedLimit?
    /// --interface and --local-port.
    var localBinding: LocalBinding?
    /// TCP keep-alive: curl's default of 60 s, --keepalive-time, or none with --no-keepalive.
    var keepAlive: TCPKeepAlive?
    /// -x, --noproxy, -U, -p, --proxy-header; without -x the environment's proxies (curl's rule).
    var proxy = ProxyConfiguration.environment
    /// The .netrc file of -n, --netrc-optional, --netrc-file (nil: not asked for, or unreadable,
    /// which curl also takes as "no credentials").
    var netrc: Netrc?

    /// - Throws: `CLIError` 2 for anything malformed or contradictory.
    init(options: TransferOptions) throws(CLIError) {
        connectTimeout = try options.connectTimeout.map { (text) throws(CLIError) in try TransferSettings.seconds(text, "--connect-timeout") }
        maxTime = try options.maxTime.map { (text) throws(CLIError) in try TransferSettings.seconds(text, "-m, --max-time") }
        idleTimeout = try options.idleTimeout.map { (text) throws(CLIError) in try TransferSettings.seconds(text, "--idle-timeout") }
        if let text = options.maxRedirects {
            guard let n = Int(text), n >= -1 else { throw .usage("--max-redirs expects a number, not \"\(printable(text))\"") }
            maxRedirects = n
        }
        if let text = options.maxFilesize { maxFilesize = try TransferSettings.size(text) }
        expect100Timeout = try options.expect100Timeout.map { (text) throws(CLIError) in try TransferSettings.seconds(text, "--expect100-timeout") }
        // curl reads these three as whole numbers (seconds), refusing anything else with 2.
        func count(_ text: String?, _ option: String) throws(CLIError) -> Int? {
            guard let text else { return nil }
            guard let n = Int(text), n >= 0 else { throw .usage("option --\(option): expected a proper numerical parameter") }
            return n
        }
        retries = try count(options.retry, "retry") ?? 0
        retryDelay = try count(options.retryDelay, "retry-delay").flatMap { $0 > 0 ? .seconds($0) : nil }
        retryMaxTime = try count(options.retryMaxTime, "retry-max-time").flatMap { $0 > 0 ? .seconds($0) : nil }
        if let text = options.createFileMode {
            // curl reads the mode as octal, at most 0777.
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }),
                  let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                throw .usage("--create-file-mode expects an octal mode up to 0777, not \"\(printable(text))\"")
            }
            createFileMode = mode
        }
        let uploads = options.nodes.contains { $0.upload != nil }
        switch options.continueAt {
        case nil: resume = false
        case "-"?:
            let outputs = options.nodes.contains { node in
                switch node.output ?? (options.remoteNameAll ? .remoteName : nil) {
                case .file(let name)?: return name != "-"
                case .remoteName?: return true
                case nil: return false
                }
            }
            if options.remoteHeaderName { throw .usage("--continue-at and --remote-header-name cannot be combined.") }
            guard outputs || uploads else { throw .usage("-C - needs -o FILE or -O (the partial download is the file) or -T FILE") }
            resume = outputs
        case let value?:
            throw .usage("-C supports \"-\" only (resume from the size of the -o FILE), not \"\(printable(value))\"")
        }
        if options.http2 { throw CLIError(1, "HTTP/2 is not supported: courier speaks HTTP/1.1 only") }
        if options.http3 { throw CLIError(2, "option --http3: HTTP/3 is not supported: courier speaks HTTP/1.1 only") }
        netrc = options.netrc.flatMap { $0.path }.flatMap { Netrc(path: $0) }
        if options.fail && options.failWithBody {
            throw .usage("You must select either --fail or --fail-with-body, not both.")
        }
        if options.remoteHeaderName && options.include {
            throw .usage("--include and --remote-header-name cannot be combined.")
        }
        if let text = options.happyEyeballsTimeout {
            guard let ms = Int(text), ms >= 0 else { throw .usage("--happy-eyeballs-timeout-ms expects milliseconds, not \"\(printable(text))\"") }
            attemptDelay = .milliseconds(ms)
        }
        if let text = options.tlsMax {
            switch text {
            case "1.2": tlsMaximum = .v1_2
            case "1.3", "default": tlsMaximum = nil
            case "1.0", "1.1":
                throw .usage("--tls-max \(text): courier offers TLS 1.2 and 1.3 only (RFC 8996 deprecates 1.0 and 1.1)")
            default:
                throw .usage("--tls-max expects 1.2, 1.3 or default, not \"\(printable(text))\"")
            }
            if options.tlsv1_3 && tlsMaximum == .v1_2 {
                throw .usage("--tls-max 1.2 is below --tlsv1.3")
            }
        }
        if let text = options.limitRate {
            let rate = try TransferSettings.rate(text)
            rateLimit = rate > 0 ? Int(clamping: rate) : nil
        }
        if options.speedLimit != nil || options.speedTime != nil {
            // curl: -Y alone keeps the speed for 30 s; -y alone means at least 1 byte per second.
            var bytes: UInt64 = 1
            var seconds: UInt64 = 30
            if let text = options.speedLimit {
                guard let n = UInt64(text) else { throw .usage("option -Y: expected a proper numerical parameter") }
                bytes = n
            }
            if let text = options.speedTime {
                guard let n = UInt64(text) else { throw .usage("option -y: expected a positive numerical parameter") }
                seconds = n
            }
            if bytes > 0 && seconds > 0 {
                lowSpeedLimit = LowSpeedLimit(bytesPerSecond: Int(clamping: bytes), duration: .seconds(Int64(clamping: seconds)))
            }
        }
        if options.interface != nil || options.localPort != nil {
            var binding = LocalBinding()
            if let text = options.interface { binding.source = LocalBinding.source(parsing: text) }
            if let text = options.localPort { binding.ports = try TransferSettings.portRange(text) }
            localBinding = binding
        }
        if !options.noKeepalive {
            var seconds = 60
            if let text = options.keepaliveTime {
                // curl reads a whole number of seconds; 0 is "the default".
                guard let n = Int(text), n >= 0, n <= Int(Int32.max) else {
                    throw .usage("option --keepalive-time: expected a proper numerical parameter")
                }
                if n > 0 { seconds = n }
            }
            keepAlive = TCPKeepAlive(seconds: seconds)
        }
        if let text = options.proxy { proxy.source = .url(text) }
        proxy.noProxy = options.noproxy
        if let text = options.proxyUser {
            // curl splits at the first colon; a missing password is empty (curl would prompt).
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            proxy.credential = Credential(user: String(parts[0]), password: parts.count > 1 ? String(parts[1]) : "")
        }
        proxy.tunnelsHTTP = options.proxytunnel
        for line in options.proxyHeader {
            // "Name: value"; "Name:" alone sends nothing, as -H (curl removes the field).
            guard let colon = line.firstIndex(of: ":") else {
                throw .usage("--proxy-header expects \"Name: value\", not \"\(printable(line))\"")
            }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            if !value.isEmpty { proxy.headers.add(name: name, value: value) }
        }
        if let text = options.proto { protocols = TransferSettings.protocolSet(text, silent: options.global.silent) }
        if let text = options.protoRedirect { redirectProtocols = TransferSettings.protocolSet(text, silent: options.global.silent) }
        if let scheme = options.protoDefault, !["http", "https"].contains(ASCIICase.lowercased(scheme)) {
            throw CLIError(1, "Protocol \"\(printable(scheme))\" not supported or disabled in libcurl (--proto-default)")
        }
        let pinned = options.pinnedPublicKey != nil || options.pinnedCertificate != nil
        if pinned && !options.offline {
            for url in options.urls {
                if let uri = try? RequestBuilder.parseURL(url, defaultScheme: options.protoDefault), uri.scheme == "http" {
                    throw .usage("--pinnedpubkey and --pinnedcert need https:// URLs: a pin can only hold on TLS (\(uri.redactedDescription))")
                }
            }
        }
    }

    /// curl's --proto syntax: comma-separated names, each after "+" (allow, the default), "-"
    /// (deny) or "=" (only these); "all" is every scheme. Starts from every scheme; only http and
    /// https exist here, so the result is a subset of them. Unknown names are ignored, with
    /// curl's warning.
    static func protocolSet(_ text: String, silent: Bool) -> Set<String> {
        let all: Set<String> = ["http", "https"]
        var set = all
        for token in text.split(separator: ",") {
            var name = Substring(token)
            var action: Character = "+"
            while let first = name.first, first == "+" || first == "-" || first == "=" {
                action = first
                name = name.dropFirst()
            }
            let scheme = ASCIICase.lowercased(String(name))
            if scheme == "all" {
                set = action == "-" ? [] : all
            } else if all.contains(scheme) {
                switch action {
                case "-": set.remove(scheme)
                case "=": set = [scheme]
                default: set.insert(scheme)
                }
            } else {
                if action == "=" { set = [] }
                // Schemes curl knows that courier does not have are simply never allowed.
                let known = ["ftp", "ftps", "file", "scp", "sftp", "smb", "smbs", "telnet", "tftp", "dict", "gopher", "gophers",
                             "imap", "imaps", "ldap", "ldaps", "mqtt", "pop3", "pop3s", "rtmp", "rtsp", "smtp", "smtps", "ws", "wss"]
                if !known.contains(scheme) { warn("unrecognized protocol '\(scheme)'", silent: silent) }
            }
        }
        return set
    }

    /// A whole number with curl's optional unit: k, m or g (powers of 1024, either case) and, when
    /// `allowsB`, b; nil when it does not parse or overflows.
    static func scaled(_ text: String, allowsB: Bool) -> UInt64? {
        var digits = Substring(text)
        var multiplier: UInt64 = 1
        switch digits.last {
        case "k"?, "K"?: multiplier = 1 << 10; digits.removeLast()
        case "m"?, "M"?: multiplier = 1 << 20; digits.removeLast()
        case "g"?, "G"?: multiplier = 1 << 30; digits.removeLast()
        case "b"?, "B"? where allowsB: digits.removeLast()
        default: break
        }
        guard let value = UInt64(digits) else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }

    /// curl's --limit-rate: a whole number with an optional unit, k, m, g (powers of 1024) or
    /// b, in either case.
    static func rate(_ text: String) throws(CLIError) -> UInt64 {
        guard let rate = scaled(text, allowsB: true) else { throw .usage("option --limit-rate: is badly used here") }
        return rate
    }

    /// curl's --local-port: "N" or "N-M", ports up to 65535 with M not below N (0: any port).
    static func portRange(_ text: String) throws(CLIError) -> ClosedRange<UInt16> {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let low = UInt16(parts[0]),
              let high = parts.count == 2 ? UInt16(parts[1]) : low, high >= low else {
            throw .usage("option --local-port: is badly used here")
        }
        return low...high
    }

    /// Seconds as curl reads them: a decimal number, not negative.
    static func seconds(_ text: String, _ option: String) throws(CLIError) -> Duration {
        guard let value = Double(text), value >= 0, value.isFinite, value < 1e9 else {
            throw .usage("\(option) expects a number of seconds, not \"\(printable(text))\"")
        }
        return .nanoseconds(Int64((value * 1e9).rounded()))
    }

    /// A size with curl's optional suffix: k, M or G (powers of 1024).
    static func size(_ text: String) throws(CLIError) -> UInt64 {
        guard UInt64(text.dropLast(text.last.map { "kKmMgG".contains($0) } == true ? 1 : 0)) != nil else {
            throw .usage("--max-filesize expects a number of bytes, not \"\(printable(text))\"")
        }
        guard let size = scaled(text, allowsB: false) else { throw .usage("--max-filesize is too large") }
        return size
    }
}

extension RequestBuilder {
    /// The MIME type database for `-F name=@file` parts: the system's (/etc/mime.types), or — for
    /// tests only — the file named by COURIER_MIME_TYPES (a missing one means the built-in table).
    static var mimeTypes: MIMETypeTable? {
        if let path = ProcessEnvironment.value("COURIER_MIME_TYPES") { return SystemMIMETypes.load(path) }
        return SystemMIMETypes.table
    }

    /// A multipart boundary: fresh for every request, from the kernel's CSPRNG (getrandom) in
    /// AFNetworking's format, or — for tests only — the value of COURIER_MULTIPART_BOUNDARY when
    /// it is a valid boundary.
    static func makeBoundary() -> MultipartBoundary {
        if let fixed = ProcessEnvironment.value("COURIER_MULTIPART_BOUNDARY"), let boundary = MultipartBoundary(fixed) {
            return boundary
        }
        var random = KernelRandom()
        return MultipartBoundary(using: &random)
    }
}
