// Where JSON text is written as it is made. listd writes its replies and notifications straight
// into the buffer its socket sends from (NIO's `ByteBuffer`, which ListRPCTransport — the module
// that knows NIO — makes a `JSONOutput`); a client writes into a byte array.
import ListModel

/// A growing run of bytes that JSON text is appended to.
package protocol JSONOutput {
    mutating func writeByte(_ byte: UInt8)
    mutating func writeRaw(_ bytes: UnsafeRawBufferPointer)
}

extension Array: JSONOutput where Element == UInt8 {
    package mutating func writeByte(_ byte: UInt8) { append(byte) }
    package mutating func writeRaw(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

extension Array where Element == UInt8 {
    // What other modules write into a byte array by hand (the change log's line). Not generic:
    // `JSONOutput`'s own writers, called from another module, ran unspecialized there, each byte
    // a call through a witness table.

    /// `string` as a JSON string.
    package mutating func appendJSON(string: String) { writeQuoted(string) }

    /// `integer` in decimal.
    package mutating func appendJSON(integer: Int) { writeDecimal(integer) }

    /// `strings` as a JSON array of strings.
    package mutating func appendJSON(strings: [String]) {
        append(UInt8(ascii: "["))
        for index in strings.indices {
            if index > 0 { append(UInt8(ascii: ",")) }
            writeQuoted(strings[index])
        }
        append(UInt8(ascii: "]"))
    }
}

extension JSONOutput {
    /// Text known when listd was built: a key, punctuation.
    mutating func write(_ text: StaticString) {
        writeRaw(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A whole number in decimal, without a `String` made for it.
    mutating func writeDecimal(_ value: Int) {
        guard value != 0 else { return writeByte(UInt8(ascii: "0")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value.magnitude
            var start = digits.count
            while rest > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            if value < 0 { writeByte(UInt8(ascii: "-")) }
            writeRaw(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: digits[start...])))
        }
    }

    /// `string` as a JSON string: quoted, with `"`, `\` and control characters escaped (a run of
    /// plain bytes is written at once).
    mutating func writeQuoted(_ string: String) {
        writeByte(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var clean = 0
            for (index, byte) in utf8.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                writeRaw(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[clean..<index])))
                clean = index + 1
                switch byte {
                case UInt8(ascii: "\""): write(#"\""#)
                case UInt8(ascii: "\\"): write(#"\\"#)
                case 0x0A: write(#"\n"#)
                case 0x0D: write(#"\r"#)
                case 0x09: write(#"\t"#)
                case 0x08: write(#"\b"#)
                case 0x0C: write(#"\f"#)
                default:
                    let hex: StaticString = "0123456789abcdef"
                    write(#"\u00"#)
                    writeByte(hex.utf8Start[Int(byte >> 4)])
                    writeByte(hex.utf8Start[Int(byte & 0x0F)])
                }
            }
            writeRaw(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[clean...])))
        }
        writeByte(UInt8(ascii: "\""))
    }

    /// `time` in RFC 3339 (`2026-11-26T22:44:32.123Z`), unquoted.
    mutating func writeRFC3339(_ time: Timestamp) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Timestamp.rfc3339MaximumLength) { buffer in
            let count = time.writeRFC3339(into: buffer)
            writeRaw(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<count])))
        }
    }
}
