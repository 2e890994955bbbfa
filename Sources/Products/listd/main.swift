import ArgumentParser
import Glibc
import ListDaemon
import LoopExecutors
import NIOCore
import NIOPosix

// listd reads SIGTERM, SIGINT and SIGHUP from a signalfd on an event loop (`ProcessSignals`):
// blocked here, before any thread exists, so that no thread takes them instead.
ProcessSignals.blockInEveryThread([SIGTERM, SIGINT, SIGHUP])
// Every task and timed job on NIO's loops, unstructured ones too (service-lifecycle's
// cancellation timeout sleeps in one): never libdispatch's worker pool.
useLoopExecutors()

do {
    var command = try Listd.parseAsRoot()
    if let listd = command as? Listd {
        // The main thread only waits: listd runs as a task on one of NIO's loops, and so do the
        // tasks it starts (`LoopTaskExecutor`). No async main: it would hand the main thread to
        // libdispatch, whose main-queue thread waits with every signal unblocked (SIGTERM would
        // kill listd instead of reaching the signalfd), and start its worker pool.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let served = loop.makePromise(of: Void.self)
        Task(executorPreference: LoopTaskExecutor(loop)) {
            do {
                try await listd.serve()
                served.succeed()
            } catch {
                served.fail(error)
            }
        }
        try served.futureResult.wait()
    } else {
        try command.run()  // --help, --version
    }
} catch {
    Listd.exit(withError: error)
}
