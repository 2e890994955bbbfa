// listd-floor: the least a server on listd's stack (Swift, SwiftNIO, listd's line framing) does
// for a durable edit, so `make bench` can say how far listd is from its own stack's floor and how
// far that floor is from Redis (issue 65). It reads a line, appends it to a file, and once per
// turn of its one event loop writes the turn's lines in one `write`, makes them durable with one
// `fdatasync` and replies to each with a fixed line — the shape of listd's pass (ListOwner.endPass)
// and of Redis's `appendfsync always`, with nothing else: no parsing, no lists, no journal.
//
//     listd-floor SOCKET FILE [--lines-only] [--epoll]
//
// `--lines-only` replies without the append and the fdatasync: the stack's request/reply floor.
// `--epoll` serves the same on a raw epoll loop instead of SwiftNIO (EpollFloor.swift).
// A measuring spike, not a product: bench/README.md says what its figures mean.
import Glibc
import ListRPCTransport
import NIOCore
import NIOPosix

/// The turn's lines and who waits for them; owned by the one loop.
final class Batch {
    let loop: any EventLoop
    let fd: Int32
    let durable: Bool
    private var pending: ByteBuffer
    private var waiting: [ChannelHandlerContext] = []
    private var scheduled = false
    private let reply: ByteBuffer

    init(loop: any EventLoop, fd: Int32, durable: Bool) {
        self.loop = loop
        self.fd = fd
        self.durable = durable
        pending = ByteBuffer()
        pending.reserveCapacity(64 * 1024)
        reply = ByteBuffer(string: #"{"jsonrpc":"2.0","id":0,"result":true}"# + "\n")
    }

    func add(_ line: ByteBuffer, from context: ChannelHandlerContext) {
        var line = line
        pending.writeBuffer(&line)
        pending.writeInteger(UInt8(ascii: "\n"))
        waiting.append(context)
        guard !scheduled else { return }
        scheduled = true
        // Queued behind the reads of this turn: every line the turn read shares the flush.
        loop.execute { self.end() }
    }

    private func end() {
        scheduled = false
        if durable { pending.withUnsafeReadableBytes { appendDurably($0, to: fd) } }
        pending.clear()
        let answered = waiting
        waiting.removeAll(keepingCapacity: true)
        for context in answered { context.write(NIOAny(reply), promise: nil) }
        for context in answered { context.flush() }
    }
}

/// One connection: each line read goes to the batch.
final class FloorHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let batch: Batch
    init(batch: Batch) { self.batch = batch }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        batch.add(unwrapInboundIn(data), from: context)
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fputs("usage: listd-floor SOCKET FILE [--lines-only] [--epoll]\n", stderr)
    exit(2)
}
let socketPath = arguments[1]
let durable = !arguments.contains("--lines-only")
let fd = open(arguments[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
guard fd >= 0 else {
    fputs("listd-floor: cannot open \(arguments[2]): \(String(cString: strerror(errno)))\n", stderr)
    exit(1)
}
unlink(socketPath)
if arguments.contains("--epoll") {
    var server = EpollFloor(socketPath: socketPath, file: fd, durable: durable)
    server.run()
}
// One thread, as listd's owner loop: the connections are served where the batch is made.
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let batch = Batch(loop: loop, fd: fd, durable: durable)
// NIO's types are not Sendable here; every use is on the one loop.
nonisolated(unsafe) let shared = batch
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 4096)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(LineFraming.lineDecoder())
            try channel.pipeline.syncOperations.addHandler(FloorHandler(batch: shared))
        }
    }
    .bind(unixDomainSocketPath: socketPath)
    .wait()
try channel.closeFuture.wait()
