// Every connection listd-web accepts passes through here first: counted against the limit
// (ConnectionSlots decides whom to close when full), closed if it shows no paired device's
// token in time, and kept once it does. The guard sits first in each connection's pipeline,
// before TLS and HTTP.
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The connections open now, shared by every connection's guard and by the device check.
final class GuardedConnections: Sendable {
    private struct State {
        var slots: ConnectionSlots
        var nextID: ConnectionSlots.ID = 0
        /// The open channels by identity, with their number (closing an evicted one needs it).
        var channels: [ObjectIdentifier: (id: ConnectionSlots.ID, channel: any Channel)] = [:]
    }

    let limits: WebLimits
    private let state: Mutex<State>
    private let logger: Logger

    init(limits: WebLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
        state = Mutex(State(slots: ConnectionSlots(limits: limits)))
    }

    var count: Int { state.withLock { $0.slots.count } }

    /// A connection was accepted: counted, and what the slots say to close is closed; the new
    /// one is closed too after the unpaired timeout unless it is proven by then.
    func opened(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let (id, evicted) = state.withLock { state -> (ConnectionSlots.ID, [any Channel]) in
            state.nextID += 1
            let id = state.nextID
            state.channels[key] = (id, channel)
            let victims = state.slots.open(id, now: .now)
            return (id, victims.compactMap { victim in
                guard let found = state.channels.first(where: { $0.value.id == victim }) else { return nil }
                state.channels[found.key] = nil
                return found.value.channel
            })
        }
        if !evicted.isEmpty {
            logger.debug("full: closed the oldest connection not yet a paired device's", metadata: ["open": "\(limits.connections)"])
        }
        for victim in evicted { victim.close(promise: nil) }
        channel.eventLoop.scheduleTask(in: .init(limits.unpairedTimeout)) { [self] in
            if state.withLock({ $0.slots.isUnproven(id) }) { channel.close(promise: nil) }
        }
    }

    /// A request on `channel` showed a paired device's token.
    func proven(_ channel: ObjectIdentifier, device: String) {
        state.withLock { state in
            guard let id = state.channels[channel]?.id else { return }
            state.slots.proven(id, device: device)
        }
    }

    func closed(_ channel: any Channel) {
        state.withLock { state in
            guard let (id, _) = state.channels.removeValue(forKey: ObjectIdentifier(channel)) else { return }
            state.slots.close(id)
        }
    }
}

/// Counts its connection in and out.
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let connections: GuardedConnections

    init(_ connections: GuardedConnections) { self.connections = connections }

    /// Counted once, when active (an accepted connection is set up before it is).
    private var counted = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { count(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        count(context)
        context.fireChannelActive()
    }

    private func count(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        connections.opened(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if counted { connections.closed(context.channel) }
        context.fireChannelInactive()
    }
}

/// A server child channel with the guard put first.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let connections: GuardedConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(connections))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
