import ArgumentParser
import NIOCore
import NIOPosix

// Swift's tasks run on listd's event loops rather than on a pool of their own: an edit's task
// then starts and finishes on the loop that read its request, without a thread switch each way.
// (Blocking work goes to NIO's thread pool, never onto a task.) This must come before the first
// task exists.
NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

do {
    var command = try Listd.parseAsRoot()
    if let listd = command as? Listd {
        try await listd.serve()
    } else {
        try command.run()  // --help, --version
    }
} catch {
    Listd.exit(withError: error)
}
