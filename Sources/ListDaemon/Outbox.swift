import NIOCore
import Synchronization

/// Everything a connection sends, in order: replies and notifications alike go through here, so
/// a snapshot reply always precedes the notifications that follow it.
///
/// `send` never waits, so the store can fan a change out to every subscriber while holding its
/// lock; the connection's writer task drains the queue into the socket.
final class Outbox: Sendable {
    private struct State {
        /// While a subscribe reply is being prepared, notifications wait here.
        var held: [ByteBuffer]?
    }

    private let continuation: AsyncStream<ByteBuffer>.Continuation
    private let state = Mutex(State())
    let stream: AsyncStream<ByteBuffer>

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
    }

    /// A reply to this connection's own request.
    func sendReply(_ buffer: ByteBuffer) {
        continuation.yield(buffer)
    }

    /// A notification: delivered now, or after the pending subscribe reply.
    func sendNotification(_ buffer: ByteBuffer) {
        let sendNow = state.withLock { state in
            if state.held != nil {
                state.held!.append(buffer)
                return false
            }
            return true
        }
        if sendNow { continuation.yield(buffer) }
    }

    /// Holds notifications until `release`; called before registering a subscription.
    func hold() {
        state.withLock { state in
            if state.held == nil { state.held = [] }
        }
    }

    /// Sends what was held; called right after the subscribe reply went out.
    func release() {
        // Yield under the lock so no new notification can overtake the held ones.
        state.withLock { state in
            for buffer in state.held ?? [] { continuation.yield(buffer) }
            state.held = nil
        }
    }

    func finish() {
        continuation.finish()
    }
}
