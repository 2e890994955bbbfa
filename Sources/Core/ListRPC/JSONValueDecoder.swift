/// Decodes `Decodable` values from a `JSONValue` already read (a request's params), without
/// writing it back to text for Foundation's decoder first. Errors are `DecodingError`s with the
/// coding path of the offending value, as Foundation's are, so they name the field.
package enum JSONValueDecoder {
    package static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        if let read = DirectJSON.read(T.self, from: value) { return read }
        return try T(from: ValueDecoder(value: value, codingPath: []))
    }

    /// A `T` made of what `decoder` holds (a part of a reply decoded by its own type, such as the
    /// list in an edit's confirm): read by hand as `decode(_:from:)` reads it when `decoder` is
    /// this one's, else through `Decodable`.
    package static func decode<T: Decodable>(_ type: T.Type, from decoder: any Decoder) throws -> T {
        guard let ours = decoder as? ValueDecoder else { return try T(from: decoder) }
        return try decode(type, from: ours.value, at: ours.codingPath)
    }
}

extension JSONValueDecoder {
    /// A decoder for `value` found at `path` (a super decoder where text has no such member).
    static func decoder(for value: JSONValue, at path: [any CodingKey]) -> any Decoder {
        ValueDecoder(value: value, codingPath: path)
    }

    fileprivate struct ValueDecoder: Decoder {
        let value: JSONValue
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
            return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
            return UnkeyedContainer(elements: elements, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            SingleValueContainer(value: value, codingPath: codingPath)
        }
    }

    /// The error for a key the value has not (both decoders throw it, word for word).
    static func keyNotFound(_ key: any CodingKey, _ path: [any CodingKey]) -> DecodingError {
        .keyNotFound(key, .init(codingPath: path, debugDescription: "No value associated with key \(key.stringValue)."))
    }

    /// The error for an element asked for past an array's end.
    static func atEnd(_ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
        .valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
    }

    /// The error for `value` where a `type` was expected (`valueNotFound` for a null).
    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        let found: String
        switch value {
        case .null:
            return .valueNotFound(
                type,
                .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead.")
            )
        case .bool: found = "a boolean"
        case .integer, .number: found = "a number"
        case .string: found = "a string"
        case .array: found = "an array"
        case .object: found = "an object"
        }
        return .typeMismatch(
            type,
            .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(found) instead.")
        )
    }

    /// Every primitive, decoded from one value.
    fileprivate static func primitive<T>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
        switch (value, type) {
        case (.bool(let bool), is Bool.Type): return bool as! T
        case (.string(let string), is String.Type): return string as! T
        case (.integer(let integer), is Double.Type): return Double(integer) as! T
        case (.number(let number), is Double.Type): return number as! T
        case (.integer(let integer), is Float.Type): return Float(integer) as! T
        case (.number(let number), is Float.Type): return Float(number) as! T
        default: throw mismatch(type, value, path)
        }
    }

    fileprivate static func integer<T: FixedWidthInteger>(
        _ type: T.Type,
        from value: JSONValue,
        at path: [any CodingKey]
    ) throws -> T {
        guard case .integer(let integer) = value else { throw mismatch(type, value, path) }
        guard let exact = T(exactly: integer) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path, debugDescription: "\(integer) does not fit in \(type).")
            )
        }
        return exact
    }

    static func decode<T: Decodable>(
        _ type: T.Type,
        from value: JSONValue,
        at path: [any CodingKey]
    ) throws -> T {
        switch type {
        case is String.Type, is Bool.Type, is Double.Type, is Float.Type:
            return try primitive(type, from: value, at: path)
        case is JSONValue.Type: return value as! T
        // Each integer type by name: asking whether T is a `FixedWidthInteger` would scan every
        // conformance record in the binary, once per type asked about (what a one-shot client pays).
        case is Int.Type: return try integer(Int.self, from: value, at: path) as! T
        case is Int64.Type: return try integer(Int64.self, from: value, at: path) as! T
        case is Int32.Type: return try integer(Int32.self, from: value, at: path) as! T
        case is Int16.Type: return try integer(Int16.self, from: value, at: path) as! T
        case is Int8.Type: return try integer(Int8.self, from: value, at: path) as! T
        case is UInt.Type: return try integer(UInt.self, from: value, at: path) as! T
        case is UInt64.Type: return try integer(UInt64.self, from: value, at: path) as! T
        case is UInt32.Type: return try integer(UInt32.self, from: value, at: path) as! T
        case is UInt16.Type: return try integer(UInt16.self, from: value, at: path) as! T
        case is UInt8.Type: return try integer(UInt8.self, from: value, at: path) as! T
        default:
            // A list inside a snapshot or a reply: read by hand when it is as listd writes it.
            if let read = DirectJSON.read(T.self, from: value) { return read }
            return try T(from: ValueDecoder(value: value, codingPath: path))
        }
    }

    fileprivate struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        var codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func value(for key: Key) throws -> JSONValue {
            guard let value = members[key.stringValue] else { throw JSONValueDecoder.keyNotFound(key, codingPath) }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            try value(for: key) == .null
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONValueDecoder.decode(type, from: try value(for: key), at: codingPath + [key])
        }

        // The primitive requirements all go through the generic one.
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

        private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            try JSONValueDecoder.decode(type, from: try value(for: key), at: codingPath + [key])
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let value = members[key.stringValue], value != .null else { return nil }
            return try JSONValueDecoder.decode(type, from: value, at: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try ValueDecoder(value: try value(for: key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try ValueDecoder(value: try value(for: key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    fileprivate struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        var codingPath: [any CodingKey]
        private(set) var currentIndex = 0

        init(elements: [JSONValue], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private var path: [any CodingKey] { codingPath + [JSONWriter.IndexKey(index: currentIndex)] }

        private mutating func next(_ type: Any.Type) throws -> JSONValue {
            guard !isAtEnd else { throw JSONValueDecoder.atEnd(type, path) }
            defer { currentIndex += 1 }
            return elements[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let path = self.path
            return try JSONValueDecoder.decode(type, from: try next(type), at: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            let path = self.path
            return try ValueDecoder(value: try next([String: JSONValue].self), codingPath: path).container(
                keyedBy: type
            )
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let path = self.path
            return try ValueDecoder(value: try next([JSONValue].self), codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let path = self.path
            return ValueDecoder(value: try next(JSONValue.self), codingPath: path)
        }
    }

    fileprivate struct SingleValueContainer: SingleValueDecodingContainer {
        let value: JSONValue
        var codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }

        func decode(_ type: Bool.Type) throws -> Bool { try JSONValueDecoder.decode(type, from: value, at: codingPath) }
        func decode(_ type: String.Type) throws -> String {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: Double.Type) throws -> Double {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: Float.Type) throws -> Float {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: Int.Type) throws -> Int { try JSONValueDecoder.decode(type, from: value, at: codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try JSONValueDecoder.decode(type, from: value, at: codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: Int32.Type) throws -> Int32 {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: Int64.Type) throws -> Int64 {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: UInt.Type) throws -> UInt { try JSONValueDecoder.decode(type, from: value, at: codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: UInt16.Type) throws -> UInt16 {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: UInt32.Type) throws -> UInt32 {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
        func decode(_ type: UInt64.Type) throws -> UInt64 {
            try JSONValueDecoder.decode(type, from: value, at: codingPath)
        }
    }
}
