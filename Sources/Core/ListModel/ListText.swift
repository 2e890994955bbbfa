/// The rules every list name and item text obeys, and the key two texts are compared by.
public enum ListText {
    /// Longest name or item, in characters (grapheme clusters), after trimming.
    public static let maximumLength = 1000

    /// Why a text cannot be a name or an item.
    public enum Violation: Error, Hashable, Sendable {
        /// Nothing but white space.
        case empty
        /// Longer than `maximumLength` characters.
        case tooLong(length: Int)
        /// A control character, or a line or paragraph separator: a name or item is one line.
        case controlCharacter(scalar: UInt32)
        /// It starts with a mark that joins the character before it (a combining accent, U+200D):
        /// after `- ` or `# ` in the list file it would join the space, and the line would not
        /// read back as an item or a heading.
        case joinsTheSpaceBefore(scalar: UInt32)
        /// An amount longer than 100 characters.
        case quantityTooLong(length: Int)
        /// An amount is written in parentheses after its item: its own must pair up, or it could
        /// not be read back (`12 (large` would end early).
        case unbalancedParentheses

        /// Completes “… is not a valid item: ”.
        public var explanation: String {
            switch self {
            case .empty:
                "it is empty"
            case .tooLong(let length):
                "it is \(length) characters long, and at most \(ListText.maximumLength) are allowed"
            case .controlCharacter(let scalar):
                "it contains the control character U+\(hex(scalar)); it must be one line of text"
            case .joinsTheSpaceBefore(let scalar):
                "it starts with U+\(hex(scalar)), a mark that joins the character before it; start it with a letter or a digit"
            case .quantityTooLong(let length):
                "it is \(length) characters long, and an amount has at most \(ListText.maximumQuantityLength)"
            case .unbalancedParentheses:
                "its parentheses do not pair up, so it could not be read back from the list file (write “12 (large)” or “12 large”)"
            }
        }
    }

    /// Surrounding white space removed: what is stored.
    public static func trimmed(_ text: String) -> String {
        // Most texts start and end with a visible ASCII character: nothing to trim, no copy.
        // (A first or last byte in 0x21...0x7E cannot be part of a white-space character.)
        if let first = text.utf8.first, let last = text.utf8.last, isVisibleASCII(first), isVisibleASCII(last) {
            return text
        }
        var slice = Substring(text)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }

