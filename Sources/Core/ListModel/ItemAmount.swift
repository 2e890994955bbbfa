/// An item with its amount as people write it — in the list file, on listctl's command line and
/// on the page. Three forms, read in this order:
/// - in parentheses after it: `milk (2 l)`, `rice (a few bags)` (any text is kept: a note);
/// - a count or measure before it: `2 l milk`, `6 free-range eggs`, `2x bread` (`Measure`);
/// - a measure after it: `milk 2 l`, `bread x2`, `flour 500g` — a number alone there is part of
///   the name (`size 4`, `item 3`): a count goes before (`6 eggs`) or in parentheses.
///
/// A backslash right before what would read as an amount keeps it in the item's text
/// (`batteries \(4)`, `\7 up`, `milk \2 l`), and is taken out when read. Two promises, tested on
/// generated texts: every text reads and prints back to itself (`Reading.written`), and
/// `join(text, amount)` reads back as that text and amount for every valid pair.
public enum ItemAmount {
    /// How a written item was read.
    public struct Reading: Hashable, Sendable {
        /// Where the amount stood.
        public enum Form: Hashable, Sendable {
            /// No amount: the text alone, its escapes taken out.
            case none
            /// After the item, in parentheses: `milk (2 l)`.
            case parenthesized
            /// Before the item: `2 l milk`, `6 eggs`.
            case leading
            /// After the item, a measure or a count with x: `milk 2 l`, `bread x2`.
            case trailing
        }

        /// The item's text, and its amount (nil: none).
        public var text: String
        /// Its amount, as written (nil: none).
        public var quantity: String?
        /// Where the amount stood.
        public var form: Form
        /// The text as written beside its amount (escapes kept), and what stood between them.
        var writtenText: String
        var gap: String

        /// What was read, written again: the same characters.
        public var written: String {
            switch form {
            case .none: ItemAmount.join(text, nil)
            case .parenthesized: writtenText + gap + "(" + (quantity ?? "") + ")"
            case .leading: (quantity ?? "") + gap + writtenText
            case .trailing: writtenText + gap + (quantity ?? "")
            }
        }

        static func alone(_ text: String) -> Reading {
            Reading(text: text, quantity: nil, form: .none, writtenText: text, gap: "")
        }
    }

    /// The item's text and its amount, from what follows an item line's bullet and box, or what a
    /// person typed as an item.
    public static func split(_ written: String) -> (text: String, quantity: String?) {
        let reading = read(written)
        return (reading.text, reading.quantity)
    }

    /// How `written` (trimmed) reads: its text, its amount and the form it was written in.
    public static func read(_ written: String) -> Reading {
        read(written, shortcut: true)
    }

    /// `shortcut`: texts `mayHaveAmount` rules out are not read further (a test reads them all).
    static func read(_ written: String, shortcut: Bool) -> Reading {
        let trimmed = ListText.trimmed(written)
        if shortcut, !mayHaveAmount(trimmed) { return .alone(trimmed) }
        let text = Array(trimmed.unicodeScalars)
        if let group = trailingGroup(of: text) {
            if group.escaped { return .alone(string(removing: group.open - 1, from: text)) }
            var end = group.open
            while end > 0, text[end - 1].properties.isWhitespace { end -= 1 }
            // `(4)` alone is an item, not an amount of nothing.
            guard end > 0 else { return .alone(trimmed) }
            let writtenText = string(text[..<end])
            return Reading(
                text: unescapedGroup(writtenText),
                quantity: group.quantity,
                form: .parenthesized,
                writtenText: writtenText,
                gap: string(text[end..<group.open])
            )
        }
        if let backslashes = leadingBackslashes(of: text) {
            return backslashes == 0 ? leadingReading(text)! : .alone(string(removing: 0, from: text))
        }
        if let (start, backslashes, gapStart) = trailingAmount(of: text) {
            guard backslashes == 0 else { return .alone(string(removing: start, from: text)) }
            return Reading(
                text: string(text[..<gapStart]),
                quantity: string(text[start...]),
                form: .trailing,
                writtenText: string(text[..<gapStart]),
                gap: string(text[gapStart..<start])
            )
        }
        return .alone(trimmed)
    }

    /// What an item line says after its bullet and box: the text, escaped when it would read as
    /// having an amount, then ` (amount)`.
    public static func join(_ text: String, _ quantity: String?) -> String {
        guard quantity != nil || mayHaveAmount(text) else { return text }
        var scalars = Array(text.unicodeScalars)
        if let group = trailingGroup(of: scalars) {
            let before = group.escaped ? group.open - 1 : group.open
            if group.escaped || scalars[..<before].contains(where: { !$0.properties.isWhitespace }) {
                scalars.insert("\\", at: before)
            }
        } else if quantity == nil, leadingBackslashes(of: scalars) != nil {
            scalars.insert("\\", at: 0)
        } else if quantity == nil, let (start, _, _) = trailingAmount(of: scalars) {
            scalars.insert("\\", at: start)
        }
        let written = string(scalars[...])
        guard let quantity else { return written }
        return written + " (" + quantity + ")"
    }

    /// The item written as `like` was (`2 l milk` stays a measure first) when the new amount
    /// reads back so in that form; else as `join` writes it.
    public static func join(_ text: String, _ quantity: String?, like reading: Reading) -> String {
        if let quantity, reading.form == .leading || reading.form == .trailing {
            let written = reading.form == .leading ? quantity + reading.gap + text : text + reading.gap + quantity
            let again = read(written)
            if again.text == text, again.quantity == quantity { return written }
        }
        return join(text, quantity)
    }

