// SharedPersistence's SQL: the append in one statement, the catch-up read, the tables made or
// migrated at the first start, and what a start reads.
import Foundation
import ListCore
import ListModel
import Logging
import PostgresNIO

extension SharedPersistence {
    /// Writes `entries` in one transaction that locks the revision counter; throws (wrapped in
    /// the transaction's error) `Behind` when another machine committed first (nothing written).
    /// Three round trips: BEGIN, the append (`SharedSchema.appendFunction`: every statement in
    /// one call), COMMIT. The gate is passed as the statements are done and the COMMIT is to be
    /// sent: before it, a lost connection means nothing was made.
    func write(_ entries: [LogEntry], on connection: PostgresConnection, gate: CommitGate) async throws {
        var records: [ChangeRecord] = []
        var lines: [String] = []
        var note: (digest: String, revision: Revision)?
        for entry in entries {
            switch entry {
            case .change(let record):
                records.append(record)
                lines.append(String(decoding: entry.line, as: UTF8.self))
            case .fileShows(let digest, let revision):
                note = (digest, revision)
            case .order, .fullChange, .saveTaken:
                break  // the order of lists is each machine's presentation; an old log's line is never written
            }
        }
        let machine = self.machine
        let revisions = records.map(\.revision)
        try await connection.withTransaction(logger: logger) { connection in
            if !records.isEmpty || note != nil {
                var committed: Int?
                for try await found in try await connection.query(
                    "SELECT \(unescaped: SharedSchema.appendFunctionName)(\(revisions)::bigint[], \(lines)::text[], \(machine), \(note?.digest), \(note?.revision))",
                    logger: self.logger
                ).decode(Int?.self) {
                    committed = found
                }
                if committed != nil, let first = records.first {
                    throw Behind(remote: try await Self.changes(after: first.revision - 1, on: connection, logger: self.logger))
                }
            }
            // Its deadline may have given up on it (and said "not made"): then it rolls back.
            guard gate.commit() else { throw DeadlinePassed(deadline: limits.shareOperationDeadline) }
        }
    }

    static func changes(
        after revision: Revision,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> [RemoteChange] {
        var changes: [RemoteChange] = []
        let rows = try await connection.query(
            "SELECT revision, machine, entry FROM listd_changes WHERE revision > \(revision) ORDER BY revision",
            logger: logger
        )
        for try await (revision, machine, entry) in rows.decode((Int, String, String).self) {
            guard case .change(let record)? = LogEntry(line: Array(entry.utf8)), record.revision == revision else {
                throw DaemonError.shareDamaged(server: "the database", revision: revision, detail: "the change cannot be read")
            }
            changes.append(RemoteChange(record: record, machine: machine))
        }
        return changes
    }

    func connect() async throws -> PostgresConnection {
        let id = state.withLock { state in
            defer { state.nextConnectionID += 1 }
            return state.nextConnectionID
        }
        let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        do {
            var session: ServerSession?
            for try await (pid, started) in try await connection.query(
                "SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()",
                logger: logger
            ).decode((Int32, String).self) {
                session = ServerSession(pid: pid, started: started)
            }
            state.withLock { $0.sessions[id] = session }
        } catch {
            try? await connection.close()
            throw error
        }
        return connection
    }

    /// Ends `session` (one of this listd's, whose COMMIT is in doubt) and returns once the server
    /// has no such session: its transaction has then committed or never will. Ending it is
    /// allowed to the same role, as listd's sessions all are; should the server refuse (another
    /// role), listd waits for the session to end by itself (the server's timeouts end it).
    func end(_ session: ServerSession, on connection: PostgresConnection) async throws {
        var said = false
        while true {
            do {
                // Waits up to 5 s for the session to go.
                try await connection.query(
                    "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE pid = \(session.pid) AND backend_start::text = \(session.started)",
                    logger: logger
                )
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42501" && !said {
                said = true
                logger.warning(
                    "cannot end the server session \(session.pid) that sent an uncertain COMMIT (\(self.explain(error))); waiting for it to end before saying whether the edit was made"
                )
            }
            var alive = false
            for try await _ in try await connection.query(
                "SELECT 1 FROM pg_stat_activity WHERE pid = \(session.pid) AND backend_start::text = \(session.started)",
                logger: logger
            ).decode(Int.self) {
                alive = true
            }
            guard alive else { return }
            try await MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .seconds(1)) {}.futureResult.get()
        }
    }

    func migrate(_ connection: PostgresConnection) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(SharedSchema.migrationLock))", logger: self.logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS listd_schema (version integer NOT NULL)",
                logger: self.logger
            )
            var version = 0
            for try await found in try await connection.query("SELECT version FROM listd_schema", logger: self.logger)
                .decode(Int.self)
            {
                version = found
            }
            guard version <= SharedSchema.current else {
                throw DaemonError.shareFailed(
                    server: self.server.description,
                    detail:
                        "its tables are of version \(version), made by a newer listd; this one knows up to \(SharedSchema.current). Upgrade listd on this machine"
                )
            }
            // The append's function, made once per database (a start that finds it writes nothing:
            // a write here would wait as any commit does, for a synchronous standby for one).
            var hasAppend = false
            for try await _ in try await connection.query(
                "SELECT 1 FROM pg_proc WHERE proname = \(SharedSchema.appendFunctionName)",
                logger: self.logger
            ) {
                hasAppend = true
            }
            if !hasAppend {
                try await connection.query(PostgresQuery(unsafeSQL: SharedSchema.appendFunction), logger: self.logger)
            }
            guard version < SharedSchema.current else { return }
            for statements in SharedSchema.migrations[version...] {
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
            }
            if version == 0 {
                let instance = UUID().uuidString.lowercased()
                try await connection.query(
                    "INSERT INTO listd_state (instance, revision) VALUES (\(instance), 0)",
                    logger: self.logger
                )
                try await connection.query("INSERT INTO listd_schema (version) VALUES (\(SharedSchema.current))", logger: self.logger)
            } else {
                try await connection.query("UPDATE listd_schema SET version = \(SharedSchema.current)", logger: self.logger)
            }
            self.logger.notice("created listd's tables (version \(SharedSchema.current)) in \(self.server.description)")
        }
    }

    func load(_ connection: PostgresConnection) async throws -> Loaded {
        var instance = ""
        for try await found in try await connection.query("SELECT instance FROM listd_state", logger: logger)
            .decode(String.self)
        {
            instance = found
        }
        let records = try await Self.changes(after: 0, on: connection, logger: logger).map(\.record)
        var digest: String?
        var revision: Revision?
        for try await (fileDigest, fileRevision) in try await connection.query(
            "SELECT file_digest, file_revision FROM listd_machines WHERE machine = \(machine)",
            logger: logger
        ).decode((String, Int).self) {
            digest = fileDigest
            revision = fileRevision
        }
        return Loaded(instance: instance, records: records, fileDigest: digest, fileRevision: revision)
    }
}
