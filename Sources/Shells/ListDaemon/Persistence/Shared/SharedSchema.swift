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
    /// What an append does, in one call (one round trip inside the append's transaction, where
    /// the statements one by one took five): locks the revision row; when the committed revision
    /// is not the one before `revisions`' first, returns it and writes nothing (the caller
    /// fetches what came first); else writes the changes, moves the revision, notifies, notes
    /// what the machine's file shows, and returns NULL. Each statement in it takes a fresh
    /// snapshot, so a wait for another machine's lock reads what that machine committed. Made
    /// at a start that does not find it, under the migration lock: code, not data, so the schema
    /// version stays and a listd that predates it still shares the tables. Its body never
    /// changes under this name: another body is another name.
    static let appendFunctionName = "listd_append_1"
    static let appendFunction = """
        CREATE FUNCTION listd_append_1(
            revisions bigint[], lines text[], machine_name text, digest text, digest_revision bigint
        ) RETURNS bigint LANGUAGE plpgsql AS $append$
        DECLARE
            committed bigint;
            newest bigint;
        BEGIN
            IF cardinality(revisions) > 0 THEN
                SELECT revision INTO committed FROM listd_state FOR UPDATE;
                IF committed <> revisions[1] - 1 THEN
                    RETURN committed;
                END IF;
                newest := revisions[cardinality(revisions)];
                INSERT INTO listd_changes (revision, machine, entry)
                    SELECT r, machine_name, e FROM unnest(revisions, lines) AS t(r, e);
                UPDATE listd_state SET revision = newest;
                PERFORM pg_notify('listd_changes', newest::text);
            END IF;
            IF digest IS NOT NULL THEN
                INSERT INTO listd_machines (machine, file_digest, file_revision)
                    VALUES (machine_name, digest, digest_revision)
                    ON CONFLICT (machine) DO UPDATE
                    SET file_digest = EXCLUDED.file_digest, file_revision = EXCLUDED.file_revision;
            END IF;
            RETURN NULL;
        END
        $append$
        """
}

