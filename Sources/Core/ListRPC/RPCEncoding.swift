// JSON-RPC messages to and from bytes: results, errors and requests written without Codable's
// containers where their types allow, params and values decoded from text without a tree.
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The bytes of messages: what listd and its clients write (results, errors, requests — a
/// message without its line's newline; `RPCOutgoing` ends lines where it makes them) and the
/// typed values read back from JSON text.
package enum RPCEncoding {
    package static func json(_ value: some Encodable) throws -> Data {
        Data(try JSONWriter.encode(value))
    }

    /// `T` decoded from JSON text (a stored line, a state file), without Foundation's decoder.
    package static func decode<T: Decodable>(_ type: T.Type, fromJSON bytes: some Collection<UInt8>) throws -> T {
        try JSONValueDecoder.decode(T.self, from: value(fromJSON: bytes))
    }

    /// The value JSON text holds, for a reader that takes its fields itself (the change log reads
    /// a hundred thousand lines at a start; going through `Decodable` costs twice the parse).
    package static func value(fromJSON bytes: some Collection<UInt8>) throws -> JSONValue {
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
    package static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue?) throws -> T {
        try JSONValueDecoder.decode(T.self, from: value ?? .object([:]))
    }

    /// A request's params decoded from their text (absent params read as `{}`).
    package static func decode<T: Decodable>(_ type: T.Type, from params: JSONText?) throws -> T {
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
    package static func result(id: RPCRequestID?, _ result: some Encodable) throws -> Data {
        var bytes: [UInt8] = []
        try writeResult(id: id, result, into: &bytes)
        return Data(bytes)
    }

    /// Writes the result reply to `output` (listd: the buffer its socket sends from).
    package static func writeResult(id: RPCRequestID?, _ result: some Encodable, into output: inout some JSONOutput) throws {
        guard let direct = DirectJSON.writer(for: result) else {
            let bytes = try JSONWriter.encode(ResultEnvelope(id: IDField(id: id), result: result))
            return bytes.withUnsafeBytes { output.writeRaw($0) }
        }
        // What ResultEnvelope encodes, without Codable's containers (every edit's reply). Made in
        // an array, then copied once (`lineByHand`).
        lineByHand(into: &output) { line in
            line.write(#"{"jsonrpc":"2.0","id":"#)
            (id ?? .null).writeJSON(into: &line)
            line.write(#","result":"#)
            direct.writeJSON(into: &line)
            line.writeByte(UInt8(ascii: "}"))
        }
    }

    /// A line `write` makes in a byte array, copied to `output` once. The hand writers take an
    /// array, not any `JSONOutput`: called through `JSONDirectlyWritable`, a writer generic over
    /// its output ran unspecialized, every byte a call through a witness table (a brief confirm
    /// cost 5,000 instructions to write); one copy of a line costs a hundred.
    private static func lineByHand(into output: inout some JSONOutput, _ write: (inout [UInt8]) -> Void) {
        var line: [UInt8] = []
        line.reserveCapacity(typicalLength)
        write(&line)
        line.withUnsafeBytes { output.writeRaw($0) }
    }

    /// Room for a typical line (a confirm, a notification, a question, a denial) without growing.
    package static let typicalLength = 512

    package static func error(id: RPCRequestID?, _ error: RPCError) -> Data {
        Data(errorBytes(id: id, error))
    }

    /// `error` as bytes.
    package static func errorBytes(id: RPCRequestID?, _ error: RPCError) -> [UInt8] {
        var bytes: [UInt8] = []
        writeError(id: id, error, into: &bytes)
        return bytes
    }

    /// Writes the error reply to `output`: what Codable would encode for it (`data` left out
    /// when there is none, its keys sorted), without Codable's containers (every denial).
    package static func writeError(id: RPCRequestID?, _ error: RPCError, into output: inout some JSONOutput) {
        lineByHand(into: &output) { line in
            line.write(#"{"jsonrpc":"2.0","id":"#)
            (id ?? .null).writeJSON(into: &line)
            line.write(#","error":{"code":"#)
            line.writeDecimal(error.code)
            line.write(#","message":"#)
            line.writeQuoted(error.message)
            if let data = error.data {
                line.write(#","data":"#)
                JSONWriter.write(data, into: &line)
            }
            line.write("}}")
        }
    }

    /// A request (with id) or notification (without).
    package static func request(id: RPCRequestID?, method: String, params: some Encodable) throws -> Data {
        Data(try requestBytes(id: id, method: method, params: params))
    }

    /// A request or notification as bytes.
    package static func requestBytes(id: RPCRequestID?, method: String, params: some Encodable) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try writeRequest(id: id, method: method, params: params, into: &bytes)
        return bytes
    }

    /// Writes a request or notification to `output` (a change notification is written once per
    /// change, for every subscriber).
    package static func writeRequest(
        id: RPCRequestID?,
        method: String,
        params: some Encodable,
        into output: inout some JSONOutput
    ) throws {
        guard let direct = DirectJSON.writer(for: params) else {
            let bytes = try JSONWriter.encode(RequestEnvelope(id: id, method: method, params: params))
            return bytes.withUnsafeBytes { output.writeRaw($0) }
        }
        // What RequestEnvelope encodes, without Codable's containers.
        lineByHand(into: &output) { line in
            line.write(#"{"jsonrpc":"2.0""#)
            if let id {
                line.write(#","id":"#)
                id.writeJSON(into: &line)
            }
            line.write(#","method":"#)
            line.writeQuoted(method)
            line.write(#","params":"#)
            direct.writeJSON(into: &line)
            line.writeByte(UInt8(ascii: "}"))
        }
    }
}

/// Params that may be absent (an optional that is nil), and are then left out of a request.
private protocol AbsentParams {
    var isAbsent: Bool { get }
}

extension Optional: AbsentParams {
    fileprivate var isAbsent: Bool { self == nil }
}
