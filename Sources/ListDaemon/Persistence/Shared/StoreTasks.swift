// The shared store's background work — each operation on the server, the LISTEN, the reconnections,
// a doubt's check — as child tasks of one task the store owns from `open` to `stop`: nothing it
// starts outlives it, and its stop waits for all of it. (PostgresNIO's API is async and the owner's
// is futures: each operation is a child here, its result handed to the owner's promise.)

/// Runs work as children of one task, until `finish`.
final class StoreTasks: Sendable {
    typealias Work = @Sendable () async -> Void

    private let work: AsyncStream<Work>.Continuation
    private let root: Task<Void, Never>

    init() {
        let (stream, work) = AsyncStream.makeStream(of: Work.self)
        self.work = work
        root = Task {
            await withDiscardingTaskGroup { group in
                for await next in stream { group.addTask { await next() } }
            }
        }
    }

    /// Starts `body` beside the others; false when the store has stopped (nothing is started).
    @discardableResult
    func run(_ body: @escaping Work) -> Bool {
        if case .terminated = work.yield(body) { return false }
        return true
    }

    /// Takes no more work and returns once what runs has ended.
    func finish() async {
        work.finish()
        await root.value
    }
}
