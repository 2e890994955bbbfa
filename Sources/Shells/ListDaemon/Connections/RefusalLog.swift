// The log lines of clients listd turns away or lets go (not allowed, over a connection limit,
// idle): anyone allowed to reach the socket can cause thousands a second, so the first lines of
// each kind a minute are written and the rest counted and said once the minute is over.
import ListRPCTransport
import LogFlood
import Logging
import NIOCore
import Synchronization

/// Writes refusal lines under a `LogFloodRule` (10 of each reason, 20 in all, a minute).
final class RefusalLog: Sendable {
    private let logger: Logger
    private let rule = Mutex(LogFloodRule(window: .seconds(60), perMessage: 10, total: 20))
    /// A summary of lines held back is scheduled for the window's end.
    private let summaryDue = Mutex(false)

    init(logger: Logger) {
        self.logger = logger
    }

    /// Logs "`what`: `why` (pid, uid)" for `peer` unless the flood rule holds it back; `loop`
    /// runs the summary of those held back once the minute is over.
    func log(_ what: String, why: String, peer: PeerCredentials, on loop: any EventLoop) {
        let (passes, ended) = rule.withLock { $0.admit("\(what): \(why)", audit: false, now: .now) }
        sayHeldBack(ended)
        if !passes, summaryDue.withLock({ due in defer { due = true }; return !due }) {
            loop.scheduleTask(in: .seconds(60)) {
                self.summaryDue.withLock { $0 = false }
                self.sayHeldBack(self.rule.withLock { $0.endWindowIfOver(now: .now) })
            }
        }
        if passes {
            logger.warning(
                "\(what): \(why) (pid \(peer.pid), uid \(peer.uid))",
                metadata: ["client_pid": "\(peer.pid)", "client_uid": "\(peer.uid)"]
            )
        }
    }

    private func sayHeldBack(_ ended: [LogFloodRule.Suppressed]) {
        for held in ended {
            logger.warning(
                "\(held.count) more client(s) in the last minute, not logged one by one: \(held.message)",
                metadata: ["suppressed": "\(held.count)"]
            )
        }
    }
}
