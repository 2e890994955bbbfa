// The table of timers and thresholds is what the core decides by: a core made with one changed
// follows the change, one made with the standard table does not.
import ListModel
import ListRPC
import Testing

@testable import ListCore

@Suite struct CoreLimitsTests {
    typealias Helpers = ListCoreTests

    /// The delay the core asks before writing the list file after a quiet edit is made durable.
    static func writeDelay(_ limits: CoreLimits) -> Duration? {
        var core = Helpers.core(limits: limits)
        let now = ContinuousClock.now
        _ = core.propose(1, .addItem("bread", to: .name("Groceries")), origin: Helpers.client, at: Helpers.time)
        _ = core.pass { $0.answered(.proposal(1), .allowed, at: Helpers.time) }
        let done = core.pass { $0.feed(.appended(compactionDue: false), now: now) }
        return done.lazy.compactMap { if case .scheduleWrite(let after) = $0 { after } else { nil } }.first
    }

    @Test func theListFileIsWrittenAfterTheTablesDelay() {
        #expect(Self.writeDelay(.standard) == CoreLimits.standard.fileWriteDelay)
        var slower = CoreLimits.standard
        slower.fileWriteDelay = .milliseconds(200)
        #expect(Self.writeDelay(slower) == .milliseconds(200))
    }

    /// Whether the delegate is dropped after `timeouts` questions in a row went unanswered.
    static func dropped(after timeouts: Int, _ limits: CoreLimits) -> Bool {
        var core = Helpers.core(limits: limits)
        for id in 1...timeouts {
            let asked = core.propose(id, .addItem("item \(id)", to: .name("Groceries")), origin: Helpers.client, at: Helpers.time)
            guard case .putQuestion(let put)? = asked.first(where: { if case .putQuestion = $0 { true } else { false } }) else {
                Issue.record("edit \(id) was not asked about: \(asked)")
                return false
            }
            let ended = core.pass { $0.feed(.delegateReplied(question: put.id, .timedOut)) }
            if ended.contains(where: { if case .dropDelegate = $0 { true } else { false } }) { return true }
            _ = core.pass { $0.feed(.appended(compactionDue: false)) }
        }
        return false
    }

    @Test func aDelegateIsDroppedAfterTheTablesTimeoutsInARow() {
        #expect(!Self.dropped(after: 1, .standard))
        #expect(Self.dropped(after: CoreLimits.standard.delegateStrikeLimit, .standard))
        var impatient = CoreLimits.standard
        impatient.delegateStrikeLimit = 1
        #expect(Self.dropped(after: 1, impatient))
    }

    @Test func aDelegateThatDoesNotSayGetsTheTablesTimeoutAndNoMoreThanItsLongest() throws {
        func register(timeoutMs: Int?, limits: CoreLimits) -> Result<DelegatePanel.Seat.Granted, DelegatePanel.Seat.Refused> {
            DelegatePanel.Seat.registering(
                name: "budget",
                questions: nil,
                lists: nil,
                timeoutMs: timeoutMs,
                onTimeout: nil,
                connection: 1,
                pid: 1,
                brief: false,
                on: ListBook(),
                limits: limits
            )
        }
        var limits = CoreLimits.standard
        limits.defaultDelegateTimeout = .milliseconds(750)
        let granted = try register(timeoutMs: nil, limits: limits).get()
        #expect(granted.seat.timeout == .milliseconds(750) && granted.timeoutMs == 750 && granted.seat.onTimeout == .allow)
        #expect(throws: DelegatePanel.Seat.Refused(message: "“timeoutMs” must be between 1 and 30000.", field: "timeoutMs")) {
            try register(timeoutMs: 31_000, limits: .standard).get()
        }
    }
}

extension CoreLimitsTests {
    /// The status line is told at once, then at most once per the table's interval; the journal's
    /// lines are handed over the table's lag after the first, once per lag.
    @Test func theStatusLineAndTheJournalAreToldAtTheTablesPace() {
        var limits = CoreLimits.standard
        limits.statusInterval = .milliseconds(500)
        limits.journalLag = .milliseconds(7)
        var core = Helpers.core(limits: limits)
        let start = ContinuousClock.now
        func told(_ actions: [CoreAction]) -> String {
            actions.compactMap { action -> String? in
                switch action {
                case .tellStatus: "now"
                case .scheduleStatus(let after): "after \(after)"
                case .handJournalOver(let after): "journal after \(after)"
                default: nil
                }
            }.joined(separator: ", ")
        }
        #expect(told(core.feed(.storeStatusChanged(connected: false), now: start)) == "now")
        let soon = start + .milliseconds(200)
        #expect(told(core.feed(.storeStatusChanged(connected: true), now: soon)) == "after 0.3 seconds")
        #expect(told(core.feed(.storeStatusChanged(connected: false), now: soon)) == "", "one telling is scheduled already")
        #expect(told(core.feed(.statusTimerFired, now: start + .milliseconds(500))) == "now")
        let denied = core.propose(1, .addItem("milk", to: .name("Nope")), origin: Helpers.client, at: Helpers.time)
        #expect(told(denied) == "journal after 0.007 seconds")
        let again = core.propose(2, .addItem("tea", to: .name("Nope")), origin: Helpers.client, at: Helpers.time)
        #expect(told(again) == "", "one hand-over for the lines of that time")
        core.feed(.journalHandedOver)
        #expect(told(core.propose(3, .addItem("egg", to: .name("Nope")), origin: Helpers.client, at: Helpers.time)) == "journal after 0.007 seconds")
    }
}
