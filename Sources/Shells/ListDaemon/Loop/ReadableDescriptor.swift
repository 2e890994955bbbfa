import Glibc
import ListCore
import NIOCore
import NIOPosix

/// Reads a descriptor that is neither a socket nor a file (inotify, signalfd) on an event loop
/// that already runs, as NIO reads a socket: a pipe channel on a duplicate of it (NIO closes
/// what it is given; the owner keeps using and closing the original). No thread, queue or timer
/// of its own.
enum ReadableDescriptor {
    /// Registers `descriptor` with `loop`: `read` runs there with each buffer read (`bufferSize`
    /// at most: whole records, for descriptors that never split one across reads), `readEnded`
    /// once the reads of a turn of the loop are over. Returns the channel, to close at the end.
    /// Call on `loop`.
    static func register(
        _ descriptor: Int32,
        on loop: any EventLoop,
        bufferSize: Int,
        read: @escaping (ByteBuffer) -> Void,
        readEnded: @escaping () -> Void = {},
        failed: @escaping (any Error) -> Void
    ) -> EventLoopFuture<any Channel> {
        let duplicate = dup(descriptor)
        guard duplicate >= 0 else {
            return loop.makeFailedFuture(IOError(errnoCode: errno, reason: "dup"))
        }
        // Made here and added there, on the same loop: the channel's loop is `loop`.
        let handler = NIOLoopBound(Reader(read: read, readEnded: readEnded, failed: failed), eventLoop: loop)
        return NIOPipeBootstrap(group: loop)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: bufferSize))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(handler.value)
                }
            }
            .takingOwnershipOfDescriptor(input: duplicate)
            .flatMapErrorThrowing { error in
                close(duplicate)
                throw error
            }
    }

    private final class Reader: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let read: (ByteBuffer) -> Void
        let readEnded: () -> Void
        let failed: (any Error) -> Void

        init(read: @escaping (ByteBuffer) -> Void, readEnded: @escaping () -> Void, failed: @escaping (any Error) -> Void) {
            self.read = read
            self.readEnded = readEnded
            self.failed = failed
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) { read(unwrapInboundIn(data)) }
        func channelReadComplete(context: ChannelHandlerContext) { readEnded() }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { failed(error) }
    }
}
