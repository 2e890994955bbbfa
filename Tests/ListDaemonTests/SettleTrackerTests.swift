@testable import ListDaemon
import Testing

@Suite struct SettleTrackerTests {
    let start = ContinuousClock.now
    let quiet = Duration.milliseconds(30)

    @Test func oneEventIsReadAfterTheQuietPeriod() {
        var tracker = SettleTracker(quietPeriod: quiet)
        #expect(tracker.isSettled)
        #expect(tracker.touched(at: start) == .checkAt(start + quiet))
        #expect(!tracker.isSettled)
        #expect(tracker.check(at: start + quiet) == .read)
        #expect(tracker.isSettled)
    }

    @Test func everyEventRestartsTheQuietPeriodWithOneCheckPending() {
        var tracker = SettleTracker(quietPeriod: quiet)
        #expect(tracker.touched(at: start) == .checkAt(start + quiet))
        #expect(tracker.touched(at: start + .milliseconds(10)) == .none)
        #expect(tracker.touched(at: start + .milliseconds(25)) == .none)
        // Due at +30, but the last write was at +25: wait until +55.
        #expect(tracker.check(at: start + quiet) == .checkAt(start + .milliseconds(55)))
        #expect(tracker.check(at: start + .milliseconds(55)) == .read)
    }

    @Test func aCheckWithNothingPendingDoesNothing() {
        var tracker = SettleTracker(quietPeriod: quiet)
        #expect(tracker.check(at: start) == .none)
        _ = tracker.touched(at: start)
        _ = tracker.check(at: start + quiet)
        #expect(tracker.check(at: start + quiet * 2) == .none)
        // A new burst schedules a new check.
        #expect(tracker.touched(at: start + quiet * 3) == .checkAt(start + quiet * 4))
    }
}
