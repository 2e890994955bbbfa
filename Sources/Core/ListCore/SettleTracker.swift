/// What the file watcher saw happen to the list file (listd's own writes left out).
package enum FileChange: Equatable, Sendable {
    /// Written to (or created): a writer may still be at work.
    case written
    /// Closed after writing, renamed onto the name, or deleted: a save ended.
    case completed
    /// Events were lost (queue overflow): read once things are quiet.
    case overflowed
}

/// Decides when a save of the list file is over: a pure state machine, kept by the core
/// (`FileState.settle`), so the timing rules are tested without files or clocks.
///
/// Every event restarts a quiet period; the file is read once nothing has happened for that
/// long and no writer still has it open. Close-after-write, a rename onto the name and a delete
/// mark a save complete; a write without a close so far means a writer is mid-save (a script
/// writing in pieces), and the read waits for the close, up to `openWriterLimit` after the last
/// write for writers that never close.
package struct SettleTracker: Sendable {
    typealias Event = FileChange

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
    /// The burst being settled: its first event and how many it had.
    private var burstStart: ContinuousClock.Instant?
    private var burstEvents = 0
    /// The last settled burst: how many events, and how long the save took, first event to last
    /// (what the quiet period must cover).
    private(set) var settledBurst: (events: Int, span: Duration)?

    init(quietPeriod: Duration, openWriterLimit: Duration) {
        self.quietPeriod = quietPeriod
        self.openWriterLimit = max(openWriterLimit, quietPeriod)
    }

    var isSettled: Bool { lastEvent == nil }

    mutating func record(_ event: Event, at now: ContinuousClock.Instant) -> Action {
        lastEvent = now
        if burstStart == nil { burstStart = now }
        burstEvents += 1
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
        settledBurst = (burstEvents, lastEvent - (burstStart ?? lastEvent))
        burstStart = nil
        burstEvents = 0
        self.lastEvent = nil
        writerOpen = false
        checkScheduled = false
        return .read
    }
}
