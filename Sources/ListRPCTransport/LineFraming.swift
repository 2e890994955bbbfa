import NIOCore
import NIOExtras

/// Newline-delimited framing, shared by the daemon and the client: one JSON-RPC message per
/// `\n`-terminated line, with a cap so a peer that never sends a newline cannot grow memory
/// without bound.
public enum LineFraming {
    /// Default cap on one line: 1 MiB.
    public static let defaultMaximumLineLength = 1 << 20

    /// Adds the line decoder to `channel`'s pipeline and wraps it for async use. Inbound
    /// elements are lines without their terminator; outbound elements are written as given (the
    /// writer includes the `\n`). Call on the channel's event loop.
    public static func wrap(
        _ channel: any Channel,
        maximumLineLength: Int = defaultMaximumLineLength
    ) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: maximumLineLength)
        )
        return try NIOAsyncChannel(
            wrappingChannelSynchronously: channel,
            configuration: .init(inboundType: ByteBuffer.self, outboundType: ByteBuffer.self)
        )
    }

    /// True when `error` means the peer sent a line longer than the cap.
    public static func isLineTooLong(_ error: any Error) -> Bool {
        error is ByteToMessageDecoderError.PayloadTooLargeError
    }
}
