import ArgumentParser
import Glibc
import ListDaemon
import NIOCore
import NIOPosix

// listd reads SIGTERM, SIGINT and SIGHUP from a signalfd on an event loop (`ProcessSignals`):
// blocked here, before any thread exists, so that no thread takes them instead.
ProcessSignals.blockInEveryThread([SIGTERM, SIGINT, SIGHUP])

// Swift's tasks run on listd's event loops rather than on a pool of their own: an edit's task
// then starts and finishes on the loop that read its request, without a thread switch each way.
// (Blocking work goes to NIO's thread pool, never onto a task.) This must come before the first
// task exists.
NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

do {
    var command = try Listd.parseAsRoot()
    if let listd = command as? Listd {
        // The main thread only waits: listd runs as a task on NIO's loops. (An async main would
        // hand the main thread to libdispatch, whose main-queue thread waits with every signal
        // unblocked, so SIGTERM would kill listd instead of reaching the signalfd.)
        try MultiThreadedEventLoopGroup.singleton.any().makeFutureWithTask { try await listd.serve() }.wait()
    } else {
        try command.run()  // --help, --version
    }
} catch {
    Listd.exit(withError: error)
}
