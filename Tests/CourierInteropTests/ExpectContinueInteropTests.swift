// Expect: 100-continue (issue 13 §3) against nginx, which answers 100 itself, and against the
// scripted server's /expect-* routes (scripts/interop/scripted_server.py): one that never answers
// 100, one that sends 102 and 103 first, one that refuses the expectation with 417, one that
// answers 413 before the body and closes. The scripted routes answer "got N early E wait MS": the
// body bytes read, how many came before the server's 100, and the wait from the head to the
// first body byte.
import Testing
import Courier
import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierURL
import Synchronization

@Suite(.enabled(if: Interop.isAvailable, "needs scripts/interop/run"), .serialized, .timeLimit(.minutes(2)))
struct ExpectContinueInteropTests {
    static let mebibyte = 1 << 20

    func session(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
        var configuration = SessionConfiguration()
        configuration.connectTimeout = .seconds(5)
        configuration.idleTimeout = .seconds(20)
        configure(&configuration)
        return Session(configuration: configuration)
    }

    func request(_ method: HTTPMethod, port: UInt16, _ path: String) throws -> HTTPRequest {
        HTTPRequest(method: method, uri: try URI(parsing: "http://127.0.0.1:\(port)\(path)"))
    }

    func body(_ count: Int) -> ByteBuffer { ByteBuffer(bytes: [UInt8](repeating: 0x61, count: count)) }

    /// The scripted server's report: body bytes, bytes before its 100, milliseconds waited.
    func report(_ body: ByteBuffer?) -> (got: Int, early: Int, wait: Int)? {
        let words = (body?.readableString ?? "").split(separator: " ")
        guard words.count == 6, let got = Int(words[1]), let early = Int(words[3]), let wait = Int(words[5]) else { return nil }
        return (got, early, wait)
    }

    // MARK: nginx

    @Test func nginxAnswers100AndTakesABodyOverOneMebibyte() async throws {
        let session = session()
        let response = await session.uploadTask(with: try request(.post, port: Interop.nginxPort, "/upload"),
                                                from: .bytes(body(2 * Self.mebibyte))).response
        #expect(response.head?.status == 204, "\(response.result)")
        #expect(response.metrics.transactions.last?.expectContinue == .continued)
        #expect(response.metrics.bytesSent == UInt64(2 * Self.mebibyte))
        await session.finishTasksAndInvalidate()
    }

    @Test func exactlyOneMebibyteDoesNotAsk() async throws {
        let session = session()
        let response = await session.uploadTask(with: try request(.post, port: Interop.nginxPort, "/upload"),
                                                from: .bytes(body(Self.mebibyte))).response
        #expect(response.head?.status == 204)
        #expect(response.metrics.transactions.last?.expectContinue == nil, "curl's threshold: more than 1 MiB")
        await session.finishTasksAndInvalidate()
    }

    @Test func aBodyOfUnknownLengthAsks() async throws {
        let session = session()
        let stream = BytesStream(body(300_000))
        let response = await session.uploadTask(with: try request(.put, port: Interop.scriptedPort, "/expect-1xx"),
                                                from: .stream(length: nil, stream)).response
        #expect(response.head?.status == 200)
        #expect(response.metrics.transactions.last?.expectContinue == .continued)
        let report = report(response.body)
        #expect(report?.got == 300_000 && report?.early == 0, "\(String(describing: response.body?.readableString))")
        await session.finishTasksAndInvalidate()
    }

    @Test func aMultipartUploadWithAFilePartWaitsForNginxs100() async throws {
        // The file part goes out with sendfile(2), after the 100.
        let path = Interop.www + "/random-1m.bin"
        var form = MultipartForm(boundary: MultipartBoundary("courier-expect-boundary")!)
        try form.appendField(name: "note", value: "two files")
        try form.appendFile(atPath: path, name: "a", fileName: "a.bin", mimeType: "application/octet-stream", fileSystem: PosixFileSystem())
        try form.appendFile(atPath: path, name: "b", fileName: "b.bin", mimeType: "application/octet-stream", fileSystem: PosixFileSystem())
        let session = session()
        let response = await session.uploadTask(with: try request(.post, port: Interop.nginxPort, "/upload"),
                                                from: .multipart(form)).response
        #expect(response.head?.status == 204, "\(response.result)")
        #expect(response.metrics.transactions.last?.expectContinue == .continued)
        #expect(response.metrics.bytesSent == form.contentLength)
        await session.finishTasksAndInvalidate()
    }

    // MARK: Scripted servers

    @Test func aServerThatIgnoresExpectCostsTheTimeoutThenGetsTheBody() async throws {
        let session = session()
        let started = ContinuousClock.now
        let response = await session.uploadTask(with: try request(.put, port: Interop.scriptedPort, "/expect-ignore"),
                                                from: .bytes(body(2 * Self.mebibyte))).response
        let elapsed = ContinuousClock.now - started
        #expect(response.head?.status == 200, "\(response.result)")
        #expect(response.metrics.transactions.last?.expectContinue == .timedOut)
        let report = report(response.body)
        #expect(report?.got == 2 * Self.mebibyte)
        // The body waited for the default second, and not much more: never a hang.
        #expect((report?.wait ?? 0) >= 900, "\(String(describing: report))")
        #expect(elapsed < .seconds(10))
        await session.finishTasksAndInvalidate()
    }

