// How many lines listd-web logs per minute: anyone who can reach its port can make it log
// (every reset, junk or evicted connection was an error line: 270,453 lines, 38 MB in one run),
// and under journald's rate limit such a flood would push out the lines an owner needs. A log
// handler that lets lines through as `LogFloodRule` says; pairing, lockout and revocation lines
// (marked `audit`) always pass.
import LogFlood
import Logging
import Synchronization

/// The metadata key that marks a line the gate always passes.
package let auditMetadataKey = "audit"

/// A `LogHandler` in front of another that lets a flood through only as `LogFloodRule` says,
/// and says what it held back: "N lines like “…” were not logged in the last 60 seconds".
package struct FloodGatedLogHandler: LogHandler {
    private var upstream: any LogHandler
    private let gate: Gate

    final class Gate: Sendable {
        let rule: Mutex<LogFloodRule>
        /// A summary is due once the window ends, whether or not anything else is logged then.
        let summaryScheduled = Mutex(false)

        init(_ rule: LogFloodRule) { self.rule = Mutex(rule) }
    }

    package init(wrapping upstream: any LogHandler, window: Duration = .seconds(60), perMessage: Int = 20, total: Int = 200) {
        self.upstream = upstream
        gate = Gate(LogFloodRule(window: window, perMessage: perMessage, total: total))
    }

    package func log(event: LogEvent) {
        let audit = event.metadata?[auditMetadataKey] != nil || upstream.metadata[auditMetadataKey] != nil
        let (passes, ended) = gate.rule.withLock { $0.admit(event.message.description, audit: audit, now: .now) }
        say(ended)
        if passes { upstream.log(event: event) } else { scheduleSummary() }
    }

    private func say(_ ended: [LogFloodRule.Suppressed]) {
        guard !ended.isEmpty else { return }
        let window = gate.rule.withLock { $0.window }
        for held in ended {
            upstream.log(
                event: LogEvent(
                    level: .warning,
                    message: "\(held.count) more line(s) like “\(held.message)” were not logged in the last \(window) (a flood)",
                    metadata: ["suppressed": "\(held.count)"], source: "ListWeb", file: #fileID, function: #function, line: #line
                )
            )
        }
    }

    /// One task per window says what it held back once it ends.
    private func scheduleSummary() {
        let due = gate.summaryScheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard due else { return }
        let (gate, handler) = (gate, self)
        let window = gate.rule.withLock { $0.window }
        Task {
            try? await Task.sleep(for: window)
            gate.summaryScheduled.withLock { $0 = false }
            handler.say(gate.rule.withLock { $0.endWindowIfOver(now: .now) })
        }
    }

    package var metadataProvider: Logger.MetadataProvider? {
        get { upstream.metadataProvider }
        set { upstream.metadataProvider = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { upstream[metadataKey: key] }
        set { upstream[metadataKey: key] = newValue }
    }

    package var metadata: Logger.Metadata {
        get { upstream.metadata }
        set { upstream.metadata = newValue }
    }

    package var logLevel: Logger.Level {
        get { upstream.logLevel }
        set { upstream.logLevel = newValue }
    }
}
