import ListDaemon
import Logging
import ServiceLifecycle
import Synchronization
import Systemd
import UnixSignals

/// Keeps the service manager informed: `READY=1` once listd serves, `STATUS=` after changes (at
/// most once a second), `RELOADING=1` then `READY=1` around a SIGHUP re-read, and `STOPPING=1` as
/// soon as a graceful shutdown begins. Runs last in the service group, so it is the first to
/// hear of the shutdown.
final class SystemdIntegration: Service, Sendable {
    private let notifier = ServiceNotifier()
    private let store: ListOwner
    private let logger: Logger
    private let lastStatus = Mutex<(sent: ContinuousClock.Instant?, pending: Bool)>((nil, false))

    init(store: ListOwner, logger: Logger) {
        self.store = store
        self.logger = logger
        store.onCommit { [weak self] _ in self?.statusChanged() }
    }

    /// Called by the server once the socket accepts connections (the file is loaded by then).
    func ready() {
        report { () throws(SystemdError) in try notifier.ready(status: store.summary) }
    }

    /// The watchdog keep-alive, sent from the event loops (see RPCServer).
    func watchdog() {
        report { () throws(SystemdError) in try notifier.watchdog() }
    }

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
                    self.logger.info("SIGHUP: re-reading the list file")
                    self.report { () throws(SystemdError) in try self.notifier.reloading() }
                    await self.store.reload()
                    self.ready()
                }
            }
            try? await gracefulShutdown()
            report { () throws(SystemdError) in try notifier.stopping() }
            group.cancelAll()
        }
    }

    private func statusChanged() {
        let sendNow = lastStatus.withLock { last in
            if let sent = last.sent, ContinuousClock.now - sent < .seconds(1) {
                if last.pending { return false }
                last.pending = true
                Task {
                    try? await Task.sleep(for: .seconds(1))
                    self.lastStatus.withLock { $0 = (.now, false) }
                    self.report { () throws(SystemdError) in try self.notifier.status(self.store.summary) }
                }
                return false
            }
            last.sent = .now
            return true
        }
        if sendNow { report { () throws(SystemdError) in try notifier.status(store.summary) } }
    }

    private func report(_ body: () throws(SystemdError) -> Void) {
        do {
            try body()
        } catch {
            logger.warning("could not notify the service manager: \(error)")
        }
    }
}
