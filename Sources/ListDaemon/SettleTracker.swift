/// Decides when a burst of writes to the list file is over: a pure state machine, so the timing
/// rules are tested without files or clocks.
///
/// Every event restarts a quiet period; the file is read once nothing has happened for that
/// long. Editors finish a save in well under a millisecond (close-after-write or a rename mark the
/// end), so the quiet period only has to cover the gaps between one tool's system calls, and a
/// script that writes in pieces with pauses longer than it is read in between and then again.
struct SettleTracker {
    enum Action: Equatable {
        /// Nothing to do now.
        case none
        /// Check again at this time.
        case checkAt(ContinuousClock.Instant)
        /// The file has settled: read it.
        case read
    }

    let quietPeriod: Duration
    private(set) var lastEvent: ContinuousClock.Instant?
    private var checkScheduled = false

    init(quietPeriod: Duration) {
        self.quietPeriod = quietPeriod
    }

    var isSettled: Bool { lastEvent == nil }

    /// The list file was touched (or the event queue overflowed).
    mutating func touched(at now: ContinuousClock.Instant) -> Action {
        lastEvent = now
        if checkScheduled { return .none }
        checkScheduled = true
        return .checkAt(now + quietPeriod)
    }

    /// A scheduled check is due.
    mutating func check(at now: ContinuousClock.Instant) -> Action {
        guard let lastEvent else {
            checkScheduled = false
            return .none
        }
        let quietSince = lastEvent + quietPeriod
        if now < quietSince { return .checkAt(quietSince) }
        self.lastEvent = nil
        checkScheduled = false
        return .read
    }
}
