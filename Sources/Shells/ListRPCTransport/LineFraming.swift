import ListRPC
import NIOCore

/// Newline-delimited framing, shared by the daemon and the client: one JSON-RPC message per
/// `\n`-terminated line, with a cap so a peer that never sends a newline cannot grow memory
/// without bound.
package enum LineFraming {
    /// Default cap on one line: 1 MiB (`LineRule`'s).
    package static let defaultMaximumLineLength = LineRule.defaultMaximumLineLength

    /// Adds the line decoder to `channel`'s pipeline and wraps it for async use. Inbound
    /// elements are lines without their terminator; outbound elements are written as given (the
    /// writer includes the `\n`). Call on the channel's event loop.
    package static func wrap(
        _ channel: any Channel,
        maximumLineLength: Int = defaultMaximumLineLength
    ) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try channel.pipeline.syncOperations.addHandler(lineDecoder(maximumLineLength: maximumLineLength))
        return try NIOAsyncChannel(
            wrappingChannelSynchronously: channel,
            configuration: .init(inboundType: ByteBuffer.self, outboundType: ByteBuffer.self)
        )
    }

    /// The handler that splits inbound bytes into lines (without their terminator), for a
    /// pipeline that handles lines itself.
    package static func lineDecoder(
        maximumLineLength: Int = defaultMaximumLineLength
    ) -> ByteToMessageHandler<some ByteToMessageDecoder> {
        ByteToMessageHandler(
            CappedLineDecoder(maximumLineLength: maximumLineLength),
            maximumBufferSize: maximumLineLength + 1
        )
    }

    /// Adds a decoder that passes lines on as `RelayedLine`s: one longer than the cap is read
    /// to its end and dropped, and only its first bytes and length passed on, so a relay can
    /// refuse that one message and go on. Call on the channel's event loop.
    package static func wrapSkippingOversized(
        _ channel: any Channel,
        maximumLineLength: Int
    ) throws -> NIOAsyncChannel<RelayedLine, ByteBuffer> {
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(SkippingLineDecoder(maximumLineLength: maximumLineLength), maximumBufferSize: maximumLineLength + 1)
        )
        return try NIOAsyncChannel(
            wrappingChannelSynchronously: channel,
            configuration: .init(inboundType: RelayedLine.self, outboundType: ByteBuffer.self)
        )
    }

    /// True when `error` means the peer sent a line longer than the cap.
    package static func isLineTooLong(_ error: any Error) -> Bool {
        error is ByteToMessageDecoderError.PayloadTooLargeError
    }
}

/// The cutting both decoders share: lines by `LineRule` (at `\n`, dropping a `\r` before it),
/// measured whether they came in one read or many (`maximumBufferSize` alone only bounds what
/// waits for a newline), each waiting line searched for its newline once.
struct LineCutter {
    enum Cut {
        case line(ByteBuffer)
        case needMoreData
        /// The line at the reader index is longer than the cap (nothing was taken).
        case tooLong
    }

    let maximumLineLength: Int
    /// How far the line waiting was searched for its newline already: a line of megabytes that
    /// comes in 64 KiB reads is searched once, not again from its start at each read.
    private var searched = 0

    init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    /// The next whole line of `buffer`, taken from it; or why there is none.
    mutating func next(_ buffer: inout ByteBuffer) -> Cut {
        let cut = buffer.withUnsafeReadableBytes { LineRule.cut($0, maximumLength: maximumLineLength, searchFrom: searched) }
        switch cut {
        case .needMoreData:
            searched = buffer.readableBytes
            return .needMoreData
        case .tooLong:
            searched = 0
            return .tooLong
        case .line(let text, let next):
            searched = 0
            let line = buffer.getSlice(at: buffer.readerIndex + text.lowerBound, length: text.count)!
            buffer.moveReaderIndex(forwardBy: next)
            return .line(line)
        }
    }
}

/// Cuts lines (`LineCutter`), and refuses a line longer than the cap: the stream ends.
struct CappedLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    private var cutter: LineCutter

    init(maximumLineLength: Int) {
        cutter = LineCutter(maximumLineLength: maximumLineLength)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        switch cutter.next(&buffer) {
        case .needMoreData: return .needMoreData
        case .tooLong: throw ByteToMessageDecoderError.PayloadTooLargeError()
        case .line(let line):
            context.fireChannelRead(Self.wrapInboundOut(line))
            return .continue
        }
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        // A partial line at the end of the stream is dropped: it was never a whole message.
        .needMoreData
    }
}

/// A line as a relay reads it: whole, or too long to pass on.
package enum RelayedLine: Sendable {
    case line(ByteBuffer)
    /// A line longer than the cap, dropped: its first bytes (up to `SkippingLineDecoder.keptPrefix`,
    /// enough for a reply's id) and its whole length.
    case oversized(prefix: ByteBuffer, length: Int)
}

/// Cuts lines as `CappedLineDecoder` does, but one past the cap is skipped to its newline
/// instead of ending the stream: memory stays bounded by the cap, and the lines after it go on.
struct SkippingLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = RelayedLine
    static let keptPrefix = 256
    private var cutter: LineCutter
    /// The line being skipped: its first bytes, and how much of it was read so far.
    private var skipping: (prefix: ByteBuffer, length: Int)?

    init(maximumLineLength: Int) {
        cutter = LineCutter(maximumLineLength: maximumLineLength)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if var skipped = skipping {
            let bytes = buffer.readableBytesView
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
                skipped.length += bytes.count
                skipping = skipped
                buffer.moveReaderIndex(forwardBy: bytes.count)
                return .needMoreData
            }
            skipped.length += bytes.distance(from: bytes.startIndex, to: newline)
            buffer.moveReaderIndex(to: newline + 1)
            skipping = nil
            context.fireChannelRead(Self.wrapInboundOut(.oversized(prefix: skipped.prefix, length: skipped.length)))
            return .continue
        }
        switch cutter.next(&buffer) {
        case .needMoreData:
            return .needMoreData
        case .tooLong:
            skipping = (buffer.getSlice(at: buffer.readerIndex, length: min(Self.keptPrefix, buffer.readableBytes))!, 0)
            return .continue
        case .line(let line):
            context.fireChannelRead(Self.wrapInboundOut(.line(line)))
            return .continue
        }
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        .needMoreData
    }
}
