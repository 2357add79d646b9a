// TransferRunner+Parallel: -Z/--parallel, curl's parallel mode. Every URL of every group (globs
// expanded, in command-line order) becomes a transfer; at most --parallel-max (curl's default 50,
// at most 300; another number means 50, as in curl) run at once, each on its group's session, so
// connections are shared. Each transfer writes as a sequential one would: its -o/-O file, or its
// body slices to stdout as they arrive (interleaved, as curl's), its error line and its -w text
// when it ends. The exit code is that of the last transfer to fail (in the order they ended); with
// --fail-early the first failure cancels the running transfers — they end with curl's 42,
// "Transfer aborted due to critical error in another transfer" — starts no more, and is the exit
// code.
//
// Without --parallel-immediate a transfer to an origin that already has a first transfer waiting
// for its response head waits too, as curl's transfers wait to learn whether that connection can
// be multiplexed (CURLOPT_PIPEWAIT); HTTP/1.1 never is, so once the head (or a failure) arrives,
// the waiting ones go, each on a connection of its own. --parallel-immediate starts them at once.

import Courier
import CourierPosix
import CourierURL
import Synchronization

extension CLIError {
    /// curl's 42 for a transfer cut short because another failed (-Z --fail-early).
    static let abortedByOtherTransfer = CLIError(42, "Transfer aborted due to critical error in another transfer")
}

/// Holds back transfers to an origin while its first transfer waits for a response head.
final class OriginGate: Sendable {
    private enum Origin {
        case probing([CheckedContinuation<Void, Never>])
        case open
    }

    private let origins = Mutex<[String: Origin]>([:])

    /// Whether a transfer started now is the origin's first (it goes at once and must `open` the
    /// origin). Called in the order the transfers start, so the first on the command line is it.
    func claim(_ origin: String) -> Bool {
        origins.withLock { o in
            guard o[origin] == nil else { return false }
            o[origin] = .probing([])
            return true
        }
    }

