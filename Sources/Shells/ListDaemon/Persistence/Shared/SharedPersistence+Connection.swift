// SharedPersistence's one connection: LISTEN for wake-ups, noticing it is lost (as it closes, or
// when an operation passes its deadline), connecting again in the background, and saying what
// went wrong in the server's words.
import ErrnoText
import DurableFiles
import Foundation
import ListCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

extension SharedPersistence {
    /// Wakes the owner once LISTEN is in place (a fetch then sees every commit it could have
    /// missed: those before it, which no notification will tell), then on every notification,
    /// until the connection goes (noticed as it closes, so that no operation starts on a closed
    /// one).
    func listen(on connection: PostgresConnection) {
        connection.closeFuture.whenComplete { _ in
            _ = self.lost(connection, ConnectionClosed())
        }
        checkAlive(connection)
        tasks.run {
            do {
                try await connection.listen(on: SharedSchema.channel) { notifications in
                    self.onWake(())
                    for try await _ in notifications { self.onWake(()) }
                }
            } catch {
                _ = self.lost(connection, error)
            }
        }
    }

    /// While listd is idle, nothing else would notice a server that went silent without closing
    /// the connection (a pulled plug, a network that holds every byte, a hung server): `hello`
    /// would say `connected: true` until the next edit met its deadline. Every
    /// `livenessInterval`, a query under the operation deadline asks; one that gets no answer in
    /// time takes the connection for lost, as an append would. A timer on a loop, not a task:
    /// nothing waits on it at a stop.
    private func checkAlive(_ connection: PostgresConnection) {
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        loop.scheduleRepeatedTask(initialDelay: TimeAmount(limits.shareLivenessInterval), delay: TimeAmount(limits.shareLivenessInterval)) { timer in
            guard self.state.withLock({ $0.connection === connection && !$0.stopped }) else {
                timer.cancel()
                return
            }
            let deadline = loop.scheduleTask(in: TimeAmount(self.limits.shareOperationDeadline)) {
                _ = self.lost(connection, DeadlinePassed(deadline: self.limits.shareOperationDeadline))
            }
            let started = self.tasks.run {
                do {
                    _ = try await connection.query("SELECT 1", logger: self.logger).collect()
                } catch {
                    _ = self.lost(connection, error)
                }
                deadline.cancel()
            }
            if !started { deadline.cancel() }
        }
    }

    /// `connection` failed with `error`: when it is closed, drops it and connects again in the
    /// background. Returns the error to fail the operation with.
    func lost(_ connection: PostgresConnection, _ error: any Error) -> DaemonError {
        if let error = error as? DaemonError { return error }
        let detail = explain(error)
        guard connection.isClosed || Self.isConnectionError(error) else {
            return .shareUnavailable(server: server.description, detail: detail)
        }
        let reconnect = state.withLock { state -> Bool in
            state.sessions[connection.id] = nil
            guard state.connection === connection else { return false }
            state.connection = nil
            state.failure = detail
            guard !state.reconnecting, !state.stopped else { return false }
            state.reconnecting = true
            return true
        }
        if reconnect {
            logger.warning("lost the connection to the shared lists at \(server.description): \(detail); edits are refused until it is back")
            onStatus(false)
            let closing: EventLoopFuture<Void> = connection.close()
            _ = closing
            tasks.run { await self.reconnect() }
        }
        return .shareUnavailable(server: server.description, detail: detail)
    }

