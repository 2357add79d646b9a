// TaskBinding: the logic of AFNetworking's UIProgressView+AFNetworking and
// UIActivityIndicatorView+AFNetworking (and of UIRefreshControl's) without UIKit (issue 16): a
// consumer object mirrors the progress and the activity of the latest task bound to it.
//
// - Binding a task to a target that already has one cancels the previous task (unless it is the
//   same task) and stops mirroring it: nothing of the old task reaches the target afterwards.
// - Progress: every upload and download progress value, in order (the task's progress streams,
//   so a progress handler the caller set on the task stays in place).
// - Activity: true while the task runs, false while it is suspended and when it completes, as
//   AFNetworking's spinner starts on the did-resume notification and stops on did-suspend and
//   did-complete. It follows the task's state stream (`stateChanges()`): the state when bound, then
//   each resume and suspension; a change is delivered only when the activity changes. The final
//   false comes when the download progress stream ends, after every progress value.
//
// The target→task association is a table keyed by ObjectIdentifier(target) whose entries hold
// the target WEAKLY (see ResourceBinding.swift for why there): a binding never keeps a target
// alive, and the watchers of a task whose target has gone stop delivering.

import Synchronization

/// What a ``TaskBinding`` delivers to its target.
public enum TaskBindingUpdate: Sendable, Hashable {
    /// Whether the task is active (AFNetworking's animating spinner).
    case activity(Bool)
    /// Bytes sent so far (`setProgressWithUploadProgressOfTask:`).
    case uploadProgress(TransferProgress)
    /// Bytes received so far (`setProgressWithDownloadProgressOfTask:`).
    case downloadProgress(TransferProgress)
}

/// Ties consumer objects to the latest task made for each, mirroring its progress and activity
/// (AFNetworking's UIProgressView and UIActivityIndicatorView categories, without UIKit).
public final class TaskBinding<Target: AnyObject & Sendable>: Sendable {
    /// Receives each update for a target.
    public typealias Apply = @Sendable (Target, TaskBindingUpdate) -> Void

    private let apply: Apply
    private let executor: CallbackExecutor
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
    private let generations = Atomic<UInt64>(0)

    private struct Entry: Sendable {
        weak var target: Target?
        var generation: UInt64
        var task: any SessionTask
        var watchers: [Task<Void, Never>]
        var active: Bool
    }

    /// What binding a task found for its target.
    private enum Binding: Sendable {
        case alreadyBound
        case bound(previous: Entry?)
    }

    /// Creates a binding.
    /// - Parameters:
    ///   - executor: where `apply` runs (default: at once, in the task that watches the transfer, or
    ///     the caller's for the first update). Updates keep their order with `.immediate` or a
    ///     serial executor; `.task` starts each in its own task, unordered.
    ///   - apply: receives every update for a target.
    public init(on executor: CallbackExecutor = .immediate, apply: @escaping Apply) {
        self.executor = executor
        self.apply = apply
    }

    /// Binds `task` to `target`: the target's previous task is cancelled (unless it is `task`), and
    /// the target mirrors this task's activity and progress from now on.
    /// - Parameters:
    ///   - task: the task (resumed or not).
    ///   - target: the consumer object; held weakly.
    public func bind(_ task: any SessionTask, to target: Target) {
        let id = ObjectIdentifier(target)
        let generation = generations.wrappingAdd(1, ordering: .relaxed).newValue
        let running = task.state == .running
        var released: [Entry] = []
        let binding = entries.withLock { table -> Binding in
            released = Self.prune(&table)
            let old = table[id].flatMap { $0.target === target ? $0 : nil }
            if let old, old.task === task { return .alreadyBound }
            table[id] = Entry(target: target, generation: generation, task: task, watchers: [], active: running)
            return .bound(previous: old)
        }
        for entry in released { entry.watchers.forEach { $0.cancel() } }
        guard case .bound(let previous) = binding else { return }
        if let previous {
            previous.watchers.forEach { $0.cancel() }
            if previous.task.state != .completed { previous.task.cancel() }
        }
        deliver(.activity(running), to: id, generation: generation)
        let states = Task { [weak self] in
            for await state in task.stateChanges() {
                guard let self else { return }
                switch state {
                case .running: self.setActive(true, id, generation: generation)
                case .suspended: self.setActive(false, id, generation: generation)
                // Cancelling winds down what ran; completion is told by the download watcher.
                case .canceling, .completed: break
                }
            }
        }
        let download = Task { [weak self] in
            for await progress in task.downloadProgress() {
                guard let self else { return }
                self.deliver(.downloadProgress(progress), to: id, generation: generation)
            }
            // The stream ends when the task completes.
            guard let self, !Task.isCancelled else { return }
            self.complete(id, generation: generation)
        }
        let upload = Task { [weak self] in
            for await progress in task.uploadProgress() {
                guard let self else { return }
                self.deliver(.uploadProgress(progress), to: id, generation: generation)
            }
        }
        entries.withLock { table in
            if table[id]?.generation == generation { table[id]?.watchers = [states, download, upload] } else {
                states.cancel()
                download.cancel()
                upload.cancel()
            }
        }
    }

