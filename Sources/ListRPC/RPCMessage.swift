#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request's id: JSON-RPC allows a string or a number; `null` is discouraged but legal and
/// still gets a reply (unlike a missing id, which makes a notification).
public enum RPCRequestID: Hashable, Sendable, Codable {
    case number(Int64)
    case string(String)
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Int64.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .null: try container.encodeNil()
        }
    }
}

/// A request (with an id) or a notification (without). Its params are kept as their text: the
/// method that knows their type decodes them from it (`RPCEncoding.decode(_:from:)`).
public struct RPCRequest: Sendable, Hashable {
    public var id: RPCRequestID?
    public var method: String
    public var params: JSONText?

    public init(id: RPCRequestID?, method: String, params: JSONText?) {
        self.id = id
        self.method = method
        self.params = params
    }

    public var isNotification: Bool { id == nil }
}

/// A reply to a request: its result or its error.
public struct RPCResponse: Sendable, Hashable {
    public var id: RPCRequestID?
    public var outcome: Result<JSONValue, RPCError>

    public init(id: RPCRequestID?, outcome: Result<JSONValue, RPCError>) {
        self.id = id
        self.outcome = outcome
    }
}

/// One element of what arrived on a line.
public enum RPCMessage: Sendable, Hashable {
    case request(RPCRequest)
    case response(RPCResponse)
}

/// Everything one line can hold, after validation against JSON-RPC 2.0.
public enum RPCLine: Sendable {
    /// A single message, or why it is not a valid one (and the id to answer with, if readable).
    case single(Result<RPCMessage, InvalidMessage>)
    /// A batch: each element validated on its own, as the spec says.
    case batch([Result<RPCMessage, InvalidMessage>])
    /// Blank line: ignored.
    case empty

    public struct InvalidMessage: Error, Sendable {
        public var id: RPCRequestID?
        public var error: RPCError
    }
}

extension RPCLine {
    /// What one line may hold.
    public struct Limits: Sendable, Hashable {
        /// Arrays and objects inside one another, at most.
        public var maximumDepth: Int
        /// Messages in one batch, at most.
        public var maximumBatch: Int

        public static let `default` = Limits(maximumDepth: 64, maximumBatch: 1_000)

        public init(maximumDepth: Int, maximumBatch: Int) {
            self.maximumDepth = maximumDepth
            self.maximumBatch = maximumBatch
        }
    }

