// What may name a paired device, and when two names are the same one. A device's name is what
// `listctl web devices` lists, what revoke is given, and the origin of its changes in listd's
// journal: it must look like what it is. Invisible and direction-changing characters could make
// one name look like another's, or hide text; names that differ only in case, width or
// compatibility forms are one.
import Foundation

enum DeviceNames {
    static let longest = 100

    /// Why a name cannot name a device, for the person pairing it.
    enum Violation: Error, Equatable {
        case empty
        case tooLong
        /// A line break, a control character, or one that is not printed: zero-width spaces and
        /// joiners outside an emoji, direction marks and overrides, private-use or unassigned
        /// code points.
        case invisible(UInt32)
    }

    /// The name trimmed and in canonical form (NFC), or why it cannot name a device.
    static func validated(_ text: String) -> Result<String, Violation> {
        let name = text.trimmingCharacters(in: .whitespaces).precomposedStringWithCanonicalMapping
        if name.isEmpty { return .failure(.empty) }
        if name.count > longest { return .failure(.tooLong) }
        for character in name {
            // An emoji sequence (👩‍👧) is joined by U+200D: kept, as one visible character.
            let isEmoji = character.unicodeScalars.first?.properties.isEmojiPresentation == true
                || character.unicodeScalars.contains { $0.value == 0xFE0F }
            for scalar in character.unicodeScalars where !isPrinted(scalar, inEmoji: isEmoji) {
                return .failure(.invisible(scalar.value))
            }
        }
        return .success(name)
    }

    private static func isPrinted(_ scalar: Unicode.Scalar, inEmoji: Bool) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate:
            return false
        case .format:
            return inEmoji && scalar.value == 0x200D
        default:
            return true
        }
    }

    /// The form in which two names are compared: compatibility forms folded (NFKC: a full-width
    /// "Ｐ" is "P", a no-break space a space), case folded, runs of spaces one. Letters of other
    /// scripts that look alike (a Cyrillic "а") stay letters of their own.
    static func key(_ name: String) -> String {
        name.precomposedStringWithCompatibilityMapping.lowercased()
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
