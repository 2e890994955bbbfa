/// The rules every list name and item text obeys, and the key two texts are compared by.
public enum ListText {
    /// Longest name or item, in characters (grapheme clusters), after trimming.
    public static let maximumLength = 1000

    /// Why a text cannot be a name or an item.
    public enum Violation: Error, Hashable, Sendable {
        case empty
        case tooLong(length: Int)
        case controlCharacter(scalar: UInt32)

        /// Completes “… is not a valid item: ”.
        public var explanation: String {
            switch self {
            case .empty:
                "it is empty"
            case .tooLong(let length):
                "it is \(length) characters long, and at most \(ListText.maximumLength) are allowed"
            case .controlCharacter(let scalar):
                "it contains the control character U+\(hex(scalar)); it must be one line of text"
            }
        }
    }

    /// Surrounding white space removed: what is stored.
    public static func trimmed(_ text: String) -> String {
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
        trimmed(text).uppercased().lowercased()
    }

    /// The trimmed text, or the rule it breaks.
    public static func validated(_ text: String) -> Result<String, Violation> {
        let text = trimmed(text)
        if text.isEmpty { return .failure(.empty) }
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator:
                return .failure(.controlCharacter(scalar: scalar.value))
            default:
                continue
            }
        }
        let length = text.count
        if length > maximumLength { return .failure(.tooLong(length: length)) }
        return .success(text)
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
