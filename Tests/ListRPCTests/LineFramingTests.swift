import ListRPCTransport
import NIOCore
import NIOEmbedded
import NIOExtras
import Testing

@Suite struct LineFramingTests {
    @Test func linesArriveWholeEvenWhenBytesTrickleIn() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: 64))
        for byte in Array("{\"a\":1}\n{\"b\":2}\r\n".utf8) {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "{\"a\":1}")
        #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "{\"b\":2}")
        #expect(try channel.finish().isClean)
    }

    @Test func aLineOverTheCapIsAnError() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: 16))
        #expect {
            try channel.writeInbound(ByteBuffer(bytes: Array(repeating: UInt8(ascii: "x"), count: 100)))
        } throws: { error in
            LineFraming.isLineTooLong(error)
        }
        _ = try? channel.finish()
    }
}