    func reconnect() async {
        let rules = ConnectionRules(limits: limits)
        var delay = rules.reconnectDelay(after: nil)
        while !state.withLock({ $0.stopped }) {
            // On NIO's clock, on the loop the connections live on (listd has no other clock).
            try? await MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(delay)) {}.futureResult.get()
            var connection: PostgresConnection?
            do {
                connection = try await connect()
                try await verify(connection!)
                let (stopped, waiters) = state.withLock { state in
                    state.connection = state.stopped ? nil : connection
                    state.reconnecting = false
                    defer { state.connectionWaiters = [] }
                    return (state.stopped, state.connectionWaiters)
                }
                for waiter in waiters { waiter.resume(returning: stopped ? nil : connection) }
                if stopped {
                    try? await connection?.close()
                    return
                }
                logger.notice("connected again to the shared lists at \(server.description)")
                onStatus(true)
                // Its first wake-up comes once LISTEN is in place: what was committed meanwhile is
                // fetched then.
                listen(on: connection!)
                return
            } catch {
                try? await connection?.close()
                if let connection { state.withLock { $0.sessions[connection.id] = nil } }
                if let different = error as? NotTheListsServed {
                    // Taking them in would mix two histories: a person decides (a restart).
                    state.withLock { state in
                        state.failure = different.description
                        state.reconnecting = false
                    }
                    logger.error("the shared lists at \(server.description) \(different)")
                    return
                }
                state.withLock { $0.failure = self.explain(error) }
                delay = rules.reconnectDelay(after: delay)
            }
        }
    }

    /// Makes or migrates listd's tables if they are not there (a start from the copy, a database
    /// made anew), and checks that the database still holds the lists this listd serves.
    func verify(_ connection: PostgresConnection) async throws {
        try await migrate(connection)
        var found: (instance: String, revision: Int)?
        for try await row in try await connection.query("SELECT instance, revision FROM listd_state", logger: logger)
            .decode((String, Int).self)
        {
            found = row
        }
        let (instance, seen) = state.withLock { ($0.instance, $0.seenRevision) }
        guard let found, found.instance == instance, found.revision >= seen else {
            throw NotTheListsServed(sameLists: found?.instance == instance, committed: found?.revision ?? 0, seen: seen)
        }
    }

    /// The server holds other lists than this listd serves, or fewer of their changes.
    struct NotTheListsServed: Error, CustomStringConvertible {
        var sameLists: Bool
        var committed: Int
        var seen: Int
        var description: String {
            let what =
                sameLists
                ? "hold changes up to #\(committed) only, and this listd has seen up to #\(seen) (restored from an older backup?)"
                : "are not the ones this listd serves (the database was made anew?)"
            return "\(what); edits are refused until listd is restarted to take the lists there as they are"
        }
    }

    /// The connection's channel closed (the server went, or the network).
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection to the server closed" }
    }

    /// An operation did not end within its deadline (`CoreLimits.shareOperationDeadline`).
    struct DeadlinePassed: Error, CustomStringConvertible {
        var deadline: Duration
        var description: String { "the server did not answer within \(deadline)" }
    }

    /// Whether `error` says the server cannot be reached now (none there, a network down, the
    /// server starting or shutting down, too many connections), rather than that it refuses
    /// listd (a wrong password, no such database): at start, the first is ridden out from the copy.
    static func isUnreachable(_ error: any Error) -> Bool {
        if isConnectionError(error) || error is IOError || error is NIOConnectionError || error is ChannelError {
            return true
        }
        if let error = error as? PSQLError {
            if let state = error.serverInfo?[.sqlState] {
                // Connection exceptions, insufficient resources, operator intervention.
                return ["08", "53", "57"].contains(where: state.hasPrefix)
            }
            return error.underlying.map(isUnreachable) ?? false
        }
        return false
    }

    static func isConnectionError(_ error: any Error) -> Bool {
        if error is DeadlinePassed || error is ConnectionClosed { return true }
        if let error = error as? PostgresTransactionError {
            return [error.beginError, error.closureError, error.commitError, error.rollbackError]
                .compactMap { $0 }.contains(where: isConnectionError)
        }
        guard let error = error as? PSQLError else { return false }
        return [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code)
    }

    /// What went wrong, in the server's words when it said something.
    func explain(_ error: any Error) -> String {
        if let error = error as? DaemonError { return "\(error)" }
        if let error = error as? PostgresTransactionError {
            let inner = error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError
            return inner.map(explain) ?? "the transaction failed"
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return explain(underlying) }
            switch error.code {
            case .serverClosedConnection: return "the server closed the connection"
            case .clientClosedConnection: return "the connection was closed (lost, or given up on)"
            case .uncleanShutdown: return "the connection broke off"
            case .connectionError: return "the connection failed"
            default: return "\(error.code)"
            }
        }
        if let error = error as? NIOConnectionError {
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                return "the name \(error.host) cannot be resolved (check the URL's host, and the network)"
            }
            // One attempt per address the name resolved to: the first says what went wrong.
            return error.connectionErrors.first.map { explain($0.error) } ?? "no connection could be made to \(error.host):\(error.port)"
        }
        if let channel = error as? ChannelError, case .connectTimeout = channel {
            return "no answer within \(limits.shareConnectTimeout) (is the server up, and reachable from here?)"
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENOENT: return "no server is listening there (\(errorText(error.errnoCode)))"
            case EHOSTUNREACH, ENETUNREACH: return "the network cannot reach it (\(errorText(error.errnoCode)))"
            default: return errorText(error.errnoCode)
            }
        }
        if let error = error as? DeadlinePassed { return error.description }
        if let error = error as? ConnectionClosed { return error.description }
        return "\(error)"
    }
}