    /// Stops mirroring the target's task and cancels it (AFNetworking cancels nothing here; a
    /// consumer that wants the task to go on calls ``unbind(_:)``).
    /// - Parameter target: the target.
    public func cancelTask(for target: Target) {
        if let entry = remove(target) {
            entry.task.cancel()
        }
    }

    /// Stops mirroring the target's task and leaves the task running.
    /// - Parameter target: the target.
    public func unbind(_ target: Target) {
        _ = remove(target)
    }

    /// The task bound to `target`, if one is (and has not completed).
    /// - Parameter target: the target.
    /// - Returns: the task, or nil.
    public func task(for target: Target) -> (any SessionTask)? {
        entries.withLock { table in
            guard let entry = table[ObjectIdentifier(target)], entry.target === target else { return nil }
            return entry.task
        }
    }

    /// How many entries the table holds, dead targets included until the next change prunes them
    /// (for tests that check that nothing is kept).
    public var tableSize: Int { entries.withLock { $0.count } }

    // MARK: Internals

    private func remove(_ target: Target) -> Entry? {
        let entry = entries.withLock { table -> Entry? in
            guard let entry = table[ObjectIdentifier(target)], entry.target === target else { return nil }
            table[ObjectIdentifier(target)] = nil
            return entry
        }
        entry?.watchers.forEach { $0.cancel() }
        return entry
    }

    /// The target of `generation`'s binding, if it is still the current one and the target lives.
    private func currentTarget(_ id: ObjectIdentifier, generation: UInt64, removing: Bool = false) -> Target? {
        entries.withLock { table in
            guard let entry = table[id], entry.generation == generation else { return nil }
            if removing { table[id] = nil }
            return entry.target
        }
    }

    /// Delivers `update` on the executor when `generation` is still the target's binding.
    private func deliver(_ update: TaskBindingUpdate, to id: ObjectIdentifier, generation: UInt64) {
        let apply = self.apply
        executor.run { [weak self] in
            if let target = self?.currentTarget(id, generation: generation) { apply(target, update) }
        }
    }

    /// The task was resumed (`true`) or suspended (`false`): delivered when the activity changes.
    private func setActive(_ active: Bool, _ id: ObjectIdentifier, generation: UInt64) {
        let changed = entries.withLock { table -> Bool in
            guard table[id]?.generation == generation, table[id]?.active != active else { return false }
            table[id]?.active = active
            return true
        }
        if changed { deliver(.activity(active), to: id, generation: generation) }
    }

    /// The task completed: the binding ends and the target is told it is no longer active, in one
    /// job on the executor (after every progress update queued before it).
    private func complete(_ id: ObjectIdentifier, generation: UInt64) {
        let apply = self.apply
        executor.run { [weak self] in
            if let target = self?.currentTarget(id, generation: generation, removing: true) { apply(target, .activity(false)) }
        }
    }

    private static func prune(_ table: inout [ObjectIdentifier: Entry]) -> [Entry] {
        var released: [Entry] = []
        for (id, entry) in table where entry.target == nil {
            released.append(entry)
            table[id] = nil
        }
        return released
    }
}
