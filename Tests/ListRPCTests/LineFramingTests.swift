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

    /// Issue 61, case 3: a relay skips a line over its cap and goes on, keeping its start (for
    /// the reply's id) and its length; the lines around it arrive whole, in whichever reads.
    @Test func aRelaySkipsALineOverTheCapAndGoesOn() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(SkippingLineDecoder(maximumLineLength: 300), maximumBufferSize: 301)
        )
        let long = #"{"jsonrpc":"2.0","id":7,"result":""# + String(repeating: "x", count: 5_000) + #""}"#
        let bytes = Array("{\"a\":1}\n\(long)\n{\"b\":2}\n".utf8)
        var at = 0
        for size in [5, 200, 1_000, 64, 3_000, 10_000] where at < bytes.count {
            try channel.writeInbound(ByteBuffer(bytes: bytes[at..<min(at + size, bytes.count)]))
            at += size
        }
        var seen: [String] = []
        while let relayed = try channel.readInbound(as: RelayedLine.self) {
            switch relayed {
            case .line(let line): seen.append(String(buffer: line))
            case .oversized(let prefix, let length):
                seen.append("oversized \(length) from \(String(buffer: prefix).prefix(23))")
                #expect(prefix.readableBytes <= SkippingLineDecoder.keptPrefix)
            }
        }
        #expect(seen == [#"{"a":1}"#, #"oversized \#(long.utf8.count) from {"jsonrpc":"2.0","id":7"#, #"{"b":2}"#])
        #expect(try channel.finish().isClean)
    }
}
