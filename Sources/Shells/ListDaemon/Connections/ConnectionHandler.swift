import Foundation
import ListCore
import ListRPC
import ListRPCTransport
import Logging
import NIOCore

/// What every connection is served with.
struct ConnectionServices: Sendable {
    let methods: MethodTable
    let owner: ListOwner
    let configuration: RPCServer.Configuration
    /// The configuration's rules by listd's one table of limits (`ListdParts.limits`).
    let rules: ConnectionRules
    let logger: Logger
    /// Where clients turned away or let go are logged, a flood of them costing a few lines.
    let refusals: RefusalLog
}

/// Serves one client on its event loop: lines come in decoded by `LineFraming.lineDecoder`,
/// answers to delegate questions go to the owner the moment they are read, and requests are
/// handled one at a time, in order. A read is answered right here; anything else goes to the
/// owner by a plain call — every connection is served on the owner's loop — and the requests
/// behind it queue until its reply. Lines wait up to what `ConnectionRules.readsMore` allows;
/// beyond that the socket is not read (the kernel's buffer, then the client's writes, hold the
/// rest).
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let services: ConnectionServices
    /// How many lines are read ahead, what the client may owe.
    private let rules: ConnectionRules
    private let id: Int
    private let credentials: PeerCredentials
    /// Set when the connection is refused on accept: sent, then the connection ends.
    private let refusal: RPCError?
    private var session: Session?
    private var waiting = CircularBuffer<RPCLine>()
    /// A request is with the owner.
    private var busy = false
    /// Inside `handleWaiting` (a reply that comes at once continues its loop, not a new one).
    private var handling = false
    /// The pipeline asked to read while too many lines waited.
    private var readDeferred = false
    /// The client will send nothing more (it shut its side down, or listd is stopping).
    private var inputClosed = false
    private var context: ChannelHandlerContext?
    /// When the client last sent a line or was answered, and the next look at whether it is idle.
    private var lastActive = ContinuousClock.now
    private var idleWatch: Scheduled<Void>?

    init(services: ConnectionServices, id: Int, credentials: PeerCredentials, refusal: RPCError?) {
        self.services = services
        rules = services.rules
        self.id = id
        self.credentials = credentials
        self.refusal = refusal
    }

    private var peerMetadata: Logger.Metadata {
        ["client_pid": "\(credentials.pid)", "client_uid": "\(credentials.uid)"]
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let limit = rules.outboundLimit
        let (logger, peer, metadata) = (services.logger, credentials, peerMetadata)
        let channel = context.channel
        let grace = rules.limits.stallGrace
        let outbox = Outbox(channel: channel, rules: rules) { waiting, why in
            switch why {
            case .overLimit:
                logger.warning(
                    "disconnecting a client that stopped reading: \(waiting) bytes wait for it, the limit is \(limit) (pid \(peer.pid), uid \(peer.uid))",
                    metadata: metadata.merging(["reason": "outboundLimit"]) { $1 }
                )
            case .stalled:
                logger.warning(
                    "disconnecting a client that stopped reading: it took nothing for \(grace) while notifications waited for it (pid \(peer.pid), uid \(peer.uid))",
                    metadata: metadata.merging(["reason": "stalled"]) { $1 }
                )
            }
            // Never closed right here: the hub is sending to every subscriber, and closing would
            // unsubscribe this one in the middle of it.
            channel.eventLoop.execute { channel.close(promise: nil) }
        }
        session = Session(id: id, credentials: credentials, outbox: outbox)
        if context.channel.isActive { start() }
    }

    func channelActive(context: ChannelHandlerContext) {
        start()
        context.fireChannelActive()
    }

    private var started = false

    /// Once the connection is active: a refused client gets its error line, then the connection
    /// ends; nothing it sends is read.
    private func start() {
        guard !started, let outbox = session?.outbox else { return }
        started = true
        if let refusal {
            outbox.sendNow(RPCOutgoing.error(id: nil, refusal))
            outbox.closeWhenWritten()
            inputClosed = true
        } else {
            services.logger.debug("client connected", metadata: peerMetadata)
            watchIdleness(after: rules.limits.idleLimit)
        }
    }

    private func watchIdleness(after delay: Duration) {
        guard let context else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        idleWatch = context.eventLoop.scheduleTask(in: TimeAmount(delay)) { handler.value.lookAtIdleness() }
    }

    /// A client that never said who it is and sends nothing is let go (told why first), so
    /// connections forgotten or hoarded do not hold listd's room.
    private func lookAtIdleness() {
        idleWatch = nil
        guard let context, let session, !inputClosed else { return }
        let check = rules.idleCheck(
            introduced: session.introduced,
            busy: busy || !waiting.isEmpty,
            quietFor: .now - lastActive
        )
        switch check {
        case .stopWatching:
            break
        case .lookAgain(let delay):
            watchIdleness(after: delay)
        case .letGo:
            let (seconds, attoseconds) = rules.limits.idleLimit.components
            let milliseconds = Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
            services.refusals.log(
                "let a client go",
                why: "it sent nothing for \(RPCError.idleTime(milliseconds)) and never said hello, subscribed or became a delegate",
                peer: credentials,
                on: context.eventLoop
            )
            session.outbox.sendNow(RPCOutgoing.error(id: nil, .idle(milliseconds: milliseconds)))
            session.outbox.closeWhenWritten()
            inputClosed = true
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleWatch?.cancel()
        idleWatch = nil
        session?.outbox.close()
        if refusal == nil {
            let owner = services.owner
            owner.loop.assertInEventLoop()
            owner.hub.unsubscribe(connection: id)
            // A delegate that is gone is dropped now: nobody waits out its timeout.
            owner.delegateGone(id)
        }
        waiting.removeAll()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !inputClosed else { return }
        lastActive = .now
        let buffer = unwrapInboundIn(data)
        let parsed = RPCLine.parse(buffer.readableBytesView, limits: services.configuration.lineLimits)
        guard let rest = Self.takingAnswers(parsed, owner: services.owner) else { return }
        waiting.append(rest)
        handleWaiting()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            inputClosed = true
            handleWaiting()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if LineFraming.isLineTooLong(error), let outbox = session?.outbox {
            let limit = services.configuration.maximumLineLength
            outbox.sendNow(
                RPCOutgoing.error(id: nil, .invalidRequest("a line is longer than \(limit) bytes; closing the connection."))
            )
            outbox.closeWhenWritten()
        } else {
            services.logger.debug("connection ended", metadata: peerMetadata.merging(["error": "\(error)"]) { $1 })
            context.close(promise: nil)
        }
        inputClosed = true
        waiting.removeAll()
    }

    func read(context: ChannelHandlerContext) {
        if !rules.readsMore(waiting: waiting.count) {
            readDeferred = true
        } else {
            context.read()
        }
    }

    /// Handles what waits, in order, until a request must wait for the owner.
    private func handleWaiting() {
        guard let context, let session, !handling else { return }
        handling = true
        defer { handling = false }
        let methods = services.methods
        while !busy, let line = waiting.popFirst() {
            if methods.isAnsweredWhereRead(line) {
                methods.respond(to: line, session: session) { reply in
                    if let reply { session.outbox.sendNow(reply) }
                }
                continue
            }
            busy = true
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            services.owner.loop.assertInEventLoop()
            methods.respond(to: line, session: session) { reply in
                // On the owner's loop, this connection's. A subscribe reply (alone or in a batch)
                // has been sent: held notifications follow.
                if let reply { session.outbox.sendNow(reply) }
                session.outbox.release()
                handler.value.requestAnswered()
            }
        }
        if inputClosed, !busy, waiting.isEmpty {
            session.outbox.closeWhenWritten()
        }
        // A client that said who it is is never let go for being quiet: its timer goes now, so
        // a thousand idle subscribers hold no timers and wake nothing.
        if session.introduced, let watch = idleWatch {
            watch.cancel()
            idleWatch = nil
        }
        if readDeferred, rules.readsMore(waiting: waiting.count) {
            readDeferred = false
            context.read()
        }
    }

    private func requestAnswered() {
        busy = false
        lastActive = .now
        handleWaiting()
    }

    /// Hands the answers in `line` to the delegate registry; returns what is left to handle in
    /// order (nil when nothing is).
    private static func takingAnswers(_ line: RPCLine, owner: ListOwner) -> RPCLine? {
        func isAnswer(_ message: Result<RPCMessage, RPCLine.InvalidMessage>) -> Bool {
            guard case .success(.response(let response)) = message else { return false }
            // A stray response needs no reply either way.
            owner.responseCame(response)
            return true
        }
        switch line {
        case .empty:
            return nil
        case .single(let message):
            return isAnswer(message) ? nil : line
        case .batch(let messages):
            let rest = messages.filter { !isAnswer($0) }
            // A batch of answers only gets no reply, as JSON-RPC says of responses.
            return rest.isEmpty && !messages.isEmpty ? nil : .batch(rest)
        }
    }
}
