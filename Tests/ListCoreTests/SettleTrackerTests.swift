import Testing

@testable import ListCore

@Suite struct SettleTrackerTests {
    let start = ContinuousClock.now
    let quiet = Duration.milliseconds(30)

    @Test func aCompletedSaveIsReadAfterTheQuietPeriod() {
        var tracker = SettleTracker(quietPeriod: quiet, openWriterLimit: .seconds(2))
        #expect(tracker.isSettled)
        #expect(tracker.record(.completed, at: start) == .checkAt(start + quiet))
        #expect(!tracker.isSettled)
        #expect(tracker.check(at: start + quiet) == .read)
        #expect(tracker.isSettled)
    }

    @Test func everyEventRestartsTheQuietPeriodWithOneCheckPending() {
        var tracker = SettleTracker(quietPeriod: quiet, openWriterLimit: .seconds(2))
        #expect(tracker.record(.written, at: start) == .checkAt(start + quiet))
        #expect(tracker.record(.written, at: start + .milliseconds(10)) == .none)
        #expect(tracker.record(.completed, at: start + .milliseconds(25)) == .none)
        // Due at +30, but the save ended at +25: wait until +55.
        #expect(tracker.check(at: start + quiet) == .checkAt(start + .milliseconds(55)))
        #expect(tracker.check(at: start + .milliseconds(55)) == .read)
    }

    @Test func aWriterThatHasNotClosedIsWaitedFor() {
        var tracker = SettleTracker(quietPeriod: quiet, openWriterLimit: .seconds(2))
        _ = tracker.record(.written, at: start)
        // Quiet, but the writer still has the file open: not yet.
        #expect(tracker.check(at: start + quiet) == .checkAt(start + .seconds(2)))
        // It closes after a pause longer than the quiet period: read shortly after.
        #expect(tracker.record(.completed, at: start + .milliseconds(500)) == .none)
        #expect(tracker.check(at: start + .seconds(2)) == .read)
    }

    @Test func aWriterThatNeverClosesIsReadAfterTheLimit() {
        var tracker = SettleTracker(quietPeriod: quiet, openWriterLimit: .seconds(2))
        _ = tracker.record(.written, at: start)
        #expect(tracker.check(at: start + quiet) == .checkAt(start + .seconds(2)))
        #expect(tracker.check(at: start + .seconds(2)) == .read)
    }

    @Test func aCheckWithNothingPendingDoesNothing() {
        var tracker = SettleTracker(quietPeriod: quiet, openWriterLimit: .seconds(2))
        #expect(tracker.check(at: start) == .none)
        _ = tracker.record(.overflowed, at: start)
        _ = tracker.check(at: start + quiet)
        #expect(tracker.check(at: start + quiet * 2) == .none)
        // A new burst schedules a new check.
        #expect(tracker.record(.completed, at: start + quiet * 3) == .checkAt(start + quiet * 4))
    }
}
