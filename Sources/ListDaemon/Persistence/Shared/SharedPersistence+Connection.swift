// SharedPersistence's one connection: LISTEN for wake-ups, noticing it is lost (as it closes, or
// when an operation passes its deadline), connecting again in the background, and saying what
// went wrong in the server's words.
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

extension SharedPersistence {
    /// Wakes the owner on every notification, until the connection goes (noticed as it closes,
    /// so that no operation starts on a closed one).
    func listen(on connection: PostgresConnection) {
        connection.closeFuture.whenComplete { _ in
            _ = self.lost(connection, ConnectionClosed())
        }
        Task {
            do {
                try await connection.listen(on: SharedSchema.channel) { notifications in
                    for try await _ in notifications { self.onWake(()) }
                }
            } catch {
                _ = self.lost(connection, error)
            }
        }
    }

    /// `connection` failed with `error`: when it is closed, drops it and connects again in the
    /// background. Returns the error to fail the operation with.
    func lost(_ connection: PostgresConnection, _ error: any Error) -> DaemonError {
        if let error = error as? DaemonError { return error }
        let detail = Self.explain(error)
        guard connection.isClosed || Self.isConnectionError(error) else {
            return .shareUnavailable(server: server.description, detail: detail)
        }
        let reconnect = state.withLock { state -> Bool in
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
            Task { await self.reconnect() }
        }
        return .shareUnavailable(server: server.description, detail: detail)
    }

    func reconnect() async {
        var delay = Duration.milliseconds(100)
        while !state.withLock({ $0.stopped }) {
            try? await Task.sleep(for: delay)
            do {
                let connection = try await connect()
                let stopped = state.withLock { state in
                    state.connection = state.stopped ? nil : connection
                    state.reconnecting = false
                    return state.stopped
                }
                if stopped {
                    try? await connection.close()
                    return
                }
                logger.notice("connected again to the shared lists at \(server.description)")
                listen(on: connection)
                onStatus(true)
                onWake(())
                return
            } catch {
                state.withLock { $0.failure = Self.explain(error) }
                delay = min(delay * 2, .seconds(1))
            }
        }
    }

    /// The connection's channel closed (the server went, or the network).
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection to the server closed" }
    }

    /// An operation did not end within `operationDeadline`.
    struct DeadlinePassed: Error, CustomStringConvertible {
        var description: String { "the server did not answer within \(SharedPersistence.operationDeadline)" }
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
    static func explain(_ error: any Error) -> String {
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
            case .connectionError: return "the connection failed"
            default: return "\(error.code)"
            }
        }
        if let error = error as? IOError { return error.description }
        if let error = error as? DeadlinePassed { return error.description }
        if let error = error as? ConnectionClosed { return error.description }
        return "\(error)"
    }
}
