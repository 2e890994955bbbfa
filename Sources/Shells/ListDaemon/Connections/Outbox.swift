import ListCore
import NIOCore

/// Everything a connection sends, in order: replies and notifications alike go through here, so
/// a snapshot reply always precedes the notifications that follow it.
///
/// Confined to the connection's loop, the owner's (listd serves every connection there): the hub,
/// the delegate registry and the connection's handler call it there, so it needs no lock. `send`
/// never waits; what a pass sends is handed to the channel by one task queued on the loop, with
/// one flush: a burst of notifications costs a subscriber one wake-up and one `writev`, not one
/// per line.
final class Outbox: @unchecked Sendable {
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
        var whenDrained: (() -> Void)?
        /// Nothing more is sent: the connection ends once what was sent is written.
        var closing = false
        var closed = false
    }

    private let channel: any Channel
    /// Owned by `channel.eventLoop`.
    private var state = State()
    /// What the client may owe (`ConnectionRules.overflows`, `lags`, `hasDrained`) and how long a
    /// closing connection waits.
    let rules: ConnectionRules
    private let onOverflow: (Int, GiveUp) -> Void

    /// Why a client is no longer sent anything.
    enum GiveUp: Sendable {
        /// It owes more than `--max-outbound-bytes`.
        case overLimit
        /// It took nothing for a whole `stallGrace` while owing bytes (`SubscriptionHub`).
        case stalled
    }

    /// - Parameters:
    ///   - rules: when the client owes more than they allow, it is not reading: nothing more is
    ///     queued, and `onOverflow` is called once (with the bytes waiting and why) to end the
    ///     connection.
    init(channel: any Channel, rules: ConnectionRules = ConnectionRules(), onOverflow: @escaping (Int, GiveUp) -> Void = { _, _ in }) {
        self.channel = channel
        self.rules = rules
        self.onOverflow = onOverflow
    }

    /// A line never held back: a reply to this connection's own request, a question put to it
    /// as a delegate, an error about the connection itself.
    func sendNow(_ buffer: ByteBuffer) {
        send(buffer, isNotification: false)
    }

    /// A notification: delivered now, or after the pending subscribe reply.
    func sendNotification(_ buffer: ByteBuffer) {
        send(buffer, isNotification: true)
    }

    private func send(_ buffer: ByteBuffer, isNotification: Bool) {
        channel.eventLoop.assertInEventLoop()
        if state.overflowed || state.closing || state.closed { return }
        let size = buffer.readableBytes
        if rules.overflows(adding: size, owed: state.queued) {
            state.overflowed = true
            state.waiting = []
            state.held = nil
            onOverflow(state.queued, .overLimit)
            return
        }
        state.queued += size
        if isNotification, state.held != nil {
            state.held!.append(buffer)
            return
        }
        state.waiting.append(buffer)
        scheduleHandOver()
    }

    /// One task per turn of the loop hands what waits to the channel.
    private func scheduleHandOver() {
        guard !state.handOverScheduled else { return }
        state.handOverScheduled = true
        channel.eventLoop.execute { self.handOver() }
    }

    /// On the event loop: everything waiting goes to the channel, then one flush.
    private func handOver() {
        state.handOverScheduled = false
        guard !state.closed else {
            state.waiting = []
            return
        }
        let buffers = state.waiting
        let closing = state.closing
        state.waiting = []
        if closing { state.closed = true }
        // A closing connection gets an empty write too, to know when everything before it is out.
        guard let last = buffers.last ?? (closing ? ByteBuffer() : nil) else { return }
        // Counted as the socket takes them, every `progressStep` bytes and at the end: a client
        // working through a big batch, or one big line (a whole list of 20,000 items), is seen to
        // read (the stall check), at one promise per 64 KiB rather than per line; a big line is
        // written as slices of its storage. Writes complete in order.
        var pieces: [ByteBuffer] = []
        for buffer in buffers {
            var rest = buffer
            while rest.readableBytes > Self.progressStep, let slice = rest.readSlice(length: Self.progressStep) {
                pieces.append(slice)
            }
            pieces.append(rest)
        }
        if pieces.isEmpty { pieces = [last] }
        var bytes = 0
        for piece in pieces.dropLast() {
            bytes += piece.readableBytes
            guard bytes >= Self.progressStep else {
                channel.write(piece, promise: nil)
                continue
            }
            let taken = channel.eventLoop.makePromise(of: Void.self)
            taken.futureResult.whenComplete { [bytes] _ in self.account(bytes) }
            channel.write(piece, promise: taken)
            bytes = 0
        }
        bytes += pieces.last!.readableBytes
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [bytes, channel] _ in
            self.account(bytes)
            if closing { channel.close(promise: nil) }
        }
        channel.writeAndFlush(pieces.last!, promise: written)
    }

    /// How often, in bytes, a batch's progress is counted.
    static let progressStep = 64 * 1024

    /// `bytes` more were taken by the socket.
    private func account(_ bytes: Int) {
        state.queued -= bytes
        state.written += bytes
        if rules.hasDrained(owed: state.queued), let drained = state.whenDrained {
            state.whenDrained = nil
            drained()
        }
    }

    /// Bytes sent and not yet taken by the socket.
    var queuedBytes: Int { state.queued }

    /// The client owes so much that a live subscription of it lags (`ConnectionRules.lags`).
    var lags: Bool { rules.lags(owed: state.queued) }

    /// Bytes the socket has taken so far.
    var writtenBytes: Int { state.written }

    /// Calls `body` once the client has drained (`ConnectionRules.hasDrained`; at once if it has).
    func whenDrained(_ body: @escaping () -> Void) {
        channel.eventLoop.assertInEventLoop()
        if rules.hasDrained(owed: state.queued) {
            body()
        } else {
            state.whenDrained = body
        }
    }

    /// The client does not read: what waits is dropped and `onOverflow` ends the connection.
    func giveUp() {
        channel.eventLoop.assertInEventLoop()
        guard !state.overflowed, !state.closed else { return }
        state.overflowed = true
        state.waiting = []
        state.held = nil
        onOverflow(state.queued, .stalled)
    }

    /// Ends the connection once everything sent so far is written (or after `closeGrace`, for a
    /// client that does not read its last replies).
    func closeWhenWritten() {
        channel.eventLoop.assertInEventLoop()
        guard !state.closing, !state.closed else { return }
        state.closing = true
        scheduleHandOver()
        channel.eventLoop.scheduleTask(in: TimeAmount(rules.closeGrace)) { [channel] in channel.close(promise: nil) }
    }

    /// Holds notifications until `release`; called before registering a subscription.
    func hold() {
        channel.eventLoop.assertInEventLoop()
        if state.held == nil { state.held = [] }
    }

    /// Sends what was held; called right after the subscribe reply was sent.
    func release() {
        channel.eventLoop.assertInEventLoop()
        guard let held = state.held else { return }
        state.held = nil
        guard !held.isEmpty else { return }
        state.waiting.append(contentsOf: held)
        scheduleHandOver()
    }

    /// The connection is gone: what is sent from now on is dropped.
    func close() {
        channel.eventLoop.assertInEventLoop()
        state.closed = true
        state.waiting = []
        state.held = nil
    }
}
