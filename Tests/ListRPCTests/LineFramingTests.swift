import NIOCore
import NIOEmbedded
import Testing

@testable import ListRPCTransport

@Suite struct LineFramingTests {
    private func channel(cap: Int) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(CappedLineDecoder(maximumLineLength: cap), maximumBufferSize: cap + 1)
        )
        return channel
    }

    @Test func linesArriveWholeEvenWhenBytesTrickleIn() throws {
        let channel = try channel(cap: 64)
        for byte in Array("{\"a\":1}\n{\"b\":2}\r\n".utf8) {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "{\"a\":1}")
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "{\"b\":2}")
        #expect(try channel.finish().isClean)
    }

    @Test func aLineOfExactlyTheCapIsTaken() throws {
        let channel = try channel(cap: 16)
        try channel.writeInbound(ByteBuffer(bytes: Array(repeating: UInt8(ascii: "x"), count: 16) + [0x0A]))
        #expect(try channel.readInbound(as: ByteBuffer.self)?.readableBytes == 16)
        _ = try? channel.finish()
    }

    @Test func aLineOverTheCapIsAnErrorWhetherOrNotItsNewlineCameWithIt() throws {
        let waiting = try channel(cap: 16)
        #expect {
            try waiting.writeInbound(ByteBuffer(bytes: Array(repeating: UInt8(ascii: "x"), count: 100)))
        } throws: { error in
            LineFraming.isLineTooLong(error)
        }
        _ = try? waiting.finish()
        // Whole, in a single read: the line itself is measured, not only what waits.
        let whole = try channel(cap: 16)
        #expect {
            try whole.writeInbound(
                ByteBuffer(bytes: Array(repeating: UInt8(ascii: "x"), count: 17) + [0x0A, 0x7B, 0x7D, 0x0A])
            )
        } throws: { error in
            LineFraming.isLineTooLong(error)
        }
        _ = try? whole.finish()
    }
}