    /// The comparison key: trimmed and case folded, so "Milk " and "milk" are the same item.
    ///
    /// Upper-casing then lower-casing approximates Unicode full case folding with the standard
    /// library alone ("ß" → "SS" → "ss", "ς" → "Σ" → "σ"); canonical equivalence is already part
    /// of `String` equality and hashing.
    public static func key(_ text: String) -> String {
        let text = trimmed(text)
        // ASCII folds by itself, byte by byte (keys are taken for every line of a list file).
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            guard text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
                return text
            }
            return String(
                decoding: text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 },
                as: UTF8.self
            )
        }
        return text.uppercased().lowercased()
    }

    /// Whether `key(text) == key`, without building `text`'s key when it is ASCII with visible
    /// ends (then its key is its bytes with A–Z lowered): finding an item compares every item of
    /// the list, and building each one's key made that the cost of an edit on a long list.
    public static func hasKey(_ text: String, _ key: String) -> Bool {
        let answer =
            text.utf8.withContiguousStorageIfAvailable { text -> Bool? in
                key.utf8.withContiguousStorageIfAvailable { key -> Bool? in
                    guard let first = text.first, let last = text.last, isVisibleASCII(first), isVisibleASCII(last)
                    else { return nil }
                    if text.count != key.count {
                        // Only an ASCII text's key is as long as the text.
                        return text.allSatisfy { $0 < 0x80 } ? false : nil
                    }
                    for index in text.indices {
                        var byte = text[index]
                        if byte >= 0x80 { return nil }
                        if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 32 }
                        if byte != key[index] { return text[index...].allSatisfy { $0 < 0x80 } ? false : nil }
                    }
                    return true
                } ?? nil
            } ?? nil
        return answer ?? (Self.key(text) == key)
    }

    /// Whether two texts have the same key, when both are ASCII with visible ends (then a key is
    /// the bytes with A–Z lowered, compared here without building either); nil otherwise. An edit
    /// names its list on every request: building the name's key cost more than the lookup.
    public static func sameKeyIfPlain(_ left: String, _ right: String) -> Bool? {
        left.utf8.withContiguousStorageIfAvailable { left -> Bool? in
            right.utf8.withContiguousStorageIfAvailable { right -> Bool? in
                guard let first = left.first, let last = left.last, isVisibleASCII(first), isVisibleASCII(last),
                    let otherFirst = right.first, let otherLast = right.last, isVisibleASCII(otherFirst), isVisibleASCII(otherLast)
                else { return nil }
                guard left.count == right.count else {
                    return left.allSatisfy { $0 < 0x80 } && right.allSatisfy { $0 < 0x80 } ? false : nil
                }
                var same = true
                for index in left.indices {
                    var (one, other) = (left[index], right[index])
                    if one >= 0x80 || other >= 0x80 { return nil }
                    if one >= UInt8(ascii: "A"), one <= UInt8(ascii: "Z") { one += 32 }
                    if other >= UInt8(ascii: "A"), other <= UInt8(ascii: "Z") { other += 32 }
                    if one != other { same = false }
                }
                return same
            } ?? nil
        } ?? nil
    }

    /// The trimmed text, or the rule it breaks.
    public static func validated(_ text: String) -> Result<String, Violation> {
        let text = trimmed(text)
        if text.isEmpty { return .failure(.empty) }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII: a control character is below 0x20 or 0x7F, and every byte is one character
            // ("\r\n" aside, and it holds control characters anyway).
            if let control = text.utf8.first(where: { $0 < 0x20 || $0 == 0x7F }) {
                return .failure(.controlCharacter(scalar: UInt32(control)))
            }
            let length = text.utf8.count
            if length > maximumLength { return .failure(.tooLong(length: length)) }
            return .success(text)
        }
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator:
                return .failure(.controlCharacter(scalar: scalar.value))
            default:
                continue
            }
        }
        // A first character that joins the space written before it: `- ◌́x` is no item line.
        if let first = text.unicodeScalars.first, (" " + text).first != " " {
            return .failure(.joinsTheSpaceBefore(scalar: first.value))
        }
        let length = text.count
        if length > maximumLength { return .failure(.tooLong(length: length)) }
        return .success(text)
    }

    /// Longest amount (`2 l`), in characters, after trimming.
    public static let maximumQuantityLength = 100

    /// The trimmed amount, or the rule it breaks: one line, its parentheses paired. Any text is
    /// kept (`a few bags`): what is not a count or a measure is a note.
    public static func validatedQuantity(_ text: String) -> Result<String, Violation> {
        switch validated(text) {
        case .failure(.tooLong(let length)): return .failure(.quantityTooLong(length: length))
        case .failure(let violation): return .failure(violation)
        case .success(let amount):
            guard parenthesesPairUp(amount) else { return .failure(.unbalancedParentheses) }
            let length = amount.count
            if length > maximumQuantityLength { return .failure(.quantityTooLong(length: length)) }
            return .success(amount)
        }
    }

    /// Whether every `(` in `text` is closed by a `)` after it, and every `)` closes one.
    /// Counted by Unicode scalar, as the amount reader reads them: `(` with an accent on it is
    /// still a parenthesis.
    public static func parenthesesPairUp(_ text: some StringProtocol) -> Bool {
        var depth = 0
        for character in text.unicodeScalars {
            if character == "(" { depth += 1 }
            if character == ")" {
                depth -= 1
                if depth < 0 { return false }
            }
        }
        return depth == 0
    }

    private static func isVisibleASCII(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte)
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
