// One JSON value as it came in, its text checked but not read: a request's params travel this way
// from the line to the method that knows their type, which decodes them straight from the bytes
// (`JSONTextDecoder`), with no `JSONValue` tree between.

/// The text of one valid JSON value (an object or array, for params), in a line's copy shared by
/// every value taken from that line.
package struct JSONText: Sendable {
    /// The line's bytes (checked whole) and where in them this value is, whitespace left out.
    let line: [UInt8]
    let range: Range<Int>

    init(line: [UInt8], range: Range<Int>) {
        self.line = line
        self.range = range
    }

    /// `{}`: what absent params read as.
    package static let emptyObject = JSONText(line: Array("{}".utf8), range: 0..<2)

    /// The bytes of the value.
    package var bytes: ArraySlice<UInt8> { line[range] }

    /// The value read whole, for a reader that wants the tree (listd's request path never does).
    package var value: JSONValue {
        line.withUnsafeBufferPointer { JSONReader.value(at: range, in: $0) }
    }

    /// True when the value is an array (params by position, which listd's methods refuse).
    package var isArray: Bool { line[range.lowerBound] == UInt8(ascii: "[") }

    /// True when the value is an object.
    package var isObject: Bool { line[range.lowerBound] == UInt8(ascii: "{") }

    /// An object's members in the order written, a repeated key each time (the last one counts);
    /// none when the value is not an object.
    package var members: [(key: String, value: JSONText)] {
        guard isObject else { return [] }
        return line.withUnsafeBufferPointer { JSONReader.members(of: range, in: $0) }.map { ($0.key, JSONText(line: line, range: $0.value)) }
    }

    /// The value read, when it is not an object or an array (nil then): a string, a number, a
    /// boolean or null, with no tree to build.
    package var scalar: JSONValue? {
        switch line[range.lowerBound] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): nil
        default: value
        }
    }
}

extension JSONText: Hashable {
    /// Equal when the values are, whatever white space or member order their texts have.
    package static func == (lhs: JSONText, rhs: JSONText) -> Bool {
        lhs.bytes == rhs.bytes || lhs.value == rhs.value
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}

extension JSONText: Encodable {
    /// Written as the value it holds (`JSONWriter` copies the text itself).
    package func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}

extension JSONText: CustomStringConvertible {
    package var description: String { String(decoding: bytes, as: UTF8.self) }
}
