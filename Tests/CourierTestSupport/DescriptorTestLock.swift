// A process-wide async lock for tests that count the process's descriptors (CourierPosixTests'
// leak checks) and tests that open many sockets (the loopback server and connection tests). All
// test targets run in one process and suites of different targets run in parallel, so without it
// one target's sockets show up as another target's "leaks".

/// An async mutual-exclusion lock shared by every test target (FIFO; not re-entrant).
public actor DescriptorTestLock {
    /// The one lock.
    public static let shared = DescriptorTestLock()

    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` while holding the lock.
    /// - Parameter body: the work.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public nonisolated func withLock<R>(_ body: () async throws -> R) async rethrows -> R {
        await acquire()
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        if !held {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()  // ownership passes directly to the next waiter
        }
    }
}