    /// Reads one line (without its `\n`).
    public static func parse(_ bytes: some Collection<UInt8>, limits: Limits = .default) -> RPCLine {
        if let line = bytes.withContiguousStorageIfAvailable({ parse(buffer: $0, limits: limits) }) { return line }
        return Array(bytes).withUnsafeBufferPointer { parse(buffer: $0, limits: limits) }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>, limits: Limits) -> RPCLine {
        if buffer.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return .empty }
        guard String(validating: buffer, as: UTF8.self) != nil else {
            return .single(.failure(.init(id: nil, error: .parseError("the line is not valid UTF-8."))))
        }
        // Checked before reading: nesting is followed by recursion.
        if nestingDepth(buffer) > limits.maximumDepth {
            return .single(
                .failure(
                    .init(id: nil, error: .invalidRequest("JSON nested deeper than \(limits.maximumDepth) levels."))
                )
            )
        }
        guard JSONReader.isValid(buffer) else {
            return .single(.failure(.init(id: nil, error: .parseError("the line is not valid JSON."))))
        }
        // One copy of the line, which every request's params in it keep a part of.
        let line = Array(buffer)
        let whole = JSONReader.valueRange(from: 0, in: buffer)
        if line[whole.lowerBound] == UInt8(ascii: "[") {
            let elements = JSONReader.elements(of: whole, in: buffer)
            if elements.isEmpty {
                return .single(.failure(.init(id: nil, error: .invalidRequest("a batch must not be empty."))))
            }
            if elements.count > limits.maximumBatch {
                return .single(.failure(.init(id: nil, error: .batchTooLarge(elements.count, maximum: limits.maximumBatch))))
            }
            return .batch(elements.map { message(at: $0, in: line, buffer) })
        }
        return .single(message(at: whole, in: line, buffer))
    }

    /// The deepest nesting of arrays and objects in `data`, brackets inside strings aside.
    static func nestingDepth(_ data: UnsafeBufferPointer<UInt8>) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// The message at `range` of a checked line: its envelope read member by member, its params
    /// kept as text, a response's result or error read whole (a delegate's answer is small).
    private static func message(
        at range: Range<Int>,
        in line: [UInt8],
        _ buffer: UnsafeBufferPointer<UInt8>
    ) -> Result<RPCMessage, InvalidMessage> {
        guard line[range.lowerBound] == UInt8(ascii: "{") else {
            return .failure(.init(id: nil, error: .invalidRequest("a message must be a JSON object.")))
        }
        let members = JSONReader.members(of: range, in: buffer)
        /// A member's value (the last one, when a key is repeated).
        func member(_ key: String) -> Range<Int>? { members.last(where: { $0.key == key })?.value }
        func scalar(_ range: Range<Int>) -> JSONValue? {
            switch line[range.lowerBound] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): nil
            default: JSONReader.value(at: range, in: buffer)
            }
        }
        var id: RPCRequestID?
        if let idRange = member("id") {
            switch scalar(idRange) {
            case .null?: id = .null
            case .integer(let number)?: id = .number(number)
            case .string(let string)?: id = .string(string)
            default:
                return .failure(.init(id: nil, error: .invalidRequest("“id” must be a string, an integer or null.")))
            }
        }
        guard let version = member("jsonrpc"), scalar(version) == .string("2.0") else {
            return .failure(.init(id: id, error: .invalidRequest("“jsonrpc” must be \"2.0\".")))
        }
        if let method = member("method") {
            guard case .string(let name)? = scalar(method) else {
                return .failure(.init(id: id, error: .invalidRequest("“method” must be a string.")))
            }
            var params: JSONText?
            if let paramsRange = member("params") {
                guard scalar(paramsRange) == nil else {
                    return .failure(.init(id: id, error: .invalidRequest("“params” must be an object or an array.")))
                }
                params = JSONText(line: line, range: paramsRange)
            }
            return .success(.request(RPCRequest(id: id, method: name, params: params)))
        }
        if let result = member("result") {
            return .success(.response(RPCResponse(id: id, outcome: .success(JSONReader.value(at: result, in: buffer)))))
        }
        if let errorRange = member("error"),
            case .object(let error) = JSONReader.value(at: errorRange, in: buffer),
            case .integer(let code)? = error["code"],
            case .string(let message)? = error["message"]
        {
            return .success(
                .response(
                    RPCResponse(
                        id: id,
                        outcome: .failure(RPCError(code: Int(code), message: message, data: error["data"]))
                    )
                )
            )
        }
        return .failure(.init(id: id, error: .invalidRequest("a message needs “method”, “result” or “error”.")))
    }
}

/// Builds the bytes of outgoing messages, each a complete line ending in `\n`.
public enum RPCEncoding {
    public static func json(_ value: some Encodable) throws -> Data {
        Data(try JSONWriter.encode(value))
    }

    /// `T` decoded from JSON text (a stored line, a state file), without Foundation's decoder.
    public static func decode<T: Decodable>(_ type: T.Type, fromJSON bytes: some Collection<UInt8>) throws -> T {
        try JSONValueDecoder.decode(T.self, from: value(fromJSON: bytes))
    }

