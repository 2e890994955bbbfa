/// Decides when a save of the list file is over: a pure state machine, so the timing rules are
/// tested without files or clocks.
///
/// Every event restarts a quiet period; the file is read once nothing has happened for that
/// long and no writer still has it open. Close-after-write, a rename onto the name and a delete
/// mark a save complete; a write without a close so far means a writer is mid-save (a script
/// writing in pieces), and the read waits for the close, up to `openWriterLimit` after the last
/// write for writers that never close.
struct SettleTracker {
    enum Event: Equatable {
        /// Written to (or created): a writer may still be at work.
        case written
        /// Closed after writing, renamed onto the name, or deleted: a save ended.
        case completed
        /// Events were lost (queue overflow): read once things are quiet.
        case overflowed
    }

    enum Action: Equatable {
        /// Nothing to do now.
        case none
        /// Check again at this time.
        case checkAt(ContinuousClock.Instant)
        /// The save is over: read the file.
        case read
    }

    let quietPeriod: Duration
    let openWriterLimit: Duration
    private(set) var lastEvent: ContinuousClock.Instant?
    private var writerOpen = false
    private var checkScheduled = false

    init(quietPeriod: Duration, openWriterLimit: Duration = .seconds(2)) {
        self.quietPeriod = quietPeriod
        self.openWriterLimit = max(openWriterLimit, quietPeriod)
    }

    var isSettled: Bool { lastEvent == nil }

    mutating func record(_ event: Event, at now: ContinuousClock.Instant) -> Action {
        lastEvent = now
        switch event {
        case .written: writerOpen = true
        case .completed, .overflowed: writerOpen = false
        }
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
        let due = lastEvent + (writerOpen ? openWriterLimit : quietPeriod)
        if now < due { return .checkAt(due) }
        self.lastEvent = nil
        writerOpen = false
        checkScheduled = false
        return .read
    }
}
