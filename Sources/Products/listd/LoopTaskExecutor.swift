import NIOCore

/// Runs the jobs of Swift tasks on one NIO event loop. listd's few tasks (the service group and
/// its services' lifecycles) prefer it (`main.swift`), so none reaches Swift's global executor,
/// which on Linux is libdispatch's worker pool: once started, its monitor wakes the process every
/// second, idle or not.
final class LoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
