// JSON-RPC messages written straight into NIO's buffers: a line for a socket is made in the
// buffer it is sent from, not in a byte array copied over.
import ListRPC
import NIOCore

extension ByteBuffer: JSONOutput {
    package mutating func writeByte(_ byte: UInt8) { writeInteger(byte) }
    package mutating func writeRaw(_ bytes: UnsafeRawBufferPointer) { writeBytes(bytes) }
}

/// The lines listd and its clients send, each written into the buffer it is sent from with its
/// newline, so no line is copied to end it; `batch(_:)` joins several into one line.
package enum RPCOutgoing {
    /// A request (with id) or notification (without), as a line.
    package static func request(id: RPCRequestID?, method: String, params: some Encodable) throws -> ByteBuffer {
        var line = ByteBufferAllocator().buffer(capacity: RPCEncoding.typicalLength)
        try RPCEncoding.writeRequest(id: id, method: method, params: params, into: &line)
        line.writeByte(newline)
        return line
    }

    /// A result reply, as a line.
    package static func result(id: RPCRequestID?, _ result: some Encodable) throws -> ByteBuffer {
        var line = ByteBufferAllocator().buffer(capacity: RPCEncoding.typicalLength)
        try RPCEncoding.writeResult(id: id, result, into: &line)
        line.writeByte(newline)
        return line
    }

    /// An error reply, as a line.
    package static func error(id: RPCRequestID?, _ error: RPCError) -> ByteBuffer {
        var line = ByteBufferAllocator().buffer(capacity: RPCEncoding.typicalLength)
        RPCEncoding.writeError(id: id, error, into: &line)
        line.writeByte(newline)
        return line
    }

    /// Lines (requests, or replies) joined into one batch line: each one's newline left out.
    package static func batch(_ lines: [ByteBuffer]) -> ByteBuffer {
        var batch = ByteBufferAllocator().buffer(capacity: lines.reduce(2) { $0 + $1.readableBytes })
        batch.writeByte(UInt8(ascii: "["))
        for (index, line) in lines.enumerated() {
            if index > 0 { batch.writeByte(UInt8(ascii: ",")) }
            batch.writeBytes(line.readableBytesView.dropLast())
        }
        batch.writeByte(UInt8(ascii: "]"))
        batch.writeByte(newline)
        return batch
    }

    private static let newline = UInt8(ascii: "\n")
}
