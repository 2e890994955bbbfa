// The shared store's background work — each operation on the server, the LISTEN, the reconnections,
// a doubt's check — as child tasks of one task the store owns from `open` to `stop`: nothing it
// starts outlives it, and its stop waits for all of it. (PostgresNIO's API is async and the owner's
// is futures: each operation is a child here, its result handed to the owner's promise.)
import NIOCore
import NIOPosix

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

    /// Takes no more work and returns once what runs has ended, or once `bound` has passed
    /// (false): the rest is cancelled and not waited for. A query PostgresNIO took just as its
    /// connection closed has been seen to wait forever, and a stop must not wait with it.
    func finish(within bound: Duration) async -> Bool {
        work.finish()
        // Whichever ends first, the work or the bound (`Once`, as an operation and its deadline).
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let promise = loop.makePromise(of: Bool.self)
        let once = Once(promise)
        let root = self.root
        let timer = loop.scheduleTask(in: TimeAmount(bound)) {
            root.cancel()
            once.succeed(false)
        }
        once.ended { timer.cancel() }
        Task {
            await root.value
            once.succeed(true)
        }
        return (try? await promise.futureResult.get()) ?? false
    }
}
