import ListRPC
import NIOCore

/// Newline-delimited framing, shared by the daemon and the client: one JSON-RPC message per
/// `\n`-terminated line, with a cap so a peer that never sends a newline cannot grow memory
/// without bound.
public enum LineFraming {
    /// Default cap on one line: 1 MiB (`LineRule`'s).
    public static let defaultMaximumLineLength = LineRule.defaultMaximumLineLength

    /// Adds the line decoder to `channel`'s pipeline and wraps it for async use. Inbound
    /// elements are lines without their terminator; outbound elements are written as given (the
    /// writer includes the `\n`). Call on the channel's event loop.
    public static func wrap(
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
    public static func lineDecoder(
        maximumLineLength: Int = defaultMaximumLineLength
    ) -> ByteToMessageHandler<some ByteToMessageDecoder> {
        ByteToMessageHandler(
            CappedLineDecoder(maximumLineLength: maximumLineLength),
            maximumBufferSize: maximumLineLength + 1
        )
    }

    /// True when `error` means the peer sent a line longer than the cap.
    public static func isLineTooLong(_ error: any Error) -> Bool {
        error is ByteToMessageDecoderError.PayloadTooLargeError
    }
}

/// Cuts lines by `LineRule` (at `\n`, dropping a `\r` before it), and refuses a line longer than
/// the cap whether it came in one read or many: `maximumBufferSize` alone only bounds what waits
/// for a newline.
struct CappedLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    let maximumLineLength: Int
    /// How far the line waiting was searched for its newline already: a line of megabytes that
    /// comes in 64 KiB reads is searched once, not again from its start at each read.
    private var searched = 0

    init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let bytes = buffer.readableBytesView
        let from = bytes.index(bytes.startIndex, offsetBy: min(searched, bytes.count))
        switch LineRule.cut(bytes, maximumLength: maximumLineLength, searchFrom: from) {
        case .needMoreData:
            searched = bytes.count
            return .needMoreData
        case .tooLong:
            throw ByteToMessageDecoderError.PayloadTooLargeError()
        case .line(let text, let next):
            searched = 0
            let line = buffer.getSlice(at: text.lowerBound, length: text.count)!
            buffer.moveReaderIndex(to: next)
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
