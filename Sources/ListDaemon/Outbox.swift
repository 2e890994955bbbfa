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
        /// Bytes handed over and not yet written to the socket.
        var queued = 0
        var overflowed = false
    }

    private let continuation: AsyncStream<ByteBuffer>.Continuation
    private let state = Mutex(State())
    let stream: AsyncStream<ByteBuffer>
    /// Bytes that may wait for a client that does not read, at most.
    let limit: Int
    private let onOverflow: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - limit: when more than this many bytes wait to be written, the client is not reading:
    ///     nothing more is queued, and `onOverflow` is called once (with the bytes waiting) to
    ///     end the connection, so one slow reader never holds anyone else up or grows listd.
    init(limit: Int = .max, onOverflow: @escaping @Sendable (Int) -> Void = { _ in }) {
        (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        self.limit = limit
        self.onOverflow = onOverflow
    }

    /// A reply to this connection's own request.
    func sendReply(_ buffer: ByteBuffer) {
        if admit(buffer) { continuation.yield(buffer) }
    }

    /// A notification: delivered now, or after the pending subscribe reply.
    func sendNotification(_ buffer: ByteBuffer) {
        guard admit(buffer) else { return }
        let sendNow = state.withLock { state in
            if state.held != nil {
                state.held!.append(buffer)
                return false
            }
            return true
        }
        if sendNow { continuation.yield(buffer) }
    }

    /// The writer wrote this many bytes to the socket.
    func written(_ count: Int) {
        state.withLock { $0.queued -= count }
    }

    /// Counts `buffer` in, unless that goes over the limit (then the connection is ended).
    private func admit(_ buffer: ByteBuffer) -> Bool {
        let (admitted, overflowNow, waiting) = state.withLock { state -> (Bool, Bool, Int) in
            if state.overflowed { return (false, false, state.queued) }
            // A single message bigger than the limit still goes to a client that keeps up.
            if state.queued > 0, state.queued + buffer.readableBytes > limit {
                state.overflowed = true
                return (false, true, state.queued)
            }
            state.queued += buffer.readableBytes
            return (true, false, state.queued)
        }
        if overflowNow { onOverflow(waiting) }
        return admitted
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
