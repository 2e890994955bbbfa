// Swift's default executor for listd and listd-web: NIO's event loops, for jobs and for timed
// jobs (`Task.sleep`: service-lifecycle's cancellation timeout, Hummingbird's date cache,
// WebSocket pings) alike. The platform's default on Linux is libdispatch's worker pool, whose
// monitor aborts the process when it cannot open a file (as happened to listd-web when a flood
// of connections took every descriptor), and whose threads each try to raise their priority
// (refused under the units' sandbox: "Failed to set thread priority" at every listd stop).
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import NIOCore
import NIOPosix

struct LoopExecutorFactory: ExecutorFactory {
    /// The main thread only waits (each main.swift), so the platform's main executor never runs
    /// a job.
    static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
    static var defaultExecutor: any TaskExecutor { LoopGlobalExecutor.shared }
}

/// Runs each job on one of NIO's singleton loops (the one it is on, when it is on one); a timed
/// job as a scheduled task there.
final class LoopGlobalExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    static let shared = LoopGlobalExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        MultiThreadedEventLoopGroup.singleton.any().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        let job = UnownedJob(job)
        MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: Self.amount(delay)) {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    /// A clock's duration as NIO's (every clock listd-web's code sleeps on counts in `Duration`).
    private static func amount(_ duration: some DurationProtocol) -> TimeAmount {
        guard let duration = duration as? Duration else { return .zero }
        return TimeAmount(max(.zero, duration))
    }
}

/// Makes NIO's loops Swift's default executor: call first in main, before any task exists.
public func useLoopExecutors() {
    _createExecutors(factory: LoopExecutorFactory.self)
}