    /// The value JSON text holds, for a reader that takes its fields itself (the change log reads
    /// a hundred thousand lines at a start; going through `Decodable` costs twice the parse).
    public static func value(fromJSON bytes: some Collection<UInt8>) throws -> JSONValue {
        func value(_ buffer: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
            guard String(validating: buffer, as: UTF8.self) != nil, RPCLine.nestingDepth(buffer) <= 512 else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "not UTF-8 JSON text nested at most 512 levels")
                )
            }
            do {
                return try JSONReader.read(buffer)
            } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not valid JSON"))
            }
        }
        return try bytes.withContiguousStorageIfAvailable(value) ?? Array(bytes).withUnsafeBufferPointer(value)
    }

    /// `value` decoded from a JSON value (a response's result).
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue?) throws -> T {
        try JSONValueDecoder.decode(T.self, from: value ?? .object([:]))
    }

    /// A request's params decoded from their text (absent params read as `{}`).
    public static func decode<T: Decodable>(_ type: T.Type, from params: JSONText?) throws -> T {
        try JSONTextDecoder.decode(T.self, from: params ?? JSONText.emptyObject)
    }

    private struct ResultEnvelope<R: Encodable>: Encodable {
        var jsonrpc = "2.0"
        var id: IDField
        var result: R
    }

    private struct RequestEnvelope<P: Encodable>: Encodable {
        var jsonrpc = "2.0"
        var id: RPCRequestID?
        var method: String
        var params: P

        private enum CodingKeys: String, CodingKey { case jsonrpc, id, method, params }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(jsonrpc, forKey: .jsonrpc)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(method, forKey: .method)
            // Absent params are left out: `"params":null` is not a valid request (found by
            // make fuzz, round-tripping a request whose params were absent).
            if (params as? any AbsentParams)?.isAbsent != true {
                try container.encode(params, forKey: .params)
            }
        }
    }

    /// Encodes an id, writing `null` for a missing one (responses always carry `id`).
    struct IDField: Encodable {
        var id: RPCRequestID?
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let id {
                try container.encode(id)
            } else {
                try container.encodeNil()
            }
        }
    }

    /// A result reply, without the trailing newline (so replies can be joined into a batch).
    public static func result(id: RPCRequestID?, _ result: some Encodable) throws -> Data {
        var bytes: [UInt8] = []
        try writeResult(id: id, result, into: &bytes)
        return Data(bytes)
    }

    /// Writes the result reply to `output` (listd: the buffer its socket sends from).
    public static func writeResult(id: RPCRequestID?, _ result: some Encodable, into output: inout some JSONOutput) throws {
        guard let direct = result as? any JSONDirectlyWritable else {
            let bytes = try JSONWriter.encode(ResultEnvelope(id: IDField(id: id), result: result))
            return bytes.withUnsafeBytes { output.writeRaw($0) }
        }
        // What ResultEnvelope encodes, without Codable's containers (every edit's reply).
        output.write(#"{"jsonrpc":"2.0","id":"#)
        (id ?? .null).writeJSON(into: &output)
        output.write(#","result":"#)
        direct.writeJSON(into: &output)
        output.writeByte(UInt8(ascii: "}"))
    }

    public static func error(id: RPCRequestID?, _ error: RPCError) -> Data {
        Data(errorBytes(id: id, error))
    }

    /// `error` as bytes.
    public static func errorBytes(id: RPCRequestID?, _ error: RPCError) -> [UInt8] {
        var bytes: [UInt8] = []
        writeError(id: id, error, into: &bytes)
        return bytes
    }

    /// Writes the error reply to `output`: what Codable would encode for it (`data` left out
    /// when there is none, its keys sorted), without Codable's containers (every denial).
    public static func writeError(id: RPCRequestID?, _ error: RPCError, into output: inout some JSONOutput) {
        output.write(#"{"jsonrpc":"2.0","id":"#)
        (id ?? .null).writeJSON(into: &output)
        output.write(#","error":{"code":"#)
        output.writeDecimal(error.code)
        output.write(#","message":"#)
        output.writeQuoted(error.message)
        if let data = error.data {
            output.write(#","data":"#)
            JSONWriter.write(data, into: &output)
        }
        output.write("}}")
    }

    /// A request (with id) or notification (without).
    public static func request(id: RPCRequestID?, method: String, params: some Encodable) throws -> Data {
        Data(try requestBytes(id: id, method: method, params: params))
    }

    /// A request or notification as bytes.
    public static func requestBytes(id: RPCRequestID?, method: String, params: some Encodable) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try writeRequest(id: id, method: method, params: params, into: &bytes)
        return bytes
    }

    /// Writes a request or notification to `output` (a change notification is written once per
    /// change, for every subscriber).
    public static func writeRequest(
        id: RPCRequestID?,
        method: String,
        params: some Encodable,
        into output: inout some JSONOutput
    ) throws {
        guard let direct = params as? any JSONDirectlyWritable else {
            let bytes = try JSONWriter.encode(RequestEnvelope(id: id, method: method, params: params))
            return bytes.withUnsafeBytes { output.writeRaw($0) }
        }
        // What RequestEnvelope encodes, without Codable's containers.
        output.write(#"{"jsonrpc":"2.0""#)
        if let id {
            output.write(#","id":"#)
            id.writeJSON(into: &output)
        }
        output.write(#","method":"#)
        output.writeQuoted(method)
        output.write(#","params":"#)
        direct.writeJSON(into: &output)
        output.writeByte(UInt8(ascii: "}"))
    }
}

/// Params that may be absent (an optional that is nil), and are then left out of a request.
private protocol AbsentParams {
    var isAbsent: Bool { get }
}

extension Optional: AbsentParams {
    fileprivate var isAbsent: Bool { self == nil }
}
