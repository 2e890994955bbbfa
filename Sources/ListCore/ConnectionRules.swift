// What a client may owe and how long it may take, who is let in, and how a lost shared store is
// tried again: the rules the connection shells (`Outbox`, `SubscriptionHub`, `ConnectionHandler`,
// `RPCServer`) and the shared store's reconnects follow, decided here on numbers alone, so each is
// unit-tested without a socket. The shells measure (bytes queued and written, lines waiting,
// connections open, the peer's rights) and carry out what these say.
import ListRPC

public struct ConnectionRules: Sendable, Equatable {
    /// The timers and counts (`closeGrace`, `stallGrace`, `requestsReadAhead`, the reconnect
    /// delays).
    public var limits: CoreLimits
    /// Bytes that may wait for one client, at most (`--max-outbound-bytes`).
    public var outboundLimit: Int
    /// Connections served at once, at most (`--max-connections`).
    public var maximumConnections: Int

    public init(limits: CoreLimits = .standard, outboundLimit: Int = .max, maximumConnections: Int = .max) {
        self.limits = limits
        self.outboundLimit = outboundLimit
        self.maximumConnections = maximumConnections
    }

    // MARK: What a client may owe

    /// A line of `size` bytes for a client that owes `owed` bytes: queued, or the client is not
    /// reading — nothing more is queued and the connection ends, so one slow reader never holds
    /// anyone else up or grows listd. A single line bigger than the limit still goes to a client
    /// that owes nothing (a big list to one that keeps up).
    public func overflows(adding size: Int, owed: Int) -> Bool {
        owed > 0 && owed + size > outboundLimit
    }

    /// A live subscriber that owes more than half the limit lags from now on: it is served its
    /// changes from the kept history as it drains, not sent each one live.
    public func lags(owed: Int) -> Bool {
        owed > outboundLimit / 2
    }

    /// A lagging subscriber's next changes are due once it owes a quarter of the limit or less.
    public func hasDrained(owed: Int) -> Bool {
        owed <= outboundLimit / 4
    }

    /// A subscriber is behind, and watched for a stall, while it lags or owes its socket more
    /// than a quarter of the limit (2 MiB by default): one that never reads is let go before it
    /// owes half, and a client that reads its notifications in bursts (a script working between
    /// reads, a page digesting a big list) is not, while what waits for it stays small.
    public func isBehind(owed: Int, lagging: Bool) -> Bool {
        lagging || owed > outboundLimit / 4
    }

    /// What a look at a subscriber that is behind finds, every `limits.stallGrace`.
    public enum StallCheck: Sendable, Equatable {
        /// Its socket took bytes since the last look: look again after `after`.
        case lookAgain(after: Duration)
        /// Its socket took nothing for a whole grace: it is not reading; disconnect it.
        case disconnect
    }

    /// A subscriber behind whose socket had taken `writtenBefore` bytes at the last look and
    /// `writtenNow` now.
    public func stallCheck(writtenBefore: Int, writtenNow: Int) -> StallCheck {
        writtenNow == writtenBefore ? .disconnect : .lookAgain(after: limits.stallGrace)
    }

    /// Whether a connection with `waiting` lines read and not yet handled is read further (beyond
    /// that, the kernel's buffer, then the client's writes, hold the rest).
    public func readsMore(waiting: Int) -> Bool {
        waiting < limits.requestsReadAhead
    }

    /// How long a closing connection's last bytes may take to be read before it is closed anyway.
    public var closeGrace: Duration { limits.closeGrace }

    // MARK: Who is let in

    /// A client that connected, as its shell found it: whether the access policy lets it in
    /// (and, when not, what it says of who may), and how many connections are open with it.
    public func admission(allowed: Bool, policy: @autoclosure () -> String, uid: UInt32, open: Int) -> RPCError? {
        if !allowed { return .notAllowed(uid: uid, detail: policy()) }
        if open > maximumConnections { return .tooManyConnections(maximumConnections) }
        return nil
    }

    // MARK: A lost shared store

    /// The wait before the next try to reach the shared store: `firstReconnectDelay` after the
    /// loss, then doubled after each failed try, up to `longestReconnectDelay`.
    public func reconnectDelay(after previous: Duration?) -> Duration {
        guard let previous else { return limits.firstReconnectDelay }
        return min(previous * 2, limits.longestReconnectDelay)
    }
}
