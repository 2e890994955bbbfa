/// Reads one JSON text (RFC 8259, strictly) into a `JSONValue`, straight from its bytes.
///
/// Every request line goes through here, so it works on the bytes as they came off the socket,
/// without Foundation's intermediate representations: a typical request is read in a few
/// microseconds. The caller has checked that the bytes are UTF-8 and not nested too deeply.
struct JSONReader {
    struct Malformed: Error {}

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// The value `bytes` hold, with nothing but whitespace around it.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>) throws(Malformed) -> JSONValue {
        var reader = JSONReader(bytes: bytes)
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw Malformed() }
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(Malformed) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Malformed) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Malformed() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Malformed() }
        index += count
    }

    private mutating func object() throws(Malformed) -> JSONValue {
        index += 1  // {
        // Collected first, then hashed into a dictionary of the right size at once: growing it
        // member by member rehashed every key several times.
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object([:])
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed() }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Malformed() }
            index += 1
            members.append((key, try value()))
            skipWhitespace()
            guard index < bytes.count else { throw Malformed() }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                // A repeated key: the last one counts.
                return .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
            default: throw Malformed()
            }
        }
    }

    private mutating func array() throws(Malformed) -> JSONValue {
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw Malformed() }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw Malformed()
            }
        }
    }

    /// A string, from its opening quote; escapes are decoded, lone surrogates refused.
    private mutating func string() throws(Malformed) -> String {
        index += 1  // "
        let start = index
        // Most strings have no escapes: one scan, one copy.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw Malformed() }
            index += 1
        }
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let scalar = try escapedScalar()
                if scalar.isASCII { decoded.append(UInt8(scalar.value)) } else { decoded.append(contentsOf: UTF8.encode(scalar)!) }
            default:
                guard byte >= 0x20 else { throw Malformed() }
                decoded.append(byte)
            }
        }
        throw Malformed()
    }

    /// The character an escape stands for, from the byte after its backslash; lone surrogates are
    /// refused.
    private mutating func escapedScalar() throws(Malformed) -> Unicode.Scalar {
        guard index < bytes.count else { throw Malformed() }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(escape)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw Malformed()
                }
                index += 2
                let low = UInt32(try hex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw Malformed() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw Malformed()
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw Malformed() }
            return unicode
        default:
            throw Malformed()
        }
    }

    private mutating func hex4() throws(Malformed) -> UInt16 {
        guard index + 4 <= bytes.count else { throw Malformed() }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Malformed()
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`: an integer when it is one that fits in
    /// 64 bits (`2.0` and `2e0` included), a finite double otherwise.
    private mutating func number() throws(Malformed) -> JSONValue {
        let (start, isInteger) = try numberToken()
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw Malformed() }
        if double == double.rounded(), abs(double) < 9_007_199_254_740_992 { return .integer(Int64(double)) }
        return .number(double)
    }

    /// A number's text, checked against the grammar: where it starts, and whether it has neither a
    /// fraction nor an exponent.
    private mutating func numberToken() throws(Malformed) -> (start: Int, isInteger: Bool) {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        guard try digits() > 0 else { throw Malformed() }
        // No leading zeros.
        if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 { throw Malformed() }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard try digits() > 0 else { throw Malformed() }
            isInteger = false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard try digits() > 0 else { throw Malformed() }
            isInteger = false
        }
        return (start, isInteger)
    }

    private mutating func digits() throws(Malformed) -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }
}

// Reading without building: a line is checked whole first, then only the parts asked for are
// read (a request's envelope, its params field by field as its type decodes them), so no tree of
// the whole text is made. Every check is the one `read` makes: the same text is taken or refused.
extension JSONReader {
    /// True when `bytes` hold what `read` takes: one value, with nothing but whitespace around it.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = JSONReader(bytes: bytes)
        do {
            try reader.skipValue()
        } catch {
            return false
        }
        reader.skipWhitespace()
        return reader.index == bytes.count
    }

    /// The members of the object at `range` of valid text, in order: each key and where its value
    /// is (a repeated key is listed each time; the last one counts).
    static func members(of range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> [(key: String, value: Range<Int>)] {
        var reader = JSONReader(bytes: bytes)
        reader.index = range.lowerBound + 1  // {
        var members: [(key: String, value: Range<Int>)] = []
        do {
            while true {
                reader.skipWhitespace()
                guard reader.index < range.upperBound, bytes[reader.index] == UInt8(ascii: "\"") else { return members }
                let key = try reader.string()
                reader.skipWhitespace()
                reader.index += 1  // :
                members.append((key, try reader.valueRange()))
                reader.skipWhitespace()
                reader.index += 1  // , or }
            }
        } catch {
            return members  // not reached: the text was checked
        }
    }

    /// Where each element of the array at `range` of valid text is.
    static func elements(of range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var reader = JSONReader(bytes: bytes)
        reader.index = range.lowerBound + 1  // [
        var elements: [Range<Int>] = []
        do {
            while true {
                reader.skipWhitespace()
                guard reader.index < range.upperBound, bytes[reader.index] != UInt8(ascii: "]") else { return elements }
                elements.append(try reader.valueRange())
                reader.skipWhitespace()
                reader.index += 1  // , or ]
            }
        } catch {
            return elements  // not reached: the text was checked
        }
    }

    /// Where the value starting at or after `start` of valid text is, whitespace left out.
    static func valueRange(from start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var reader = JSONReader(bytes: bytes)
        reader.index = start
        return (try? reader.valueRange()) ?? start..<start
    }

    /// The value at `range` of valid text, read whole.
    static func value(at range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> JSONValue {
        var reader = JSONReader(bytes: UnsafeBufferPointer(rebasing: bytes[..<range.upperBound]))
        reader.index = range.lowerBound
        return (try? reader.value()) ?? .null
    }

    private mutating func valueRange() throws(Malformed) -> Range<Int> {
        skipWhitespace()
        let start = index
        try skipValue()
        return start..<index
    }

    private mutating func skipValue() throws(Malformed) {
        skipWhitespace()
        guard index < bytes.count else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "{"): try skipContainer(closer: UInt8(ascii: "}"), keyed: true)
        case UInt8(ascii: "["): try skipContainer(closer: UInt8(ascii: "]"), keyed: false)
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try skipNumber()
        }
    }

    private mutating func skipContainer(closer: UInt8, keyed: Bool) throws(Malformed) {
        index += 1  // { or [
        skipWhitespace()
        if index < bytes.count, bytes[index] == closer {
            index += 1
            return
        }
        while true {
            if keyed {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed() }
                try skipString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw Malformed() }
                index += 1
            }
            try skipValue()
            skipWhitespace()
            guard index < bytes.count else { throw Malformed() }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case closer:
                index += 1
                return
            default: throw Malformed()
            }
        }
    }

    private mutating func skipString() throws(Malformed) {
        index += 1  // "
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"): _ = try escapedScalar()
            default: guard byte >= 0x20 else { throw Malformed() }
            }
        }
        throw Malformed()
    }

    /// A number `read` takes: one that fits in 64 bits as an integer, or a finite double.
    private mutating func skipNumber() throws(Malformed) {
        let (start, isInteger) = try numberToken()
        // Eighteen digits always fit in 64 bits; anything longer or not an integer is checked as
        // `number()` reads it.
        if isInteger, index - start <= 18 { return }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, Int64(text) != nil { return }
        guard let double = Double(text), double.isFinite else { throw Malformed() }
    }
}
