// A request listd-web's HTTP parser cannot read (headers too large, both Content-Length and
// Transfer-Encoding, junk) is answered at once, 431 or 400, and the connection closed: before,
// the parser's error ended nowhere, and the client waited until the guard's 10 s were up.
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// An HTTP child channel whose unreadable requests get their status line.
struct AnsweringMalformedRequests<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // The writer stands just before HTTP (after TLS, when served over HTTPS), the answerer
        // after every handler HTTP set up, where an error no one took arrives.
        let writer = RawResponseWriter()
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(writer)
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(MalformedRequestAnswerer(writer: writer, logger: logger))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// The status an unreadable request gets.
enum MalformedRequest {
    static func status(for error: HTTPParserError) -> (code: Int, reason: String) {
        switch error {
        case .headerOverflow: (431, "Request Header Fields Too Large")
        default: (400, "Bad Request")
        }
    }

    static func response(for error: HTTPParserError) -> String {
        let (code, reason) = status(for: error)
        return "HTTP/1.1 \(code) \(reason)\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    }
}

/// Writes bytes from its place in the pipeline: through TLS, past HTTP's encoder.
final class RawResponseWriter: ChannelOutboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Writes `text`, then closes the connection (on the channel's loop).
    func answerAndClose(_ text: String) {
        guard let context else { return }
        let buffer = context.channel.allocator.buffer(string: text)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in context.close(promise: nil) }
    }
}

/// Answers a parser error that reached the end of the pipeline; passes on everything else.
final class MalformedRequestAnswerer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let writer: RawResponseWriter
    private let logger: Logger
    private var answered = false

    init(writer: RawResponseWriter, logger: Logger) {
        self.writer = writer
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !answered else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        logger.debug("an unreadable request", metadata: ["error": "\(parserError)"])
        writer.answerAndClose(MalformedRequest.response(for: parserError))
    }
}