    /// Waits until the origin is open (returns at once when it is).
    func wait(_ origin: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = origins.withLock { o -> Bool in
                guard case .probing(var waiting)? = o[origin] else { return true }
                waiting.append(continuation)
                o[origin] = .probing(waiting)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// The origin's first response head came (or its transfer ended): the others go.
    func open(_ origin: String) {
        let waiting = origins.withLock { o -> [CheckedContinuation<Void, Never>] in
            defer { o[origin] = .open }
            if case .probing(let waiting)? = o[origin] { return waiting }
            return []
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Lets every waiting transfer go (--fail-early: they then end with 42).
    func openAll() {
        let keys = origins.withLock { Array($0.keys) }
        for key in keys { open(key) }
    }
}

extension TransferRunner {
    /// A URL's glob and its upload files expanded (`-T` globs are expanded first: curl loops
    /// over the upload files outside the URL's expansions). With `-g` both are taken literally.
    /// - Throws: `GlobError` for a URL or upload name that is not a valid glob (curl's 3).
    static func globs(url: String, upload: String?, globOff: Bool) throws(GlobError) -> (URLGlob, [String?]) {
        let urlGlob = globOff ? URLGlob(literal: url) : try URLGlob(parsing: url)
        guard let upload else { return (urlGlob, [nil]) }
        if globOff { return (urlGlob, [upload]) }
        var iterator = try URLGlob(parsing: upload).makeIterator()
        var uploads: [String?] = []
        while let next = iterator.next() { uploads.append(next.url) }
        return (urlGlob, uploads)
    }

    /// One transfer of a parallel run.
    private struct Job: Sendable {
        let expansion: URLGlob.Expansion
        let node: URLNode
        let urlNumber: Int
        let upload: String?
        let plan: Plan
        let transfers: NetworkTransfers?
        let offlineSession: Session?
        /// The key transfers wait on (nil: never waits).
        let origin: String?
    }

    /// --parallel-max as curl reads it: a number (else 2); below 1 or above 300 means 50.
    static func parallelLimit(_ text: String?) throws(CLIError) -> Int {
        guard let text else { return 50 }
        guard let n = Int(text) else { throw .usage("option --parallel-max: expected a proper numerical parameter") }
        return n < 1 || n > 300 ? 50 : n
    }

    func runParallel(_ plans: [Plan], control: TransferControl, showsMeter: Bool) async -> Int32 {
        let limit: Int
        do throws(CLIError) { limit = try TransferRunner.parallelLimit(global.parallelMax) } catch {
            report(error)
            return error.code
        }
        let meter = showsMeter ? ParallelMeter() : nil
        if !plans.allSatisfy({ $0.options.offline }) {
            try? ProcessControl.onTermination { signal in control.terminate(by: signal) }
        }
        var sessions: [String: (Session, RedirectMonitor)] = [:]
        let dumped = SharedPaths()
        var exitCode: Int32 = 0
        let jar: CookieJar? = plans.contains { $0.cookies.enablesEngine } ? await CookieJar.withSystemPublicSuffixList() : nil

        // Every transfer is known before the first starts: a URL that cannot be globbed ends
        // the run with 3 and nothing sent, as in curl's parallel mode.
        var jobs: [Job] = []
        collecting: for plan in plans {
            let options = plan.options
            var settings = plan.settings
            if let jar, plan.cookies.enablesEngine {
                await plan.cookies.load(into: jar, global: global)
                settings.cookieJar = jar
            }
            let transfers: NetworkTransfers?
            let offlineSession: Session?
            do throws(CLIError) {
                (transfers, offlineSession) = try makeTransfers(plan: plan, settings: settings, sessions: &sessions, control: control,
                                                                progress: meter, dumped: dumped)
            } catch {
                report(error)
                exitCode = error.code
                if global.failEarly { break collecting }
                continue
            }
            let sessionKey = NetworkTransfers.sessionKey(options)
            for (urlNumber, node) in options.nodes.enumerated() {
                guard let urlText = node.url else { continue }
                let urlGlob: URLGlob
                let uploads: [String?]
                do throws(GlobError) {
                    (urlGlob, uploads) = try TransferRunner.globs(url: urlText, upload: node.upload, globOff: options.globOff)
                } catch {
                    if global.showsErrors { printError("courier: (3) " + error.text(for: urlText)) }
                    for (session, _) in sessions.values { await session.finishTasksAndInvalidate() }
                    return 3
                }
                for upload in uploads {
                    var iterator = urlGlob.makeIterator()
                    while let expansion = iterator.next() {
                        var origin: String?
                        if !global.parallelImmediate, transfers != nil,
                           let uri = try? RequestBuilder.parseURL(expansion.url, defaultScheme: options.protoDefault) {
                            origin = sessionKey + "\u{0}" + (uri.scheme ?? "") + "://" + (uri.host?.text ?? "") + ":"
                                + String(uri.port.map(Int.init) ?? -1)
                        }
                        jobs.append(Job(expansion: expansion, node: node, urlNumber: urlNumber, upload: upload, plan: plan,
                                        transfers: transfers, offlineSession: offlineSession, origin: origin))
                    }
                }
            }
        }

        let gate = OriginGate()
        var aborted = false
        if !(exitCode != 0 && global.failEarly) {
            await withTaskGroup(of: Int32.self) { group in
                var pending = jobs.makeIterator()
                var running = 0
                while running < limit, let job = pending.next() {
                    meter?.transferAdded()
                    let first = job.origin.map(gate.claim) ?? false
                    group.addTask { await self.run(job, first: first, gate: gate, control: control) }
                    running += 1
                }
                // curl draws its first line once the first transfers are added.
                meter?.startTicking()
                while let code = await group.next() {
                    running -= 1
                    meter?.transferFinished()
                    if code != 0 && !aborted {
                        exitCode = code
                        if global.failEarly {
                            aborted = true
                            control.abortAll()
                            gate.openAll()
                        }
                    }
                    if !aborted, let job = pending.next() {
                        meter?.transferAdded()
                        let first = job.origin.map(gate.claim) ?? false
                        group.addTask { await self.run(job, first: first, gate: gate, control: control) }
                        running += 1
                    }
                }
            }
        }
        for plan in plans { await plan.cookies.save(jar, showsErrors: global.showsErrors) }
        meter?.close()
        for (session, _) in sessions.values { await session.finishTasksAndInvalidate() }
        return exitCode
    }

    private func run(_ job: Job, first: Bool, gate: OriginGate, control: TransferControl) async -> Int32 {
        var responseStarted: (@Sendable () -> Void)?
        if let origin = job.origin {
            if first { responseStarted = { gate.open(origin) } } else { await gate.wait(origin) }
        }
        let code = await perform(expansion: job.expansion, node: job.node, urlNumber: job.urlNumber, upload: job.upload, plan: job.plan,
                                 transfers: job.transfers, offlineSession: job.offlineSession, control: control,
                                 responseStarted: responseStarted)
        // A transfer that failed before reaching the network still lets the others go.
        responseStarted?()
        return code
    }
}
