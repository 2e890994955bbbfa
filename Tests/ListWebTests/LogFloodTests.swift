// What a flood of lines costs the log (issue 61, case 4): the rule alone, on a clock of the
// test's own, and the log handler that carries it out, in front of one that keeps its lines.
import ListWeb
import LogFlood
import Logging
import Synchronization
import Testing

@Suite struct LogFloodRuleTests {
    let start = ContinuousClock.now

    @Test func eachMessagePassesItsShareAndTheRestIsCountedThenSaid() {
        var rule = LogFloodRule(window: .seconds(60), perMessage: 3, total: 5)
        let passed = (0..<10).map { _ in rule.admit("reset", audit: false, now: start).passes }
        #expect(passed == [true, true, true] + Array(repeating: false, count: 7))
        #expect(rule.admit("junk", audit: false, now: start + .seconds(1)).passes)
        #expect(rule.admit("junk", audit: false, now: start + .seconds(1)).passes)
        #expect(!rule.admit("junk", audit: false, now: start + .seconds(1)).passes, "the total is reached")
        #expect(rule.endWindowIfOver(now: start + .seconds(59)).isEmpty, "said once the window is over, not before")
        let said = rule.admit("reset", audit: false, now: start + .seconds(61))
        #expect(said.passes, "a new window")
        #expect(said.ended.map(\.message) == ["reset", "junk"] && said.ended.map(\.count) == [7, 1])
    }

    @Test func anAuditLineAlwaysPasses() {
        var rule = LogFloodRule(window: .seconds(60), perMessage: 1, total: 1)
        #expect(rule.admit("reset", audit: false, now: start).passes)
        #expect(!rule.admit("reset", audit: false, now: start).passes)
        #expect((0..<100).allSatisfy { _ in rule.admit("a wrong pairing code", audit: true, now: start).passes })
    }
}

@Suite struct FloodGatedLogHandlerTests {
    /// Keeps every line it is given.
    final class Lines: Sendable {
        let kept = Mutex<[String]>([])
        func withLock<T>(_ body: (inout [String]) -> T) -> T { kept.withLock { body(&$0) } }
    }

    struct Keeper: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        var metadataProvider: Logger.MetadataProvider?
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.withLock { $0.append("\(event.message)") } }
    }

    @Test func aFloodIsHeldBackPairingLinesPassAndWhatWasHeldIsSaid() async throws {
        let keeper = Keeper(lines: Lines())
        let handler = FloodGatedLogHandler(wrapping: keeper, window: .milliseconds(500), perMessage: 20, total: 200)
        let logger = Logger(label: "test") { _ in handler }
        for _ in 0..<1_000 { logger.error("Error handling upgrade result") }
        logger.warning("a wrong pairing code", metadata: [auditMetadataKey: "pairing"])
        // Once the window is over, what was held back is said before the next line (listd-web
        // also says it unasked, by a timer on its loops, which a test's busy pool may delay).
        // (A loaded machine may end a window during the flood: then more pass, and are said so.)
        func said() -> [String] { keeper.lines.withLock { $0 }.filter { $0.contains("were not logged") } }
        try await Task.sleep(for: .milliseconds(600))
        logger.info("a line after the window")
        let lines = keeper.lines.withLock { $0 }
        let passed = lines.count(where: { $0 == "Error handling upgrade result" })
        let held = said().compactMap { Int($0.prefix(while: \.isNumber)) }.reduce(0, +)
        #expect(lines.contains("a wrong pairing code"))
        #expect(!said().isEmpty && said().allSatisfy { $0.contains("like “Error handling upgrade result”") }, "\(lines.suffix(3))")
        #expect(passed + held == 1_000, "\(passed) logged, \(held) said to be held back")
        #expect(passed < 100, "\(passed) of 1,000 logged")
    }
}
