// JSON-RPC 2.0 messages as they arrive: ids, requests, responses, and one line validated into
// them (a single message, a batch, or nothing).
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request's id: JSON-RPC allows a string or a number; `null` is discouraged but legal and
/// still gets a reply (unlike a missing id, which makes a notification).
public enum RPCRequestID: Hashable, Sendable, Codable {
    /// A 64-bit integer id, written as such.
    case number(Int64)
    /// A string id.
    case string(String)
    /// `null`.
    case null
    /// A number id that is not a plain 64-bit integer as written (`7.5`, `1e2`, `2^63`), kept as
    /// its JSON text and echoed byte for byte: JSON-RPC allows any number, and a client matches
    /// its reply by what it sent.
    case numberText(String)

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
        case .numberText(let text): try container.encode(Double(text) ?? .nan)
        }
    }
}

/// A request (with an id) or a notification (without). Its params are kept as their text: the
/// method that knows their type decodes them from it (`RPCEncoding.decode(_:from:)`).
package struct RPCRequest: Sendable, Hashable {
    package var id: RPCRequestID?
    package var method: String
    package var params: JSONText?

    package init(id: RPCRequestID?, method: String, params: JSONText?) {
        self.id = id
        self.method = method
        self.params = params
    }

    package var isNotification: Bool { id == nil }
}

/// A reply to a request: its result or its error.
package struct RPCResponse: Sendable, Hashable {
    package var id: RPCRequestID?
    package var outcome: Result<JSONValue, RPCError>

    package init(id: RPCRequestID?, outcome: Result<JSONValue, RPCError>) {
        self.id = id
        self.outcome = outcome
    }
}

/// One element of what arrived on a line.
package enum RPCMessage: Sendable, Hashable {
    case request(RPCRequest)
    case response(RPCResponse)
}

/// Everything one line can hold, after validation against JSON-RPC 2.0.
package enum RPCLine: Sendable {
    /// A single message, or why it is not a valid one (and the id to answer with, if readable).
    case single(Result<RPCMessage, InvalidMessage>)
    /// A batch: each element validated on its own, as the spec says.
    case batch([Result<RPCMessage, InvalidMessage>])
    /// Blank line: ignored.
    case empty

    package struct InvalidMessage: Error, Sendable {
        package var id: RPCRequestID?
        package var error: RPCError
    }
}

extension RPCLine {
    /// What one line may hold.
    package struct Limits: Sendable, Hashable {
        /// Arrays and objects inside one another, at most.
        package var maximumDepth: Int
        /// Messages in one batch, at most.
        package var maximumBatch: Int

        package static let `default` = Limits(maximumDepth: 64, maximumBatch: 1_000)

        package init(maximumDepth: Int, maximumBatch: Int) {
            self.maximumDepth = maximumDepth
            self.maximumBatch = maximumBatch
        }
    }

    /// Reads one line (without its `\n`).
    package static func parse(_ bytes: some Collection<UInt8>, limits: Limits = .default) -> RPCLine {
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

    /// Whether a number's text is an integer as listd writes it back (`-0`, `1e2`, `1.0` are not).
    private static func isPlainInteger(_ text: ArraySlice<UInt8>) -> Bool {
        let digits = text.first == UInt8(ascii: "-") ? text.dropFirst() : text
        return digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } && text != [UInt8(ascii: "-"), UInt8(ascii: "0")]
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
            case .integer(let number)? where Self.isPlainInteger(line[idRange]): id = .number(number)
            case .integer?, .number?: id = .numberText(String(decoding: line[idRange], as: UTF8.self))
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
