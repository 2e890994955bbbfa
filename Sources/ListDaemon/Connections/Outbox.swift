import NIOCore
import Synchronization

/// Everything a connection sends, in order: replies and notifications alike go through here, so
/// a snapshot reply always precedes the notifications that follow it.
///
/// `send` never waits, so the store can fan a change out to every subscriber while holding its
/// lock. What is sent from anywhere is collected and handed to the channel by one task on its
/// event loop, with one flush: a burst of notifications costs a subscriber one wake-up and one
/// `writev`, not one per line.
final class Outbox: Sendable {
    private struct State {
        /// While a subscribe reply is being prepared, notifications wait here.
        var held: [ByteBuffer]?
        /// Sent, and not yet handed to the channel.
        var waiting: [ByteBuffer] = []
        /// A task on the event loop will hand `waiting` to the channel.
        var handOverScheduled = false
        /// Bytes sent and not yet written to the socket.
        var queued = 0
        var overflowed = false
        /// Bytes the socket has taken so far (a client that reads moves it on).
        var written = 0
        /// Called once `queued` falls to a quarter of the limit (a lagging subscriber's next
        /// notifications are due).
        var whenDrained: (@Sendable () -> Void)?
        /// Nothing more is sent: the connection ends once what was sent is written.
        var closing = false
        var closed = false
    }

    private let channel: any Channel
    private let state = Mutex(State())
    /// Bytes that may wait for a client that does not read, at most.
    let limit: Int
    private let onOverflow: @Sendable (Int) -> Void

    /// - Parameters:
    ///   - limit: when more than this many bytes wait to be written, the client is not reading:
    ///     nothing more is queued, and `onOverflow` is called once (with the bytes waiting) to
    ///     end the connection, so one slow reader never holds anyone else up or grows listd.
    init(channel: any Channel, limit: Int = .max, onOverflow: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.channel = channel
        self.limit = limit
        self.onOverflow = onOverflow
    }

    /// A reply to this connection's own request.
    func sendReply(_ buffer: ByteBuffer) {
        send(buffer, isNotification: false)
    }

    /// A notification: delivered now, or after the pending subscribe reply.
    func sendNotification(_ buffer: ByteBuffer) {
        send(buffer, isNotification: true)
    }

    private func send(_ buffer: ByteBuffer, isNotification: Bool) {
        let size = buffer.readableBytes
        let (scheduleHandOver, overflowWith) = state.withLock { state -> (Bool, Int?) in
            if state.overflowed || state.closing || state.closed { return (false, nil) }
            // A single message bigger than the limit still goes to a client that keeps up.
            if state.queued > 0, state.queued + size > limit {
                state.overflowed = true
                state.waiting = []
                state.held = nil
                return (false, state.queued)
            }
            state.queued += size
            if isNotification, state.held != nil {
                state.held!.append(buffer)
                return (false, nil)
            }
            state.waiting.append(buffer)
            guard !state.handOverScheduled else { return (false, nil) }
            state.handOverScheduled = true
            return (true, nil)
        }
        if let overflowWith { onOverflow(overflowWith) }
        if scheduleHandOver { channel.eventLoop.execute { self.handOver() } }
    }

    /// On the event loop: everything waiting goes to the channel, then one flush.
    private func handOver() {
        let (buffers, closing) = state.withLock { state -> ([ByteBuffer], Bool) in
            state.handOverScheduled = false
            defer { state.waiting = [] }
            if state.closed { return ([], false) }
            if state.closing { state.closed = true }
            return (state.waiting, state.closing)
        }
        // A closing connection gets an empty write too, to know when everything before it is out.
        guard let last = buffers.last ?? (closing ? ByteBuffer() : nil) else { return }
        var bytes = 0
        for buffer in buffers.dropLast() {
            bytes += buffer.readableBytes
            channel.write(buffer, promise: nil)
        }
        bytes += last.readableBytes
        // Writes complete in order: when the last is written, all of them are.
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [bytes, channel, limit] _ in
            let drained = self.state.withLock { state -> (@Sendable () -> Void)? in
                state.queued -= bytes
                state.written += bytes
                guard state.queued <= limit / 4, let drained = state.whenDrained else { return nil }
                state.whenDrained = nil
                return drained
            }
            drained?()
            if closing { channel.close(promise: nil) }
        }
        channel.writeAndFlush(last, promise: written)
    }

    /// Bytes sent and not yet taken by the socket.
    var queuedBytes: Int { state.withLock { $0.queued } }

    /// Bytes the socket has taken so far.
    var writtenBytes: Int { state.withLock { $0.written } }

    /// Calls `body` once the bytes waiting fall to a quarter of the limit (at once if they have).
    func whenDrained(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.queued <= limit / 4 { return true }
            state.whenDrained = body
            return false
        }
        if now { body() }
    }

    /// The client does not read: what waits is dropped and `onOverflow` ends the connection.
    func giveUp() {
        let waiting = state.withLock { state -> Int? in
            guard !state.overflowed, !state.closed else { return nil }
            state.overflowed = true
            state.waiting = []
            state.held = nil
            return state.queued
        }
        if let waiting { onOverflow(waiting) }
    }

    /// Ends the connection once everything sent so far is written (or after `closeGrace`, for a
    /// client that does not read its last replies).
    func closeWhenWritten() {
        let (closingNow, scheduleHandOver) = state.withLock { state -> (Bool, Bool) in
            guard !state.closing, !state.closed else { return (false, false) }
            state.closing = true
            guard !state.handOverScheduled else { return (true, false) }
            state.handOverScheduled = true
            return (true, true)
        }
        if scheduleHandOver { channel.eventLoop.execute { self.handOver() } }
        if closingNow {
            channel.eventLoop.scheduleTask(in: Self.closeGrace) { [channel] in channel.close(promise: nil) }
        }
    }

    /// How long a closing connection's last bytes may take to be read.
    static let closeGrace: TimeAmount = .seconds(5)

    /// Holds notifications until `release`; called before registering a subscription.
    func hold() {
        state.withLock { state in
            if state.held == nil { state.held = [] }
        }
    }

    /// Sends what was held; called right after the subscribe reply was sent.
    func release() {
        let scheduleHandOver = state.withLock { state -> Bool in
            guard let held = state.held else { return false }
            state.held = nil
            guard !held.isEmpty else { return false }
            state.waiting.append(contentsOf: held)
            guard !state.handOverScheduled else { return false }
            state.handOverScheduled = true
            return true
        }
        if scheduleHandOver { channel.eventLoop.execute { self.handOver() } }
    }

    /// The connection is gone: what is sent from now on is dropped.
    func close() {
        state.withLock { state in
            state.closed = true
            state.waiting = []
            state.held = nil
        }
    }
}
