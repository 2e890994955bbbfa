// SharedPersistence's copy of the shared lists beside the list file: started from while the
// server cannot be reached, and kept following every change listd commits or fetches.
import ListCore
import ListModel

extension SharedPersistence {
    /// The server cannot be reached at start: the lists are this machine's copy, and listd
    /// connects again in the background.
    func startFromCopy(unreachable detail: String) throws(DaemonError) {
        let contents: SharedCopy.Contents?
        do throws(SharedCopy.Unusable) {
            contents = try copy.read()
        } catch {
            throw .shareFailed(server: server.description, detail: "\(detail); and \(error), so listd has nothing to start from")
        }
        guard let contents, contents.server == server.description else {
            let why = contents.map { "the copy beside the list file is of \($0.server)" } ?? "this machine has no copy of them yet"
            throw .shareFailed(
                server: server.description,
                detail:
                    "\(detail); \(why) (listd keeps one once it has reached the server), so it has nothing to start from. Start listd again once the server is up, or check the URL"
            )
        }
        loaded = contents.lists
        let revision = contents.lists.records.last?.revision ?? 0
        state.withLock { state in
            state.failure = detail
            state.reconnecting = true
            state.connectionDue = true
            state.instance = contents.lists.instance
            state.seenRevision = revision
        }
        logger.warning(
            "cannot reach the shared lists at \(server.description): \(detail); serving them as this machine last saw them (change #\(revision), kept in \(copy.path)), edits are refused until the server is back"
        )
    }

    /// Starts connecting in the background when `open` started from the copy: called once the
    /// owner listens to `onWake` and `onStatus` (the catch-up they start must not be missed).
    func connectWhenDown() {
        let due = state.withLock { state in
            defer { state.connectionDue = false }
            return state.connectionDue && !state.stopped
        }
        if due { tasks.run { await self.reconnect() } }
    }

    /// Notes changes committed in the database (this listd's own, or fetched) and this machine's
    /// note of its list file: the copy follows them.
    func remember(_ records: [ChangeRecord], note: LogEntry? = nil) {
        if let last = records.last?.revision {
            state.withLock { $0.seenRevision = max($0.seenRevision, last) }
        }
        if let stopped = copy.follow(records, note: note) {
            logger.warning(
                "the copy of the shared lists in \(copy.path) stops following them (\(stopped)); the next start that reaches \(server.description) writes it anew"
            )
        }
    }
}
