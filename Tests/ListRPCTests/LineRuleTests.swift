// The framing rule on bytes alone, as the daemon's decoder and the blocking client use it.
import ListRPC
import Testing

@Suite struct LineRuleTests {
    static func bytes(_ text: String) -> ArraySlice<UInt8> { Array(text.utf8)[...] }

    @Test func aLineEndsAtItsNewlineWithoutACarriageReturnBeforeIt() {
        let plain = Self.bytes("{\"a\":1}\n{\"b\"")
        #expect(LineRule.cut(plain) == .line(text: 0..<7, next: 8))
        let crlf = Self.bytes("{}\r\nrest")
        #expect(LineRule.cut(crlf) == .line(text: 0..<2, next: 4))
        #expect(LineRule.cut(Self.bytes("\n")) == .line(text: 0..<0, next: 1), "an empty line is a line")
    }

    @Test func noNewlineWaitsUntilTheCapAndALongerLineIsRefusedWhetherItsNewlineCameOrNot() {
        #expect(LineRule.cut(Self.bytes("12345"), maximumLength: 5) == .needMoreData)
        #expect(LineRule.cut(Self.bytes("123456"), maximumLength: 5) == .tooLong)
        #expect(LineRule.cut(Self.bytes("123456\n"), maximumLength: 5) == .tooLong)
        #expect(LineRule.cut(Self.bytes("12345\r\n"), maximumLength: 5) == .line(text: 0..<5, next: 7), "the terminator is not counted")
    }

    @Test func whatWasSearchedIsNotSearchedAgainAndTheLineStillStartsAtTheStart() {
        let bytes = Self.bytes("abc\ndef\n")
        #expect(LineRule.cut(bytes[4...], searchFrom: 6) == .line(text: 4..<7, next: 8))
    }
}
