// The journal's lines that repeat for as long as a fault lasts: at most one a second each.
import Testing

@testable import ListDaemon

@Suite struct RepeatedLinesTests {
    /// Issue 60, case 6: one warning per edit refused while the shared lists' server was away
    /// (1,891 lines in three 8-second outages). One a second of each kind is written; the next
    /// one written says how many were held back, and about how many edits.
    @Test func aLineRepeatedWithinASecondIsHeldBackAndCountedInTheNext() {
        var lines = RepeatedLines()
        let start = ContinuousClock.now
        #expect(lines.admit("shareUnavailable", edits: 1, at: start) == RepeatedLines.HeldBack())
        for tick in 1...40 {
            #expect(lines.admit("shareUnavailable", edits: 2, at: start + .milliseconds(20 * tick)) == nil)
        }
        // Another kind is its own.
        #expect(lines.admit("inDoubt", edits: 1, at: start + .milliseconds(500)) == RepeatedLines.HeldBack())
        let next = lines.admit("shareUnavailable", edits: 1, at: start + .seconds(1))
        #expect(next == RepeatedLines.HeldBack(lines: 40, edits: 80))
        #expect(RepeatedLines.suffix(next!) == " (40 more like it held back since the last, about 80 edit(s))")
        #expect(lines.admit("shareUnavailable", edits: 1, at: start + .seconds(3)) == RepeatedLines.HeldBack())
        #expect(RepeatedLines.suffix(RepeatedLines.HeldBack()) == "")
    }
}
