import ListDaemon
import Logging
import ServiceLifecycle
import Systemd

/// Keeps the service manager informed: `READY=1` once listd serves, `STATUS=` after changes (the
/// owner tells them at most once a second), `RELOADING=1` then `READY=1` around a SIGHUP re-read, and `STOPPING=1` as
/// soon as a graceful shutdown begins. Runs last in the service group, so it is the first to
/// hear of the shutdown.
final class SystemdIntegration: Service, Sendable {
    private let notifier = ServiceNotifier()
    private let owner: ListOwner
    private let logger: Logger
    /// One element per SIGHUP (read by `ProcessSignals`; repeats while one is handled merge).
    private let hangups: AsyncStream<Void>

    init(owner: ListOwner, hangups: AsyncStream<Void>, logger: Logger) {
        self.owner = owner
        self.hangups = hangups
        self.logger = logger
        owner.onCommit { [weak self] summary in
            self?.report { () throws(SystemdError) in try self?.notifier.status(summary) }
        }
    }

    /// Called by the server once the socket accepts connections (the file is loaded by then).
    func ready() {
        report { () throws(SystemdError) in try notifier.ready(status: owner.summary) }
    }

    /// The watchdog keep-alive, sent from the event loops (see RPCServer).
    func watchdog() {
        report { () throws(SystemdError) in try notifier.watchdog() }
    }

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Ended by `cancelAll` below (not `cancelOnGracefulShutdown`, whose merge runs on a
                // task of its own on Swift's global executor: libdispatch's pool).
                for await _ in self.hangups {
                    self.logger.info("SIGHUP: re-reading the list file")
                    self.report { () throws(SystemdError) in try self.notifier.reloading() }
                    await self.owner.reload()
                    self.ready()
                }
            }
            try? await gracefulShutdown()
            report { () throws(SystemdError) in try notifier.stopping() }
            group.cancelAll()
        }
    }

    private func report(_ body: () throws(SystemdError) -> Void) {
        do {
            try body()
        } catch {
            logger.warning("could not notify the service manager: \(error)")
        }
    }
}
