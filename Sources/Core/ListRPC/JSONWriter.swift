import ListModel

/// Encodes `Encodable` values straight into JSON bytes, as they are encoded: no intermediate
/// tree, no sorting. Every reply and every notification goes through here, so this is where a
/// request's time would otherwise go (Foundation's `JSONEncoder` builds a tree of boxed values
/// first and took most of a `getList`'s time).
///
/// Keys come in the order the type encodes them (its declaration order, for synthesized
/// `Codable`); `nil` optionals are left out; `/` is not escaped. A container is closed when its
/// parent is written to again, or at the end, so a type must finish a nested container before
/// going back to its parent, as synthesized code and listd's own types do.
package enum JSONWriter {
    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        let sink = Sink()
        let encoder = StreamEncoder(sink: sink, codingPath: [])
        try value.encode(to: encoder)
        guard sink.wroteSomething(since: 0) else { return Array("{}".utf8) }
        sink.close(downTo: 0)
        return sink.bytes
    }

    /// A JSON value as text (object keys sorted, so equal values give equal bytes).
    package static func write(_ value: JSONValue, into output: inout some JSONOutput) {
        switch value {
        case .null: output.write("null")
        case .bool(let value): output.write(value ? "true" : "false")
        case .integer(let value): output.writeDecimal(Int(value))
        case .number(let value):
            var text = Sink.text(of: value)
            text.withUTF8 { output.writeRaw(UnsafeRawBufferPointer($0)) }
        case .string(let value): output.writeQuoted(value)
        case .array(let elements):
            output.writeByte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.writeByte(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.writeByte(UInt8(ascii: "]"))
        case .object(let members):
            output.writeByte(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.writeByte(UInt8(ascii: ",")) }
                output.writeQuoted(key)
                output.writeByte(UInt8(ascii: ":"))
                write(members[key]!, into: &output)
            }
            output.writeByte(UInt8(ascii: "}"))
        }
    }
}

extension JSONWriter {
    /// The bytes written so far and the containers still open, innermost last.
    final class Sink {
        struct OpenContainer {
            var id: Int
            var closer: UInt8
            var hasElements = false
        }

        var bytes: [UInt8] = []
        private(set) var open: [OpenContainer] = []
        private var nextID = 1

        init() {
            bytes.reserveCapacity(256)
        }

        func wroteSomething(since count: Int) -> Bool { bytes.count > count }

        /// Opens `{` or `[`; returns the container's id.
        func openContainer(_ opener: UInt8, closer: UInt8) -> Int {
            bytes.append(opener)
            defer { nextID += 1 }
            open.append(OpenContainer(id: nextID, closer: closer))
            return nextID
        }

        /// Closes every container opened after `id` (all of them for 0).
        func close(downTo id: Int) {
            while let last = open.last, last.id != id {
                bytes.append(last.closer)
                open.removeLast()
            }
        }

        /// Before an element of container `id`: closes what its previous element left open and
        /// writes the separator.
        func startElement(of id: Int) throws {
            close(downTo: id)
            guard let last = open.last, last.id == id else {
                throw EncodingError.invalidValue(
                    id,
                    .init(codingPath: [], debugDescription: "a container was written to after its parent went on")
                )
            }
            if last.hasElements { bytes.append(UInt8(ascii: ",")) }
            open[open.count - 1].hasElements = true
        }

        func writeKey(_ key: String) {
            bytes.writeQuoted(key)
            bytes.append(UInt8(ascii: ":"))
        }

        func write(_ string: String) { bytes.writeQuoted(string) }
        func writeRaw(_ text: String) { bytes.append(contentsOf: text.utf8) }

        func write(_ double: Double, codingPath: [any CodingKey]) throws {
            guard double.isFinite else {
                throw EncodingError.invalidValue(
                    double,
                    .init(codingPath: codingPath, debugDescription: "\(double) is not a JSON number")
                )
            }
            writeRaw(Self.text(of: double))
        }

        static func text(of double: Double) -> String {
            // Whole numbers without ".0", as JSON writers commonly do.
            if double == double.rounded(), abs(double) < 1e15 { return String(Int64(double)) }
            return "\(double)"
        }

    }

