// What a client may owe and how long it may take, who is let in, and how a lost shared store is
// tried again: the rules the connection shells (`Outbox`, `SubscriptionHub`, `ConnectionHandler`,
// `RPCServer`) and the shared store's reconnects follow, decided here on numbers alone, so each is
// unit-tested without a socket. The shells measure (bytes queued and written, lines waiting,
// connections open, the peer's rights) and carry out what these say.

package struct ConnectionRules: Sendable, Equatable {
    /// The timers and counts (`closeGrace`, `stallGrace`, `requestsReadAhead`, the reconnect
    /// delays).
    package var limits: CoreLimits
    /// Bytes that may wait for one client, at most (`--max-outbound-bytes`).
    package var outboundLimit: Int
    /// Connections served at once, at most (`--max-connections`).
    package var maximumConnections: Int
    /// Connections one user other than listd's own and root may hold at once
    /// (`--max-connections-per-user`; a quarter of `maximumConnections` unless set).
    package var maximumConnectionsPerUser: Int

    package init(
        limits: CoreLimits = .standard,
        outboundLimit: Int = .max,
        maximumConnections: Int = .max,
        maximumConnectionsPerUser: Int? = nil
    ) {
        self.limits = limits
        self.outboundLimit = outboundLimit
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerUser = maximumConnectionsPerUser ?? Self.standardShare(of: maximumConnections)
    }

    /// A quarter of `maximumConnections`, at least one: four members holding all they may still
    /// leave the owner's reserve.
    package static func standardShare(of maximumConnections: Int) -> Int {
        max(1, maximumConnections / 4)
    }

    // MARK: What a client may owe

    /// A line of `size` bytes for a client that owes `owed` bytes: queued, or the client is not
    /// reading — nothing more is queued and the connection ends, so one slow reader never holds
    /// anyone else up or grows listd. A single line bigger than the limit still goes to a client
    /// that owes nothing (a big list to one that keeps up).
    package func overflows(adding size: Int, owed: Int) -> Bool {
        owed > 0 && owed + size > outboundLimit
    }

    /// A live subscriber that owes more than half the limit lags from now on: it is served its
    /// changes from the kept history as it drains, not sent each one live.
    package func lags(owed: Int) -> Bool {
        owed > outboundLimit / 2
    }

    /// A lagging subscriber's next changes are due once it owes a quarter of the limit or less.
    package func hasDrained(owed: Int) -> Bool {
        owed <= outboundLimit / 4
    }

    /// A subscriber is behind, and watched for a stall, while it lags or owes its socket more
    /// than a quarter of the limit (2 MiB by default): one that never reads is let go before it
    /// owes half, and a client that reads its notifications in bursts (a script working between
    /// reads, a page digesting a big list) is not, while what waits for it stays small.
    package func isBehind(owed: Int, lagging: Bool) -> Bool {
        lagging || owed > outboundLimit / 4
    }

    /// What a look at a subscriber that is behind finds, every `limits.stallGrace`.
    package enum StallCheck: Sendable, Equatable {
        /// Its socket took bytes since the last look: look again after `after`.
        case lookAgain(after: Duration)
        /// Its socket took nothing for a whole grace: it is not reading; disconnect it.
        case disconnect
    }

    /// A subscriber behind whose socket had taken `writtenBefore` bytes at the last look and
    /// `writtenNow` now.
    package func stallCheck(writtenBefore: Int, writtenNow: Int) -> StallCheck {
        writtenNow == writtenBefore ? .disconnect : .lookAgain(after: limits.stallGrace)
    }

    /// Whether a connection with `waiting` lines read and not yet handled is read further (beyond
    /// that, the kernel's buffer, then the client's writes, hold the rest).
    package func readsMore(waiting: Int) -> Bool {
        waiting < limits.requestsReadAhead
    }

    /// How long a closing connection's last bytes may take to be read before it is closed anyway.
    package var closeGrace: Duration { limits.closeGrace }

    // MARK: Who is let in

    /// The last connections, kept for listd's own user and root: a sixteenth of the limit (64 of
    /// 1,024), at least one, and never all of them.
    package var ownersReserve: Int {
        min(maximumConnections - 1, max(1, maximumConnections / 16))
    }

    /// Why a client that connected is not served: the reason (its shell sends it as an error
    /// line: `RPCError(refusal:)`), and the words the log gives.
    package struct Refusal: Sendable, Equatable {
        package enum Reason: Sendable, Equatable {
            /// The access policy lets no one of this uid in; `policy` says who it lets in.
            case notAllowed(uid: UInt32, policy: String)
            /// Every connection is taken.
            case full(limit: Int)
            /// This uid holds its share of the connections.
            case userShareFull(uid: UInt32, share: Int, limit: Int)
            /// The connections left are kept for listd's own user and root.
            case keptForOwner(limit: Int, reserve: Int)
        }
        package var reason: Reason
        package var why: String
    }

    /// Who connected, as its shell found it: whether the access policy lets it in (and, when
    /// not, what it says of who may), whether it is listd's own user or root, and how many
    /// connections are open with it, in all and of its user.
    package func admission(
        allowed: Bool,
        policy: @autoclosure () -> String,
        uid: UInt32,
        isOwner: Bool,
        open: Int,
        openOfUser: Int
    ) -> Refusal? {
        if !allowed {
            let policy = policy()
            return Refusal(reason: .notAllowed(uid: uid, policy: policy), why: policy)
        }
        if open > maximumConnections {
            return Refusal(
                reason: .full(limit: maximumConnections),
                why: "\(maximumConnections) connections are open already"
            )
        }
        // listd's own user (its listctl, delegates, listd-web) and root are served up to the
        // limit: no member can keep them out.
        if isOwner { return nil }
        if openOfUser > maximumConnectionsPerUser {
            return Refusal(
                reason: .userShareFull(uid: uid, share: maximumConnectionsPerUser, limit: maximumConnections),
                why: "uid \(uid) holds its share of \(maximumConnectionsPerUser) connections already"
            )
        }
        if open > maximumConnections - ownersReserve {
            return Refusal(
                reason: .keptForOwner(limit: maximumConnections, reserve: ownersReserve),
                why: "\(open - 1) connections are open, and the last \(ownersReserve) are kept for listd's own user and root"
            )
        }
        return nil
    }

    /// What a look at a connection that may be idle finds.
    package enum IdleCheck: Sendable, Equatable {
        /// It said `hello`, subscribed or became a delegate: a client that stays, never let go
        /// for being quiet.
        case stopWatching
        /// Look again after `after`: it sent something (or waits for a reply) since.
        case lookAgain(after: Duration)
        /// It sent nothing for `limits.idleLimit`, waits for nothing, and never said who it
        /// is: let go, so forgotten or hoarded connections do not fill listd.
        case letGo
    }

    /// A connection that has `introduced` itself (or not), has a request in hand (`busy`), and
    /// last sent a line `quietFor` ago.
    package func idleCheck(introduced: Bool, busy: Bool, quietFor: Duration) -> IdleCheck {
        if introduced { return .stopWatching }
        if busy { return .lookAgain(after: limits.idleLimit) }
        if quietFor >= limits.idleLimit { return .letGo }
        return .lookAgain(after: limits.idleLimit - quietFor)
    }

    // MARK: A lost shared store

    /// The wait before the next try to reach the shared store: `firstReconnectDelay` after the
    /// loss, then doubled after each failed try, up to `longestReconnectDelay`.
    package func reconnectDelay(after previous: Duration?) -> Duration {
        guard let previous else { return limits.firstReconnectDelay }
        return min(previous * 2, limits.longestReconnectDelay)
    }
}
