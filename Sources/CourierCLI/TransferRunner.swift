// TransferRunner: runs `courier [options] URL [URL ...]` — checks the options once, builds the
// request template once, then handles each URL in order whatever happened to the one before
// (curl): the request, the output, the error line, -w. The exit code is the last URL's.
//
// Output streams: bodies, -i heads, --offline bytes, --json-response JSON and -w text go to
// stdout (or -o FILE for bodies); the error line, -v trace and the progress bar go to stderr.

import Courier
import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierMultipart
import CourierURL

struct TransferRunner {
    let options: TransferOptions

    /// Whether the error line is printed (-s hides it, -S brings it back).
    var showsErrors: Bool { !options.silent || options.showError }

    func run() async -> Int32 {
        ProcessControl.ignoreBrokenPipe()
        let settings: TransferSettings
        let template: RequestTemplate
        let builder: RequestBuilder
        let writeOut: WriteOutFormatter?
        do {
            settings = try TransferSettings(options: options)
            builder = RequestBuilder(options: options, environment: ProcessEnvironment.values(["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"]),
                                     boundary: RequestBuilder.makeBoundary())
            template = try builder.template()
            writeOut = try options.writeOut.map { (format) throws(CLIError) in
                WriteOutFormatter(format: format.hasPrefix("@") ? try readInputFile(String(format.dropFirst())).readableString : format)
            }
        } catch {
            report(error)
            return error.code
        }

        let transfers: NetworkTransfers?
        let offlineSession: Session?
        do throws(CLIError) {
            if options.offline {
                transfers = nil
                offlineSession = Session(configuration: try NetworkTransfers.configuration(options: options, settings: settings))
            } else {
                let network = try NetworkTransfers(options: options, settings: settings)
                transfers = network
                offlineSession = nil
                try? ProcessControl.onTermination { signal in network.terminate(by: signal) }
            }
        } catch {
            report(error)
            return error.code
        }
        var exitCode: Int32 = 0
        for (index, url) in options.urls.enumerated() {
            var values = WriteOutValues()
            values.url = url
            values.method = template.method.rawValue
            do throws(CLIError) {
                let request = try builder.request(for: url, template: template)
                values.urlEffective = request.uri.redactedDescription
                values.scheme = request.uri.scheme ?? ""
                if let transfers {
                    try await transfers.perform(request, index: index, values: &values)
                } else if let offlineSession {
                    let bytes: ByteBuffer
                    do { bytes = try offlineSession.requestBytes(for: request) } catch {
                        throw CLIError(Int32(error.curlExitCode), error.message)
                    }
                    values.sizeRequest = UInt64(bytes.readableBytes)
                    values.sizeUpload = request.body.length ?? 0
                    do { try StandardStreams.writeOutput(bytes) } catch {
                        throw CLIError.writeFailure
                    }
                }
                exitCode = 0
            } catch {
                // A termination signal: no error line, no -w, as when the signal ends curl.
                if let signal = transfers?.terminationSignal { ProcessControl.terminate(bySignal: signal) }
                values.exitCode = error.code
                values.errorMessage = error.message
                report(error)
                exitCode = error.code
            }
            values.exitCode = exitCode
            if let signal = transfers?.terminationSignal { ProcessControl.terminate(bySignal: signal) }
            if let writeOut { emit(writeOut.render(values)) }
        }
        if let transfers { await transfers.finish() }
        return exitCode
    }

    private func report(_ error: CLIError) {
        if showsErrors { printError(error.line) }
    }

    private func emit(_ rendered: (stdout: [UInt8], stderr: [UInt8], warnings: [String])) {
        for warning in rendered.warnings { printError("courier: " + warning) }
        if !rendered.stdout.isEmpty { try? StandardStreams.writeOutput(ByteBuffer(bytes: rendered.stdout)) }
        if !rendered.stderr.isEmpty { StandardStreams.writeError(String(decoding: rendered.stderr, as: UTF8.self)) }
    }
}

/// The options that need checking and converting before anything runs.
struct TransferSettings: Sendable {
    var connectTimeout: Duration?
    var maxTime: Duration?
    var idleTimeout: Duration?
    var maxRedirects: Int = 10
    var maxFilesize: UInt64?
    var createFileMode: UInt32 = 0o666
    var resume: Bool

    /// - Throws: `CLIError` 2 for anything malformed or contradictory.
    init(options: TransferOptions) throws(CLIError) {
        guard !options.urls.isEmpty else { throw .usage("no URL specified!") }
        connectTimeout = try options.connectTimeout.map { (text) throws(CLIError) in try TransferSettings.seconds(text, "--connect-timeout") }
        maxTime = try options.maxTime.map { (text) throws(CLIError) in try TransferSettings.seconds(text, "-m, --max-time") }
        idleTimeout = try options.idleTimeout.map { (text) throws(CLIError) in try TransferSettings.seconds(text, "--idle-timeout") }
        if let text = options.maxRedirects {
            guard let n = Int(text), n >= -1 else { throw .usage("--max-redirs expects a number, not \"\(printable(text))\"") }
            maxRedirects = n
        }
        if let text = options.maxFilesize { maxFilesize = try TransferSettings.size(text) }
        if let text = options.createFileMode {
            // curl reads the mode as octal, at most 0777.
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }),
                  let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                throw .usage("--create-file-mode expects an octal mode up to 0777, not \"\(printable(text))\"")
            }
            createFileMode = mode
        }
        switch options.continueAt {
        case nil: resume = false
        case "-"?:
            guard !options.output.isEmpty else { throw .usage("-C - needs -o FILE: the partial download is the file") }
            resume = true
        case let value?:
            throw .usage("-C supports \"-\" only (resume from the size of the -o FILE), not \"\(printable(value))\"")
        }
        let pinned = options.pinnedPublicKey != nil || options.pinnedCertificate != nil
        if pinned && !options.offline {
            for url in options.urls {
                if let uri = try? RequestBuilder.parseURL(url), uri.scheme == "http" {
                    throw .usage("--pinnedpubkey and --pinnedcert need https:// URLs: a pin can only hold on TLS (\(uri.redactedDescription))")
                }
            }
        }
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
        var digits = Substring(text)
        var multiplier: UInt64 = 1
        switch digits.last {
        case "k"?, "K"?: multiplier = 1 << 10; digits.removeLast()
        case "m"?, "M"?: multiplier = 1 << 20; digits.removeLast()
        case "g"?, "G"?: multiplier = 1 << 30; digits.removeLast()
        default: break
        }
        guard let value = UInt64(digits) else { throw .usage("--max-filesize expects a number of bytes, not \"\(printable(text))\"") }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw .usage("--max-filesize is too large") }
        return product
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
