// Shared helpers for the session tests: the serialized parent suite (descriptor counts are
// process-wide), the loopback server under the shared descriptor lock, requests, temporary
// directories and files, replayable upload streams, and recorders for events and progress.

import Courier
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierLoopbackServer
import CourierMultipart
import CourierTestSupport
import CourierURL
import Glibc
import Synchronization
import Testing

/// Every session test lives in a suite nested in this one, so they run one at a time.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SessionTests {}

/// Runs `body` with a loopback server; afterwards the server is shut down and every socket on its
/// port must be gone (a session that leaks a connection fails here).
func withServer(_ configuration: LoopbackServer.Configuration = .init(),
                _ body: (LoopbackServer) async throws -> Void) async throws {
    try await DescriptorTestLock.shared.withLock {
        let server = try await LoopbackServer.start(configuration)
        let port = server.port
        do {
            try await body(server)
        } catch {
            await server.shutdown()
            _ = await eventually(.seconds(2)) { openSockets(onPort: port) == 0 }
            throw error
        }
        await server.shutdown()
        _ = await eventually(.seconds(2)) { openSockets(onPort: port) == 0 }
    }
}

/// Scripts by path, for `LoopbackServer.Configuration(scripts:)`.
func scripted(_ scripts: [String: LoopbackScript]) -> LoopbackServer.Configuration {
    LoopbackServer.Configuration(scripts: scripts)
}

/// A session with a short connect timeout (and whatever `configure` changes).
func makeSession(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
    var configuration = SessionConfiguration()
    configuration.connectTimeout = .seconds(5)
    configuration.idleTimeout = .seconds(20)
    configure(&configuration)
    return Session(configuration: configuration)
}

extension LoopbackServer {
    /// `http://127.0.0.1:port` + `path`.
    func url(_ path: String, host: String = "127.0.0.1") -> URI {
        try! URI(parsing: "\(usesTLS ? "https" : "http")://\(host):\(port)\(path)")
    }

    /// A GET of `path` on this server.
    func request(_ path: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPRequest {
        request(.get, path, headers: headers)
    }

    /// A request to `path` on this server.
    func request(_ method: HTTPMethod, _ path: String, headers: HTTPHeaders = HTTPHeaders(),
                 body: HTTPRequest.Body = .none) -> HTTPRequest {
        HTTPRequest(method: method, uri: url(path), headers: headers, body: body)
    }
}

/// The body the server's pattern routes send: byte i is "a" + i mod 26.
func pattern(_ count: Int, from start: Int = 0) -> [UInt8] {
    (start..<(start + count)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
}

/// Whether `buffer` is `count` bytes of the pattern.
func isPattern(_ buffer: ByteBuffer?, count: Int) -> Bool {
    guard let buffer, buffer.readableBytes == count else { return false }
    return buffer.withUnsafeReadableBytes { raw in
        for i in 0..<count where raw[i] != UInt8(ascii: "a") + UInt8(i % 26) { return false }
        return true
    }
}

/// Expects `result` to be a failure and returns its error.
func failure<T>(_ result: Result<T, SessionError>, sourceLocation: SourceLocation = #_sourceLocation) -> SessionError? {
    switch result {
    case .success(let value):
        Issue.record("expected a failure, got \(value)", sourceLocation: sourceLocation)
        return nil
    case .failure(let error):
        return error
    }
}

// MARK: Files

/// A fresh directory under /tmp; remove it with `removeTree`.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/courier-session-test.XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let made = mkdtemp(buffer.baseAddress!) else { preconditionFailure("mkdtemp failed") }
        return String(cString: made)
    }
}

/// The names in `directory` (without "." and "..").
func listDirectory(_ directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// Removes a directory of plain files.
func removeTree(_ directory: String) {
    for name in listDirectory(directory) { unlink(directory + "/" + name) }
    rmdir(directory)
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    guard let file = fopen(path, "wb") else { preconditionFailure("cannot create \(path)") }
    if !bytes.isEmpty { _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, bytes.count, file) } }
    fclose(file)
}

/// The file's bytes, or nil when it does not exist.
func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 65536, file) }
        if n == 0 { break }
        out += chunk[0..<n]
    }
    return out
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

// MARK: Upload streams

/// A replayable stream of `count` pattern bytes, read in pieces of at most `piece` bytes.
struct PatternStream: UploadStream {
    let count: Int
    var piece = 10_000
    /// Counts the readers made (one per attempt).
    let readers = Counter()

    init(count: Int, piece: Int = 10_000) {
        self.count = count
        self.piece = piece
    }

    struct Reader: MultipartStreamReader {
        let count: Int
        let piece: Int
        var position = 0
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let n = min(buffer.count, piece, count - position)
            for i in 0..<n { buffer[i] = UInt8(ascii: "a") + UInt8((position + i) % 26) }
            position += n
            return n
        }
    }

    func makeReader() throws -> any MultipartStreamReader {
        readers.increment()
        return Reader(count: count, piece: piece)
    }
}

// MARK: Recorders

/// A counter shared across threads.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Collects values from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Whether progress values only grow and the last one is `total` of `total`.
func isMonotonicToTotal(_ values: [TransferProgress], total: UInt64) -> Bool {
    guard let last = values.last, last.completed == total, last.total == total else { return false }
    for (a, b) in zip(values, values.dropFirst()) where b.completed < a.completed { return false }
    return values.allSatisfy { $0.completed <= total }
}

/// Collects a session's events until the stream ends (after `.invalidated`).
final class EventLog: Sendable {
    private let recorder = Recorder<SessionEvent>()
    private let done: Task<Void, Never>

    init(_ session: Session) {
        let stream = session.events()
        let recorder = self.recorder
        done = Task {
            for await event in stream { recorder.append(event) }
        }
    }

    /// Waits for the stream to end (the session must be invalidated) and returns every event.
    func finished() async -> [SessionEvent] {
        await done.value
        return recorder.all
    }

    var soFar: [SessionEvent] { recorder.all }
}

extension SessionEvent {
    /// A short text for comparisons: "resumed 1", "completed 1 ok", "completed 2 cancelled", ….
    var summary: String {
        switch self {
        case .taskResumed(let id): return "resumed \(id)"
        case .taskSuspended(let id): return "suspended \(id)"
        case .taskCompleted(let completion):
            return "completed \(completion.identifier) \(completion.error.map { "\($0.code)" } ?? "ok")"
        case .downloadMoved(let id, let path): return "moved \(id) \(path)"
        case .downloadMoveFailed(let id, let error): return "move failed \(id) \(error.code)"
        case .invalidated: return "invalidated"
        }
    }
}

// MARK: Descriptors

// MARK: Raw requests

/// The request as the server received it, written back as HTTP/1.1 bytes (head and decoded body).
func wireText(_ request: LoopbackRequest) -> [UInt8] {
    var text = "\(request.method) \(request.target) HTTP/\(request.version.major).\(request.version.minor)\r\n"
    for field in request.headers { text += "\(field.name): \(field.value)\r\n" }
    text += "\r\n"
    return Array(text.utf8) + request.body
}

/// Finds a header's value in an /echo JSON reply (`"headers":[["Name","value"],…]`).
func echoedHeader(_ json: JSONValue?, _ name: String) -> String? {
    guard let fields = json?["headers"]?.arrayValue else { return nil }
    for field in fields {
        if let key = field[0]?.stringValue, key.lowercased() == name.lowercased() { return field[1]?.stringValue }
    }
    return nil
}

extension Result {
    /// The value of a success, nil for a failure.
    var successValue: Success? { try? get() }
}
