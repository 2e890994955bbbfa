// The recent notification lines catching-up subscribers are sent: kept by revision within their
// byte budget (the oldest go first), and never across states of the lists.
import ListModel
import ListRPC
import NIOCore
import Testing

@testable import ListDaemon

@Suite struct RecentLinesTests {
    private func line(_ size: Int) -> ByteBuffer { ByteBuffer(repeating: UInt8(ascii: "x"), count: size) }

    @Test func linesAreKeptByRevisionWithinTheirBudgetOldestGoingFirst() {
        var lines = RecentLines(byteLimit: 300)
        for revision in 1...3 {
            lines.keep(line(100), brief: false, revision: revision, event: .didUpdateShoppingList, listID: 7, instance: "a")
        }
        #expect(lines.entry(1, instance: "a")?.whole?.readableBytes == 100)
        // A brief line for revision 2 too: 400 bytes, over the budget: revision 1 goes.
        lines.keep(line(100), brief: true, revision: 2, event: .didUpdateShoppingList, listID: 7, instance: "a")
        #expect(lines.entry(1, instance: "a") == nil)
        #expect(lines.entry(2, instance: "a")?.brief != nil && lines.entry(2, instance: "a")?.whole != nil)
        #expect(lines.entry(3, instance: "a")?.listID == 7)
        // One line bigger than the whole budget is still kept (the newest always is).
        lines.keep(line(1_000), brief: false, revision: 4, event: .didDeleteShoppingList, listID: 8, instance: "a")
        #expect(lines.entry(4, instance: "a")?.event == .didDeleteShoppingList)
        #expect(lines.entry(3, instance: "a") == nil)
    }

    @Test func aRevisionOfAnotherStateIsNeverTakenForThisOnes() {
        var lines = RecentLines()
        lines.keep(line(10), brief: false, revision: 5, event: .didUpdateShoppingList, listID: 1, instance: "a")
        #expect(lines.entry(5, instance: "b") == nil)
        lines.keep(line(10), brief: false, revision: 6, event: .didUpdateShoppingList, listID: 1, instance: "b")
        #expect(lines.entry(5, instance: "a") == nil, "the old state's lines are gone with it")
        #expect(lines.entry(6, instance: "b") != nil)
    }
}
