import ListModel
import Testing

/// The rules as first written, character by character: the fast paths must agree with them.
private enum Reference {
    static func trimmed(_ text: String) -> String {
        var slice = Substring(text)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }

    static func key(_ text: String) -> String { trimmed(text).uppercased().lowercased() }

    static func validated(_ text: String) -> Result<String, ListText.Violation> {
        let text = trimmed(text)
        if text.isEmpty { return .failure(.empty) }
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: return .failure(.controlCharacter(scalar: scalar.value))
            default: continue
            }
        }
        // Found by make fuzz: a first mark that joins the space of `- ` or `# ` before it.
        if let first = text.unicodeScalars.first, (" " + text).count == text.count {
            return .failure(.joinsTheSpaceBefore(scalar: first.value))
        }
        if text.count > ListText.maximumLength { return .failure(.tooLong(length: text.count)) }
        return .success(text)
    }
}

@Suite struct ListTextTests {
    /// make fuzz: a list named "\u{6ED}" (read from `# ⇥⇥ۭ`, where the tab does not join the
    /// mark) was written `# ۭ`, where the space does, and the line was no heading any more.
    @Test func aTextCannotStartWithAMarkThatJoinsTheSpaceBeforeIt() {
        #expect(ListText.validated("\u{6ED}") == .failure(.joinsTheSpaceBefore(scalar: 0x6ED)))
        #expect(ListText.validated("\u{301}milk") == .failure(.joinsTheSpaceBefore(scalar: 0x301)))
        #expect(ListText.validated("\u{200D}x") == .failure(.joinsTheSpaceBefore(scalar: 0x200D)))
        #expect(ListText.validated("mi\u{301}lk") == .success("mi\u{301}lk"), "a mark inside is part of its letter")
        #expect(ListText.Violation.joinsTheSpaceBefore(scalar: 0x6ED).explanation.contains("U+06ED"))
    }

    /// Pieces that stress each rule: ASCII of every kind, white space of other scripts, combining
    /// marks, case pairs that fold unusually, controls, and emoji.
    static let pieces = [
        "a", "Z", "milk", "Milk", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{1F}", "\u{7F}", "!", "~", "-", "1",
        "\u{A0}", "\u{2003}", "\u{3000}", "\u{85}", "\u{2028}", "\u{301}", "e\u{301}", "é", "ß", "ς", "Σ", "İ", "ǅ",
        "🥛", "👩‍👩‍👧", "\u{600}", "ﬃ", "Ω", "K",
    ]

    @Test func fastPathsAgreeWithTheRulesAsFirstWritten() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                Self.pieces.randomElement(using: &generator)!
            }.joined()
            #expect(ListText.trimmed(text) == Reference.trimmed(text), "\(text.debugDescription)")
            #expect(ListText.key(text) == Reference.key(text), "\(text.debugDescription)")
            #expect(ListText.validated(text) == Reference.validated(text), "\(text.debugDescription)")
            // Another text with the same key often enough: the same, in other case, or any.
            let any = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                Self.pieces.randomElement(using: &generator)!
            }.joined()
            let other = [text, text.uppercased(), text.lowercased(), " " + text, any].randomElement(using: &generator)!
            #expect(
                ListText.hasKey(text, Reference.key(other)) == (Reference.key(text) == Reference.key(other)),
                "\(text.debugDescription) against \(other.debugDescription)"
            )
            if let same = ListText.sameKeyIfPlain(text, other) {
                #expect(same == (Reference.key(text) == Reference.key(other)), "\(text.debugDescription) against \(other.debugDescription)")
            }
        }
    }

    @Test func longTextsAreMeasuredInCharacters() {
        #expect(
            ListText.validated(String(repeating: "a", count: 1000)) == .success(String(repeating: "a", count: 1000))
        )
        #expect(ListText.validated(String(repeating: "a", count: 1001)) == .failure(.tooLong(length: 1001)))
        #expect(
            ListText.validated(String(repeating: "é", count: 1000))
                == Reference.validated(String(repeating: "é", count: 1000))
        )
        #expect(ListText.validated(String(repeating: "e\u{301}", count: 1001)) == .failure(.tooLong(length: 1001)))
    }
}
