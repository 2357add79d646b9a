// Nothing blocks the cooperative pool (design §4): with the pool held to one free thread
// (LIBDISPATCH_COOPERATIVE_POOL_STRICT=1 keeps it from growing past one thread per CPU — read when
// the process starts, hence a child process — and the test occupies all but one), an
// upload whose body waits on a FIFO that nobody has opened yet — open(2) itself blocks — must not
// stop other tasks of the same session. Before request bodies were read on a blocking-I/O thread,
// the FIFO's open ran on the one pool thread and every other task stood still until the child was
// killed at its limit.

import Courier
import CourierBytes
import CourierLoopbackServer
import CourierMultipart
import CourierPosix
import CourierTestSupport
import Glibc
import Synchronization
import Testing

extension SessionTests {
    @Suite struct StrictPool {
        @Test func aBlockedUploadReadLeavesOtherTasksRunning() async throws {
            let outcome = await QuietProcess.run(filter: "StrictPoolChild", limit: .seconds(45),
                                                 environment: ["LIBDISPATCH_COOPERATIVE_POOL_STRICT": "1", "COURIER_STRICT_POOL_CHILD": "1"])
            #expect(outcome.passed, "the strict-pool child failed (status \(outcome.status.map(String.init) ?? "killed")):\n\(outcome.output.suffix(6000))")
        }
    }
}

/// A stream body read from a FIFO with blocking open and read, as `-T FIFO` reads one.
struct FIFOStream: UploadStream {
    let path: String
    var isReplayable: Bool { false }

    func makeReader() throws -> any MultipartStreamReader { Reader(path: path) }

    struct Reader: MultipartStreamReader {
        let path: String
        var fd: CInt = -1

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            if fd < 0 {
                fd = open(path, O_RDONLY)  // blocks until a writer opens the FIFO
                if fd < 0 { throw Errno(rawValue: errno) }
            }
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n < 0 { throw Errno(rawValue: errno) }
            if n == 0 { close(fd); fd = -1 }
            return n
        }
    }
}

/// The blockers' start count and stop signal.
final class BlockerFlags: Sendable {
    let started = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
}

/// Runs only in the child started by `aBlockedUploadReadLeavesOtherTasksRunning`.
@Suite(.enabled(if: QuietProcess.isChild && getenv("COURIER_STRICT_POOL_CHILD") != nil), .timeLimit(.minutes(1)))
struct StrictPoolChild {
    @Test func otherTasksProgressWhileAnUploadWaitsOnAFIFO() async throws {
        // The setting stops the pool from growing past one thread per CPU; all but one of those
        // are taken here by tasks that block their threads until the end, so the test runs on one.
        let width = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let flags = BlockerFlags()
        var blockers: [Task<Void, Never>] = []
        for _ in 0..<max(0, width - 1) {
            blockers.append(Task.detached {
                flags.started.add(1, ordering: .relaxed)
                while !flags.stop.load(ordering: .relaxed) { usleep(5_000) }
            })
        }
        defer { flags.stop.store(true, ordering: .relaxed) }
        while flags.started.load(ordering: .relaxed) < width - 1 { try await Task.sleep(for: .milliseconds(5)) }
        // That one thread is all there is (else this test proves nothing): two tasks that each
        // block their thread for 150 ms run one after the other.
        let clock = ContinuousClock()
        let start = clock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 { group.addTask { usleep(150_000) } }
        }
        #expect(clock.now - start >= .milliseconds(290), "two blocking tasks overlapped: the pool has more than one thread")
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let fifo = directory + "/slow"
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Recorder<LoopbackRequest>()
        try await withServer(scripted(["/upload": { request in
            received.append(request)
            return [.response(body: "stored")]
        }])) { server in
            let session = makeSession()
            let upload = session.uploadTask(with: server.request(.post, "/upload"), from: .stream(length: nil, FIFOStream(path: fifo)))
            upload.resume()
            // The upload's reader now waits in open(2). Twenty GETs on the same session must
            // still finish: the pool's one thread is free.
            for index in 0..<20 {
                let body = try await session.dataTask(with: server.request("/echo?n=\(index)")).value
                #expect(body.readableBytes >= 0)
            }
            #expect(received.all.isEmpty, "the upload cannot have finished: its FIFO has no writer yet")
            // Now a writer: the reader's open returns, it reads the bytes, then the end.
            let writer = open(fifo, O_WRONLY)
            #expect(writer >= 0)
            let text = Array("from the fifo".utf8)
            #expect(write(writer, text, text.count) == text.count)
            close(writer)
            let answer = try await upload.value
            #expect(answer.readableString == "stored")
            #expect(received.all.first?.body == text)
            await session.finishTasksAndInvalidate()
        }
        flags.stop.store(true, ordering: .relaxed)
        for blocker in blockers { await blocker.value }
    }
}
