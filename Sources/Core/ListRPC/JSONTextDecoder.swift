// Decodes `Decodable` values straight from JSON text already checked (a request's params): an
// object's members are found where they are in the bytes and each is read as its type asks for
// it, so no `JSONValue` tree is built. What it decides, and the errors it throws (`DecodingError`s
// with the offending value's coding path), are `JSONValueDecoder`'s: a scalar is read and handed
// to it, and FuzzChecks holds the two to the same answer for any line.

package enum JSONTextDecoder {
    package static func decode<T: Decodable>(_ type: T.Type, from text: JSONText) throws -> T {
        if let read = DirectJSON.read(T.self, fromText: text) { return read }
        return try decode(type, at: text.range, in: text.line, path: [])
    }

    /// The value at `range` of `line` as a `T`.
    fileprivate static func decode<T: Decodable>(
        _ type: T.Type,
        at range: Range<Int>,
        in line: [UInt8],
        path: [any CodingKey]
    ) throws -> T {
        switch line[range.lowerBound] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if T.self == JSONValue.self { return line.withUnsafeBufferPointer { JSONReader.value(at: range, in: $0) } as! T }
            switch type {
            case is String.Type, is Bool.Type, is Double.Type, is Float.Type, is any FixedWidthInteger.Type:
                throw JSONValueDecoder.mismatch(type, kind(at: range, in: line), path)
            default:
                return try T(from: TextDecoder(line: line, range: range, codingPath: path))
            }
        default:
            let scalar = line.withUnsafeBufferPointer { JSONReader.value(at: range, in: $0) }
            return try JSONValueDecoder.decode(type, from: scalar, at: path)
        }
    }

    /// What a container is, for an error that says what was found.
    fileprivate static func kind(at range: Range<Int>, in line: [UInt8]) -> JSONValue {
        line[range.lowerBound] == UInt8(ascii: "{") ? .object([:]) : .array([])
    }

    fileprivate static func isNull(at range: Range<Int>, in line: [UInt8]) -> Bool {
        line[range.lowerBound] == UInt8(ascii: "n")
    }
}

extension JSONTextDecoder {
    fileprivate struct TextDecoder: Decoder {
        let line: [UInt8]
        let range: Range<Int>
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        private var scalarOrKind: JSONValue {
            switch line[range.lowerBound] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): kind(at: range, in: line)
            default: line.withUnsafeBufferPointer { JSONReader.value(at: range, in: $0) }
            }
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard line[range.lowerBound] == UInt8(ascii: "{") else {
                throw JSONValueDecoder.mismatch([String: JSONValue].self, scalarOrKind, codingPath)
            }
            let members = line.withUnsafeBufferPointer { JSONReader.members(of: range, in: $0) }
            return KeyedDecodingContainer(KeyedContainer<Key>(line: line, members: members, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard line[range.lowerBound] == UInt8(ascii: "[") else {
                throw JSONValueDecoder.mismatch([JSONValue].self, scalarOrKind, codingPath)
            }
            let elements = line.withUnsafeBufferPointer { JSONReader.elements(of: range, in: $0) }
            return UnkeyedContainer(line: line, elements: elements, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            SingleValueContainer(line: line, range: range, codingPath: codingPath)
        }
    }

    fileprivate struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let line: [UInt8]
        /// In the order written; a repeated key's last value counts, as `JSONReader` takes it.
        let members: [(key: String, value: Range<Int>)]
        var codingPath: [any CodingKey]

        var allKeys: [Key] {
            var seen = Set<String>()
            return members.reversed().filter { seen.insert($0.key).inserted }.reversed().compactMap { Key(stringValue: $0.key) }
        }

        private func range(of key: Key) -> Range<Int>? {
            let name = key.stringValue
            return members.last(where: { $0.key == name })?.value
        }

        func contains(_ key: Key) -> Bool { range(of: key) != nil }

        private func present(_ key: Key) throws -> Range<Int> {
            guard let range = range(of: key) else { throw JSONValueDecoder.keyNotFound(key, codingPath) }
            return range
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            isNull(at: try present(key), in: line)
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONTextDecoder.decode(type, at: try present(key), in: line, path: codingPath + [key])
        }

        // The primitive requirements all go through the generic one.
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

        private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            try JSONTextDecoder.decode(type, at: try present(key), in: line, path: codingPath + [key])
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let range = range(of: key), !isNull(at: range, in: line) else { return nil }
            return try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type,
            forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try TextDecoder(line: line, range: try present(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try TextDecoder(line: line, range: try present(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            try superDecoder(named: "super", path: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            try superDecoder(named: key.stringValue, path: codingPath + [key])
        }

        private func superDecoder(named name: String, path: [any CodingKey]) throws -> any Decoder {
            guard let range = members.last(where: { $0.key == name })?.value else {
                return JSONValueDecoder.decoder(for: .null, at: path)
            }
            return TextDecoder(line: line, range: range, codingPath: path)
        }
    }

    fileprivate struct UnkeyedContainer: UnkeyedDecodingContainer {
        let line: [UInt8]
        let elements: [Range<Int>]
        var codingPath: [any CodingKey]
        private(set) var currentIndex = 0

        init(line: [UInt8], elements: [Range<Int>], codingPath: [any CodingKey]) {
            self.line = line
            self.elements = elements
            self.codingPath = codingPath
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private var path: [any CodingKey] { codingPath + [JSONWriter.IndexKey(index: currentIndex)] }

        private mutating func next(_ type: Any.Type) throws -> Range<Int> {
            guard !isAtEnd else { throw JSONValueDecoder.atEnd(type, path) }
            defer { currentIndex += 1 }
            return elements[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, isNull(at: elements[currentIndex], in: line) else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let path = self.path
            return try JSONTextDecoder.decode(type, at: try next(type), in: line, path: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            let path = self.path
            return try TextDecoder(line: line, range: try next([String: JSONValue].self), codingPath: path)
                .container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let path = self.path
            return try TextDecoder(line: line, range: try next([JSONValue].self), codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let path = self.path
            return TextDecoder(line: line, range: try next(JSONValue.self), codingPath: path)
        }
    }

    fileprivate struct SingleValueContainer: SingleValueDecodingContainer {
        let line: [UInt8]
        let range: Range<Int>
        var codingPath: [any CodingKey]

        func decodeNil() -> Bool { isNull(at: range, in: line) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath)
        }
        func decode(_ type: Bool.Type) throws -> Bool { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: String.Type) throws -> String { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONTextDecoder.decode(type, at: range, in: line, path: codingPath) }
    }
}
