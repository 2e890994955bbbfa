/// A point in time, UTC, with millisecond precision.
///
/// The model never reads a clock: callers pass the time of an edit in, so every rule is
/// deterministic under test. Formatting is RFC 3339 done by hand to keep this module free of
/// Foundation.
public struct Timestamp: Hashable, Comparable, Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSinceEpoch: Int64

    /// The time this many milliseconds after the epoch.
    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    /// 1970-01-01T00:00:00.000Z.
    public static let epoch = Timestamp(millisecondsSinceEpoch: 0)
}

extension Timestamp: CustomStringConvertible {
    /// `2026-11-22T06:47:03.123Z`
    public var description: String { rfc3339 }

    /// As the protocol writes it: `2026-11-22T06:47:03.123Z`.
    public var rfc3339: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.rfc3339MaximumLength) { buffer in
            String(decoding: buffer[..<writeRFC3339(into: buffer)], as: UTF8.self)
        }
    }

    /// The most bytes `writeRFC3339(into:)` writes (a year of nine digits, and its sign).
    public static let rfc3339MaximumLength = 32

    /// Writes `rfc3339`'s bytes (`2026-11-26T22:44:32.123Z`) at the start of `buffer` (at least
    /// `rfc3339MaximumLength` long) and returns how many: a reply carries its list's time, and
    /// building a string for it cost more than the rest of the list's fields.
    public func writeRFC3339(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let millis = millisecondsSinceEpoch
        var days = millis / 86_400_000
        var msOfDay = millis % 86_400_000
        if msOfDay < 0 {
            msOfDay += 86_400_000
            days -= 1
        }
        let (year, month, day) = Self.civil(fromDays: days)
        var count = 0
        func put(_ byte: UInt8) {
            buffer[count] = byte
            count += 1
        }
        func digits(_ value: Int64, width: Int) {
            var divisor: Int64 = 1
            var written = 1
            while written < width || value / divisor >= 10 {
                divisor *= 10
                written += 1
            }
            while divisor > 0 {
                put(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        if year < 0 { put(UInt8(ascii: "-")) }
        digits(abs(year), width: 4)
        put(UInt8(ascii: "-"))
        digits(month, width: 2)
        put(UInt8(ascii: "-"))
        digits(day, width: 2)
        put(UInt8(ascii: "T"))
        digits(msOfDay / 3_600_000, width: 2)
        put(UInt8(ascii: ":"))
        digits(msOfDay / 60_000 % 60, width: 2)
        put(UInt8(ascii: ":"))
        digits(msOfDay / 1000 % 60, width: 2)
        put(UInt8(ascii: "."))
        digits(msOfDay % 1000, width: 3)
        put(UInt8(ascii: "Z"))
        return count
    }

    /// Parses the RFC 3339 forms listd writes and common variants a person may type:
    /// optional fraction, `Z` or a numeric offset.
    public init?(rfc3339 text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += width
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            return nil
        }
        var millis: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale: Int64 = 100
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                millis += Int64(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if expect("Zz") {
            // UTC
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "+") ? 1 : -1
            index += 1
            guard let offsetHours = number(2), expect(":"), let offsetMins = number(2) else { return nil }
            offsetMinutes = sign * (offsetHours * 60 + offsetMins)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        self.init(millisecondsSinceEpoch: seconds * 1000 + millis)
    }

    // Howard Hinnant's days_from_civil / civil_from_days: exact for the proleptic Gregorian calendar.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Timestamp: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "“\(text)” is not an RFC 3339 timestamp"
            )
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }
}
