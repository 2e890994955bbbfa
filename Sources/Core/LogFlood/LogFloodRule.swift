// How many log lines a flood may cost: lines anyone can cause (a connection reset, junk, a
// refused client) pass up to a number per message and in all per window; the rest are counted,
// to be said in one line each once the window is over. Lines marked as audit always pass. Pure:
// listd-web's log handler and listd's refusals each carry it out.
/// The rule, without I/O: which line passes, and what to say of those that did not.
public struct LogFloodRule: Sendable {
    /// How long a count lasts.
    public var window: Duration
    /// Lines of one message per window, and of all messages.
    public var perMessage: Int
    public var total: Int

    public init(window: Duration = .seconds(60), perMessage: Int = 20, total: Int = 200) {
        self.window = window
        self.perMessage = perMessage
        self.total = total
    }

    private var windowStart: ContinuousClock.Instant?
    private var counts: [String: Int] = [:]
    private var passed = 0
    private var suppressed: [String: Int] = [:]

    /// Lines of one message that were not logged in a window that ended.
    public struct Suppressed: Sendable, Equatable {
        public var message: String
        public var count: Int
    }

    /// Whether a line with `message` passes now; and, when a window ended before it, what that
    /// window suppressed (to be said first).
    public mutating func admit(_ message: String, audit: Bool, now: ContinuousClock.Instant) -> (passes: Bool, ended: [Suppressed]) {
        let ended = endWindowIfOver(now: now)
        if audit { return (true, ended) }
        if windowStart == nil { windowStart = now }
        let count = counts[message, default: 0]
        guard count < perMessage, passed < total else {
            suppressed[message, default: 0] += 1
            return (false, ended)
        }
        counts[message] = count + 1
        passed += 1
        return (true, ended)
    }

    /// What the window that ended by `now` suppressed (nothing while it lasts); a new one starts.
    public mutating func endWindowIfOver(now: ContinuousClock.Instant) -> [Suppressed] {
        guard let start = windowStart, now - start >= window else { return [] }
        let ended = suppressed.map { Suppressed(message: $0.key, count: $0.value) }.sorted { $0.count > $1.count }
        windowStart = nil
        counts = [:]
        passed = 0
        suppressed = [:]
        return ended
    }

    public var isSuppressing: Bool { !suppressed.isEmpty }
}