    @Test func theTimeoutIsConfigurablePerRequest() async throws {
        let session = session()
        var request = try request(.put, port: Interop.scriptedPort, "/expect-ignore")
        request.expectContinue = ExpectContinuePolicy(timeout: .milliseconds(200))
        let response = await session.uploadTask(with: request, from: .bytes(body(2 * Self.mebibyte))).response
        #expect(response.metrics.transactions.last?.expectContinue == .timedOut)
        let report = report(response.body)
        #expect(report?.got == 2 * Self.mebibyte)
        #expect((report?.wait ?? 0) >= 150 && (report?.wait ?? 10_000) < 900, "\(String(describing: report))")
        await session.finishTasksAndInvalidate()
    }

    @Test func aRequestCanDoWithoutTheExpectation() async throws {
        let session = session()
        var request = try request(.put, port: Interop.scriptedPort, "/expect-ignore")
        request.expectContinue = .never
        let response = await session.uploadTask(with: request, from: .bytes(body(2 * Self.mebibyte))).response
        #expect(response.metrics.transactions.last?.expectContinue == nil)
        let report = report(response.body)
        #expect(report?.got == 2 * Self.mebibyte)
        #expect((report?.wait ?? 10_000) < 500, "the body went at once: \(String(describing: report))")
        await session.finishTasksAndInvalidate()
    }

    @Test func interim102And103AreSkippedAndTheBodyWaitsFor100() async throws {
        let session = session()
        let progress = Mutex<[UInt64]>([])
        let task = session.uploadTask(with: try request(.post, port: Interop.scriptedPort, "/expect-1xx"),
                                      from: .bytes(body(3 * Self.mebibyte)))
        task.setProgressHandler(upload: { p in progress.withLock { $0.append(p.completed) } }, download: nil)
        let response = await task.response
        #expect(response.head?.status == 200, "\(response.result)")
        #expect(response.metrics.transactions.last?.expectContinue == .continued)
        let report = report(response.body)
        #expect(report?.got == 3 * Self.mebibyte)
        #expect(report?.early == 0, "no body byte before the 100 (the server paused 300 ms after its 103)")
        #expect(progress.withLock { $0.last } == UInt64(3 * Self.mebibyte))
        await session.finishTasksAndInvalidate()
    }

    @Test func a417IsAnsweredBySendingTheRequestAgainWithoutExpect() async throws {
        let session = session()
        let response = await session.uploadTask(with: try request(.put, port: Interop.scriptedPort, "/expect-417"),
                                                from: .bytes(body(2 * Self.mebibyte))).response
        #expect(response.head?.status == 200, "\(response.result)")
        let transactions = response.metrics.transactions
        #expect(transactions.count == 2)
        #expect(transactions.first?.expectContinue == .finalResponse)
        #expect(transactions.last?.expectContinue == nil, "the second request does not ask")
        let report = report(response.body)
        #expect(report?.got == 2 * Self.mebibyte)
        await session.finishTasksAndInvalidate()
    }

    @Test func anEarly413StopsTheUploadAndIsTheAnswer() async throws {
        let session = session()
        let progress = Mutex<[UInt64]>([])
        let task = session.uploadTask(with: try request(.put, port: Interop.scriptedPort, "/expect-413"),
                                      from: .bytes(body(8 * Self.mebibyte)))
        task.setProgressHandler(upload: { p in progress.withLock { $0.append(p.completed) } }, download: nil)
        let response = await task.response
        #expect(response.head?.status == 413, "\(response.result)")
        #expect(response.body?.readableString == "too big\n")
        #expect(response.metrics.transactions.count == 1, "a 413 is not sent again")
        #expect(response.metrics.transactions.last?.expectContinue == .finalResponse)
        #expect(response.metrics.bytesSent == 0)
        #expect(progress.withLock { $0.allSatisfy { $0 == 0 } }, "no upload progress before a 100 that never came")
        await session.finishTasksAndInvalidate()
    }

    @Test func theConnectionAPIStopsAtAnEarlyResponseAndCloses() async throws {
        let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: Interop.scriptedPort, options: Interop.options())
        try await connection.sendHead(method: .put, target: "/expect-413", headers: ["Expect": "100-continue"],
                                      body: .known(UInt64(4 * Self.mebibyte)))
        let error = await connectionError { try await connection.writeBody(body(Self.mebibyte)) }
        #expect(error?.code == .earlyResponse)
        let response = try await connection.receiveResponse()
        #expect(response.head.status == 413)
        #expect(response.expectContinue == .finalResponse)
        #expect(try await response.body.collect(upTo: 64).readableString == "too big\n")
        #expect(!connection.isReusable)
        await connection.close()
    }
}

/// A replayable in-memory stream (a fresh reader per attempt).
struct BytesStream: MultipartStream {
    let bytes: ByteBuffer
    init(_ bytes: ByteBuffer) { self.bytes = bytes }

    func makeReader() throws -> any MultipartStreamReader { Reader(remaining: bytes) }

    struct Reader: MultipartStreamReader {
        var remaining: ByteBuffer
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let n = min(buffer.count, remaining.readableBytes)
            guard n > 0 else { return 0 }
            let slice = remaining.readSlice(length: n)!
            slice.withUnsafeReadableBytes { buffer.copyMemory(from: $0) }
            return n
        }
    }
}