    /// Whether `text` could hold an amount or an escape, told from a few of its bytes: a final
    /// `)`; a first word that could start a count (a digit, `x`, a backslash, or any non-ASCII
    /// character, such as `½` or `×`); a last word that could end a measure (it has a letter or a
    /// non-ASCII character: a unit, `x2`) after a word that could start one. Most item names —
    /// `item 12` too, whose last word is a bare number — are read without more work: the reading
    /// of a file of 100,000 lines is not slowed by amounts no line has.
    static func mayHaveAmount(_ text: String) -> Bool {
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard let last = bytes.last, let first = bytes.first else { return false }
            func startsCount(_ byte: UInt8) -> Bool {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "x")
                    || byte == UInt8(ascii: "X") || byte >= 0x80
            }
            if last == UInt8(ascii: ")") || startsCount(first) { return true }
            guard let lastSpace = bytes.lastIndex(of: UInt8(ascii: " ")) else { return false }
            let lastWord = bytes[(lastSpace + 1)...]
            let endsMeasure = lastWord.contains { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || $0 >= 0x80 }
            guard endsMeasure else { return false }
            if let start = lastWord.first, startsCount(start) { return true }
            // A number and its unit: `milk 2 l`.
            let previousWordStart = bytes[..<lastSpace].lastIndex(of: UInt8(ascii: " ")).map { $0 + 1 } ?? 0
            return previousWordStart < lastSpace && startsCount(bytes[previousWordStart])
        }
        return answer ?? true
    }

    /// A final `(…)` whose content is an amount (its own parentheses paired: `12 (large)`);
    /// `escaped` when a backslash comes right before its `(` and something before that.
    static func trailingGroup(of text: [Unicode.Scalar]) -> (open: Int, quantity: String, escaped: Bool)? {
        guard text.last == ")" else { return nil }
        // The `(` that the final `)` closes.
        var depth = 0
        var index = text.count
        while index > 0 {
            index -= 1
            if text[index] == ")" { depth += 1 }
            if text[index] == "(" {
                depth -= 1
                if depth == 0 { break }
            }
        }
        guard depth == 0, text[index] == "(" else { return nil }
        let content = string(text[(index + 1)..<(text.count - 1)])
        guard case .success(let quantity) = ListText.validatedQuantity(content), quantity == content else { return nil }
        return (index, quantity, index > 1 && text[index - 1] == "\\")
    }

    /// The backslashes before a leading amount (none: the amount is read; some: one is an
    /// escape), or nil when no amount leads.
    static func leadingBackslashes(of text: [Unicode.Scalar]) -> Int? {
        var backslashes = 0
        while backslashes < text.count, text[backslashes] == "\\" { backslashes += 1 }
        return leadingParts(text, from: backslashes) == nil ? nil : backslashes
    }

    /// The amount leading `text`: where it ends and where the item's text starts after it.
    static func leadingParts(_ text: [Unicode.Scalar], from start: Int) -> (end: Int, textStart: Int)? {
        for end in Measure.measureEnds(text, from: start, bare: true) where end - start <= ListText.maximumQuantityLength {
            var textStart = end
            while textStart < text.count, text[textStart] == " " { textStart += 1 }
            guard textStart > end, textStart < text.count else { continue }
            // `2 bags of rice` is 2 of “bags of rice”, not 2 bags of “of rice”.
            let unit = end > start && Measure.isLetter(text[end - 1]) && !Measure.isTimes(text[start])
            if unit, startsWithOf(text, at: textStart) { continue }
            return (end, textStart)
        }
        return nil
    }

    private static func leadingReading(_ text: [Unicode.Scalar]) -> Reading? {
        guard let (end, textStart) = leadingParts(text, from: 0) else { return nil }
        let writtenText = string(text[textStart...])
        return Reading(
            text: writtenText,
            quantity: string(text[..<end]),
            form: .leading,
            writtenText: writtenText,
            gap: string(text[end..<textStart])
        )
    }

    /// A measure (a number with a unit, or `x2`) ending `text` after a space: where it starts, the backslashes before
    /// it (some: one is an escape), and where the space before it starts. A number and a unit
    /// (`2 l`) is tried before the last word alone.
    static func trailingAmount(of text: [Unicode.Scalar]) -> (start: Int, backslashes: Int, gapStart: Int)? {
        guard let lastSpace = text.lastIndex(of: " ") else { return nil }
        let lastWord = lastSpace + 1
        var candidates: [Int] = []
        if lastSpace > 0, text[lastSpace - 1] != " ", let previousSpace = text[..<lastSpace].lastIndex(of: " ") {
            candidates.append(previousSpace + 1)
        }
        candidates.append(lastWord)
        for start in candidates {
            var measure = start
            while measure < text.count, text[measure] == "\\" { measure += 1 }
            guard text.count - measure <= ListText.maximumQuantityLength,
                Measure.measureEnds(text, from: measure, bare: false).contains(text.count)
            else { continue }
            var gapStart = start
            while gapStart > 0, text[gapStart - 1] == " " { gapStart -= 1 }
            guard gapStart > 0 else { continue }
            return (start, measure - start, gapStart)
        }
        return nil
    }

    /// `text` with the backslash of an escaped final amount-like parenthesis taken out.
    private static func unescapedGroup(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let group = trailingGroup(of: scalars), group.escaped else { return text }
        return string(removing: group.open - 1, from: scalars)
    }

    private static func startsWithOf(_ text: [Unicode.Scalar], at index: Int) -> Bool {
        guard index + 2 < text.count, text[index + 2] == " " else { return false }
        return String(String.UnicodeScalarView(text[index..<(index + 2)])).lowercased() == "of"
    }

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars))
    }

    private static func string(removing index: Int, from scalars: [Unicode.Scalar]) -> String {
        var scalars = scalars
        scalars.remove(at: index)
        return string(scalars[...])
    }
}