    /// The encoder of one value at one place in the output.
    struct StreamEncoder: Encoder {
        let sink: Sink
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let id = sink.openContainer(UInt8(ascii: "{"), closer: UInt8(ascii: "}"))
            return KeyedEncodingContainer(KeyedContainer<Key>(sink: sink, id: id, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let id = sink.openContainer(UInt8(ascii: "["), closer: UInt8(ascii: "]"))
            return UnkeyedContainer(sink: sink, id: id, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(sink: sink, codingPath: codingPath)
        }

        /// Encodes `value` here; a value that encodes nothing at all is written as `{}`.
        static func encode(_ value: some Encodable, sink: Sink, codingPath: [any CodingKey]) throws {
            if let json = value as? JSONValue {
                JSONWriter.write(json, into: &sink.bytes)
                return
            }
            if let text = value as? JSONText {
                sink.bytes.append(contentsOf: text.bytes)
                return
            }
            if let direct = DirectJSON.writer(for: value) {
                direct.writeJSON(into: &sink.bytes)
                return
            }
            let before = sink.bytes.count
            try value.encode(to: StreamEncoder(sink: sink, codingPath: codingPath))
            if !sink.wroteSomething(since: before) { sink.writeRaw("{}") }
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let sink: Sink
        let id: Int
        var codingPath: [any CodingKey]

        private func start(_ key: Key) throws {
            try sink.startElement(of: id)
            sink.writeKey(key.stringValue)
        }

        mutating func encodeNil(forKey key: Key) throws {
            try start(key)
            sink.writeRaw("null")
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            try start(key)
            sink.writeRaw(value ? "true" : "false")
        }
        mutating func encode(_ value: String, forKey key: Key) throws {
            try start(key)
            sink.write(value)
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            try start(key)
            try sink.write(value, codingPath: codingPath + [key])
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            try start(key)
            try sink.write(Double(value), codingPath: codingPath + [key])
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodeInteger(value, key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeInteger(value, key) }

        private func encodeInteger(_ value: some FixedWidthInteger, _ key: Key) throws {
            try start(key)
            sink.writeRaw(String(value))
        }

        mutating func encode(_ value: some Encodable, forKey key: Key) throws {
            try start(key)
            try StreamEncoder.encode(value, sink: sink, codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            try? start(key)
            let nested = sink.openContainer(UInt8(ascii: "{"), closer: UInt8(ascii: "}"))
            return KeyedEncodingContainer(
                KeyedContainer<NestedKey>(sink: sink, id: nested, codingPath: codingPath + [key])
            )
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            try? start(key)
            let nested = sink.openContainer(UInt8(ascii: "["), closer: UInt8(ascii: "]"))
            return UnkeyedContainer(sink: sink, id: nested, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            // The value is what the returned encoder writes next.
            try? start(key)
            return StreamEncoder(sink: sink, codingPath: codingPath + [key])
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let sink: Sink
        let id: Int
        var codingPath: [any CodingKey]
        private(set) var count = 0

        init(sink: Sink, id: Int, codingPath: [any CodingKey]) {
            self.sink = sink
            self.id = id
            self.codingPath = codingPath
        }

        private mutating func start() throws {
            try sink.startElement(of: id)
            count += 1
        }

        private var nextPath: [any CodingKey] { codingPath + [IndexKey(index: count)] }

        mutating func encodeNil() throws {
            try start()
            sink.writeRaw("null")
        }
        mutating func encode(_ value: Bool) throws {
            try start()
            sink.writeRaw(value ? "true" : "false")
        }
        mutating func encode(_ value: String) throws {
            try start()
            sink.write(value)
        }
        mutating func encode(_ value: Double) throws {
            try start()
            try sink.write(value, codingPath: nextPath)
        }
        mutating func encode(_ value: Float) throws {
            try start()
            try sink.write(Double(value), codingPath: nextPath)
        }
        mutating func encode(_ value: Int) throws { try encodeInteger(value) }
        mutating func encode(_ value: Int8) throws { try encodeInteger(value) }
        mutating func encode(_ value: Int16) throws { try encodeInteger(value) }
        mutating func encode(_ value: Int32) throws { try encodeInteger(value) }
        mutating func encode(_ value: Int64) throws { try encodeInteger(value) }
        mutating func encode(_ value: UInt) throws { try encodeInteger(value) }
        mutating func encode(_ value: UInt8) throws { try encodeInteger(value) }
        mutating func encode(_ value: UInt16) throws { try encodeInteger(value) }
        mutating func encode(_ value: UInt32) throws { try encodeInteger(value) }
        mutating func encode(_ value: UInt64) throws { try encodeInteger(value) }

        private mutating func encodeInteger(_ value: some FixedWidthInteger) throws {
            try start()
            sink.writeRaw(String(value))
        }

        mutating func encode(_ value: some Encodable) throws {
            let path = nextPath
            try start()
            try StreamEncoder.encode(value, sink: sink, codingPath: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            let path = nextPath
            try? start()
            let nested = sink.openContainer(UInt8(ascii: "{"), closer: UInt8(ascii: "}"))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(sink: sink, id: nested, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let path = nextPath
            try? start()
            let nested = sink.openContainer(UInt8(ascii: "["), closer: UInt8(ascii: "]"))
            return UnkeyedContainer(sink: sink, id: nested, codingPath: path)
        }

        mutating func superEncoder() -> any Encoder {
            let path = nextPath
            try? start()
            return StreamEncoder(sink: sink, codingPath: path)
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let sink: Sink
        var codingPath: [any CodingKey]

        mutating func encodeNil() throws { sink.writeRaw("null") }
        mutating func encode(_ value: Bool) throws { sink.writeRaw(value ? "true" : "false") }
        mutating func encode(_ value: String) throws { sink.write(value) }
        mutating func encode(_ value: Double) throws { try sink.write(value, codingPath: codingPath) }
        mutating func encode(_ value: Float) throws { try sink.write(Double(value), codingPath: codingPath) }
        mutating func encode(_ value: Int) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: Int8) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: Int16) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: Int32) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: Int64) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: UInt) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: UInt8) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: UInt16) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: UInt32) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: UInt64) throws { sink.writeRaw(String(value)) }
        mutating func encode(_ value: some Encodable) throws {
            try StreamEncoder.encode(value, sink: sink, codingPath: codingPath)
        }
    }

    struct IndexKey: CodingKey {
        var index: Int
        var stringValue: String { "Index \(index)" }
        var intValue: Int? { index }
        init(index: Int) { self.index = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.index = intValue }
    }
}
