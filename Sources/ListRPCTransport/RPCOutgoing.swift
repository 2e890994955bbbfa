// JSON-RPC messages written straight into NIO's buffers: a line for a socket is made in the
// buffer it is sent from, not in a byte array copied over.
import ListRPC
import NIOCore

extension ByteBuffer: JSONOutput {
    public mutating func writeByte(_ byte: UInt8) { writeInteger(byte) }
    public mutating func writeRaw(_ bytes: UnsafeRawBufferPointer) { writeBytes(bytes) }
}

/// The messages listd and its clients send, each written into the buffer it is sent from; a
/// message becomes a line (`line(_:)`), or several one batch line (`batch(_:)`).
public enum RPCOutgoing {
    /// Room for a typical line (a confirm, a notification, a question) without growing.
    static let typicalLength = 512

    /// A request (with id) or notification (without).
    public static func request(id: RPCRequestID?, method: String, params: some Encodable) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: typicalLength)
        try RPCEncoding.writeRequest(id: id, method: method, params: params, into: &buffer)
        return buffer
    }

    /// A request or notification as a line.
    public static func line(request id: RPCRequestID?, method: String, params: some Encodable) throws -> ByteBuffer {
        line(try request(id: id, method: method, params: params))
    }

    /// A result reply.
    public static func result(id: RPCRequestID?, _ result: some Encodable) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: typicalLength)
        try RPCEncoding.writeResult(id: id, result, into: &buffer)
        return buffer
    }

    /// An error reply.
    public static func error(id: RPCRequestID?, _ error: RPCError) -> ByteBuffer {
        ByteBuffer(bytes: RPCEncoding.errorBytes(id: id, error))
    }

    /// One message as a line: its newline added in place.
    public static func line(_ message: ByteBuffer) -> ByteBuffer {
        var line = message
        line.writeInteger(UInt8(ascii: "\n"))
        return line
    }

    /// Messages (requests, or replies) joined into one batch, as a line.
    public static func batch(_ messages: [ByteBuffer]) -> ByteBuffer {
        var line = ByteBufferAllocator().buffer(capacity: messages.reduce(3) { $0 + $1.readableBytes + 1 })
        line.writeInteger(UInt8(ascii: "["))
        for (index, message) in messages.enumerated() {
            if index > 0 { line.writeInteger(UInt8(ascii: ",")) }
            line.writeImmutableBuffer(message)
        }
        line.writeInteger(UInt8(ascii: "]"))
        line.writeInteger(UInt8(ascii: "\n"))
        return line
    }
}
