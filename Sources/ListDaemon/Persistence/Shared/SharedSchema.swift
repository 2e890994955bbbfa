// The tables a shared listd keeps in PostgreSQL, and how a database gets them: numbered
// migrations, each run once, in one transaction, under an advisory lock so that machines
// starting together do not race.
import ListCore

/// listd's schema, version by version. A change is stored as its change-log line (`LogEntry`'s
/// JSON text): a kind of change added later needs no new column.
enum SharedSchema {
    /// Held for a migration's transaction (`pg_advisory_xact_lock`): listd's own number.
    static let migrationLock = 0x6C69_7374_64  // "listd"

    /// Each version's statements, run in order; `migrations[0]` makes version 1.
    static let migrations: [[String]] = [
        [
            // One row: the instance the machines share, and the last revision committed.
            """
            CREATE TABLE listd_state (
                only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                instance text NOT NULL,
                revision bigint NOT NULL
            )
            """,
            // Every change, by revision: the source of truth every machine catches up from.
            """
            CREATE TABLE listd_changes (
                revision bigint PRIMARY KEY,
                machine text NOT NULL,
                entry text NOT NULL
            )
            """,
            // Per machine (a host and its list file): what that list file shows, so a restart
            // knows the file it finds.
            """
            CREATE TABLE listd_machines (
                machine text PRIMARY KEY,
                file_digest text NOT NULL,
                file_revision bigint NOT NULL
            )
            """,
        ],
    ]

    /// The version this listd writes.
    static var current: Int { migrations.count }

    /// The channel `NOTIFY` wakes listd on: a change was committed (the payload is its revision).
    static let channel = "listd_changes"
}
