// TaskBinding and ResourceBinding (issue 16): the logic of AFNetworking's UIKit categories with a
// plain class as the target, over a real Session and the loopback server. Receipts (a new load for
// a target cancels the previous one and nothing of the old one is delivered), the placeholder at
// once, the cached value without a request, progress and activity mirrored from the task, and
// targets held weakly.

import Courier
import CourierBytes
import CourierLoopbackServer
import CourierTestSupport
import Synchronization
import Testing

/// A consumer object: records what it was given.
final class BoundCell: Sendable {
    let resources = Mutex<[String]>([])
    let updates = Mutex<[TaskBindingUpdate]>([])

    func record(_ update: ResourceBindingUpdate<ByteBuffer>) {
        let text = switch update {
        case .placeholder(let value): "placeholder \(value.readableBytes)"
        case .value(let value, let fromCache): "\(fromCache ? "cached" : "loaded") \(value.readableBytes)"
        case .failed(let error): "failed \(error.code)"
        }
        resources.withLock { $0.append(text) }
    }
}

/// Opens when told; fetches wait on it so that a load stays in flight while the test acts.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

extension SessionTests {
    @Suite struct Bindings {
        static func downloader(_ session: Session, gate: Gate, cache: AutoPurgingCache<String, ByteBuffer>) -> ResourceDownloader<ByteBuffer> {
            ResourceDownloader<ByteBuffer>(cache: cache) { request in
                await gate.wait()
                // A load cancelled while it waited (superseded) never reaches the server.
                try Task.checkCancellation()
                return try await session.dataTask(with: request).value
            }
        }

        @Test("ResourceBinding: placeholder at once, a new load cancels the old one, the cached value without a request")
        func resourceBinding() async throws {
            try await withServer { server in
                let session = makeSession()
                let gate = Gate()
                let cache = AutoPurgingCache<String, ByteBuffer>()
                let binding = ResourceBinding<BoundCell, ByteBuffer>(downloader: Self.downloader(session, gate: gate, cache: cache)) {
                    $0.record($1)
                }
                let cell = BoundCell()
                let first = binding.load(server.request("/bytes/10"), placeholder: ByteBuffer(string: "p"), into: cell)
                // The placeholder arrived before load returned.
                #expect(cell.resources.withLock { $0 } == ["placeholder 1"])
                #expect(first != nil && binding.activeReceipt(for: cell) == first)
                // The same request again: nothing new starts.
                #expect(binding.load(server.request("/bytes/10"), into: cell) == first)

                // A new request for the same cell supersedes the first: it is cancelled, never delivered.
                let second = binding.load(server.request("/bytes/20"), placeholder: ByteBuffer(string: "p"), into: cell)
                #expect(second != nil && second != first)
                #expect(!binding.downloader.cancel(first!), "the first receipt was already cancelled by the binding")
                gate.open()
                #expect(await eventually { cell.resources.withLock { $0.count } == 3 })
                try await Task.sleep(for: .milliseconds(100))
                #expect(cell.resources.withLock { $0 } == ["placeholder 1", "placeholder 1", "loaded 20"])
                #expect(binding.activeReceipt(for: cell) == nil && binding.tableSize == 0)
                let requests = server.requestCount
                #expect(requests == 1, "the superseded load never reached the server")

                // Cached: delivered at once, no placeholder, no request.
                let other = BoundCell()
                #expect(binding.load(server.request("/bytes/20"), placeholder: ByteBuffer(string: "p"), into: other) == nil)
                #expect(other.resources.withLock { $0 } == ["cached 20"])
                #expect(server.requestCount == requests)

                // A failure is delivered; a nil request cancels and shows the placeholder.
                _ = binding.load(server.request("/status/404"), into: other)
                #expect(await eventually { other.resources.withLock { $0.count } == 2 })
                #expect(other.resources.withLock { $0.last?.hasPrefix("failed") } == true)
                binding.load(nil, placeholder: ByteBuffer(string: "pp"), into: other)
                #expect(other.resources.withLock { $0.last } == "placeholder 2")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("ResourceBinding holds targets weakly: a target released mid-load is freed, its load cancelled")
        func resourceBindingIsWeak() async throws {
            try await withServer { server in
                let session = makeSession()
                let gate = Gate()
                let binding = ResourceBinding<BoundCell, ByteBuffer>(
                    downloader: Self.downloader(session, gate: gate, cache: AutoPurgingCache())) { $0.record($1) }
                weak var released: BoundCell?
                var receipt: DownloadReceipt?
                do {
                    let cell = BoundCell()
                    released = cell
                    receipt = binding.load(server.request("/bytes/10"), into: cell)
                }
                #expect(released == nil, "the binding must not keep its target alive")
                #expect(binding.activeTargetCount == 0)
                // The next change prunes the dead entry and cancels its download.
                let survivor = BoundCell()
                _ = binding.load(server.request("/bytes/30"), into: survivor)
                #expect(binding.tableSize == 1)
                #expect(!binding.downloader.cancel(receipt!), "the dead target's load was cancelled")
                gate.open()
                #expect(await eventually { survivor.resources.withLock { $0 } == ["loaded 30"] })
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("TaskBinding: progress and activity mirrored; a new task for the target cancels the old; weak targets")
        func taskBinding() async throws {
            try await withServer { server in
                let session = makeSession()
                let binding = TaskBinding<BoundCell> { cell, update in cell.updates.withLock { $0.append(update) } }
                let cell = BoundCell()

                // The first task is superseded before it runs: cancelled, and nothing of it is mirrored after.
                let old = session.dataTask(with: server.request("/bytes/1000000"))
                binding.bind(old, to: cell)
                #expect(cell.updates.withLock { $0 } == [.activity(false)])
                let task = session.dataTask(with: server.request("/bytes/1000000"))
                binding.bind(task, to: cell)
                #expect(binding.task(for: cell) === task)
                #expect(await old.response.result.failureValue?.code == .cancelled)
                task.resume()
                let response = await task.response
                #expect(response.result.successValue?.readableBytes == 1_000_000)
                #expect(await eventually { cell.updates.withLock { $0.last } == .activity(false) && binding.tableSize == 0 })
                let updates = cell.updates.withLock { $0 }
                let downloads = updates.compactMap { update -> UInt64? in
                    if case .downloadProgress(let progress) = update { return progress.completed }
                    return nil
                }
                #expect(!downloads.isEmpty && downloads == downloads.sorted() && downloads.last == 1_000_000, "\(downloads)")
                // Activity: off (old, not running), off (new, not running yet), on at resume, off at the end.
                let activity = updates.compactMap { update -> Bool? in
                    if case .activity(let on) = update { return on }
                    return nil
                }
                #expect(activity == [false, false, true, false], "\(activity)")

                // Weak: a target released while its task runs is freed; the task goes on.
                weak var released: BoundCell?
                let running = session.dataTask(with: server.request("/bytes/1000"))
                do {
                    let transient = BoundCell()
                    released = transient
                    binding.bind(running, to: transient)
                }
                #expect(released == nil, "the binding must not keep its target alive")
                running.resume()
                #expect(await running.response.result.successValue?.readableBytes == 1000)
                #expect(await eventually { binding.tableSize == 0 })
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
