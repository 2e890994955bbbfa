// The task book kept current: a subscription to listd (resumed from the book's revision after a
// restart of either, rebuilt from the lists when listd no longer has the changes since), each
// change applied, and the book saved to its file so UIDs and sync tokens survive listd-web's
// restarts: a second after a change at most (its tasks' UIDs are made the same again from the
// saved revision), at once after a rebuild and before a tasks app's PUT is answered (what only the
// app's PUT gave — its UID, its DUE — cannot be made again). Requests read it; writes wait here for
// their change.
import CalDAV
import DurableFiles
import Foundation
import ListClient
import Logging
import ServiceLifecycle
import Synchronization

package final class TaskBookFollower: Service, Sendable {
    private struct State {
        var book: TaskBook
        /// Requests waiting for a revision; each is resumed once, by whichever takes it out of
        /// here first: the change that reaches the revision, its timeout, or the end.
        var waiters: [(id: Int, revision: Int, resume: CheckedContinuation<Void, Never>)] = []
        var nextWaiter = 0
        var dirty = false
        /// Whether the subscription is live (else reads may be behind: said in the log).
        var following = false
        /// The last try to reach listd failed (listd is away): requests are answered from the
        /// book as it is, and writes told listd is away, without waiting for it.
        var listdAway = false
    }

    let path: String
    let listdSocket: String
    let logger: Logger
    /// Whether any tasks app is paired: until one is, listd-web neither follows listd for them
    /// nor writes a book (a household without one pays nothing).
    let wanted: @Sendable () -> Bool
    private let state: Mutex<State>
    /// Held while the book is written (`save`).
    private let writing = Mutex(())

    package init(path: String, listdSocket: String, tombstoneLimit: Int, logger: Logger, wanted: @escaping @Sendable () -> Bool) {
        self.path = path
        self.listdSocket = listdSocket
        self.logger = logger
        self.wanted = wanted
        var book = TaskBook(tombstoneLimit: tombstoneLimit)
        if let data = FileManager.default.contents(atPath: path) {
            do {
                book = try JSONDecoder().decode(TaskBook.self, from: data)
                book.tombstoneLimit = tombstoneLimit
            } catch {
                // Unreadable: started afresh (every task gets a new UID; clients sync again).
                logger.error("the CalDAV task book \(path) cannot be read (\(error)): started afresh; tasks apps see every task anew")
            }
        }
        state = Mutex(State(book: book))
    }

    /// The book as it is now.
    package var book: TaskBook { state.withLock { $0.book } }

    /// Changes the book (what a PUT keeps that listd does not model).
    func update(_ body: (inout TaskBook) -> Void) {
        state.withLock { state in
            body(&state.book)
            state.dirty = true
        }
    }

    /// Returns once the book has applied listd's change `revision`, or after `timeout` (a write
    /// is answered then with what the book has; a sync ahead of the book, that listd is away).
    func reached(_ revision: Int, timeout: Duration = .seconds(5)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state -> Int? in
                if state.book.current.revision >= revision { return nil }
                state.nextWaiter += 1
                state.waiters.append((state.nextWaiter, revision, continuation))
                return state.nextWaiter
            }
            guard let waiting else { return continuation.resume() }
            Task {
                try? await Task.sleep(for: timeout)
                let late = self.state.withLock { state in
                    state.waiters.firstIndex { $0.id == waiting }.map { state.waiters.remove(at: $0).resume }
                }
                late?.resume()
            }
        }
    }

    package func run() async throws {
        // Stopping listd-web ends both (they loop until cancelled); the book is saved after.
        try? await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.follow() }
                group.addTask { await self.saveWhileRunning() }
                await group.next()
                group.cancelAll()
            }
        }
        save()
        let waiters = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume.resume() }
    }

    /// Returns once the book follows listd (a request of a tasks app just paired waits for its
    /// first subscription), at once when the last try found listd away, or after `timeout`.
    func ready(timeout: Duration = .seconds(5)) async {
        let deadline = ContinuousClock.now + timeout
        while !state.withLock({ $0.following || $0.listdAway }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Subscribes, applies, reconnects: until cancelled (once a tasks app is paired).
    private func follow() async {
        var delay = Duration.milliseconds(250)
        while !wanted(), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(200)) }
        while !Task.isCancelled {
            do {
                try await ListClient.withConnection(socketPath: listdSocket, name: "listd-web tasks") { client in
                    let changes = client.changes()
                    let (since, instance) = state.withLock { ($0.book.instance == nil ? nil : $0.book.current.revision, $0.book.instance) }
                    try await subscribe(client)
                    state.withLock { state in
                        state.following = true
                        state.listdAway = false
                    }
                    delay = .milliseconds(250)
                    for try await event in changes { apply(event) }
                }
            } catch {
                if Task.isCancelled { break }
                let wasFollowing = state.withLock { state in
                    defer {
                        state.following = false
                        state.listdAway = true
                    }
                    return state.following
                }
                if wasFollowing { logger.warning("the tasks apps' view of the lists lost listd (\(error)); reconnecting") }
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// Subscribes from where the book is (its changes since come as notifications), or from
    /// the lists as they are when listd no longer has them or serves another state.
    private func subscribe(_ client: ListClient) async throws {
        let (since, instance) = state.withLock { ($0.book.instance == nil ? nil : $0.book.current.revision, $0.book.instance) }
        guard let since else { return rebuild(from: try await client.subscribe()) }
        let resumed: ListsSnapshot
        do {
            resumed = try await client.subscribe(since: since, instance: instance)
        } catch {
            guard case .denied(let denial) = error, [DenialReason.historyCompacted, .instanceChanged].contains(denial.reason) else { throw error }
            return rebuild(from: try await client.subscribe())
        }
        apply(resumedAt: resumed)
    }

    private func apply(resumedAt snapshot: ListsSnapshot) {
        // Lists the book has that listd has not (deleted while listd-web was away, with their
        // notification compacted): gone.
        state.withLock { state in
            let ids = Set(snapshot.lists.map(\.id))
            for id in state.book.lists.keys where !ids.contains(id) { state.book.lists[id] = nil }
        }
    }

    private func rebuild(from snapshot: ListsSnapshot) {
        let waiters = state.withLock { state in
            state.book.follow(instance: snapshot.instance ?? "", at: snapshot.revision)
            let ids = Set(snapshot.lists.map(\.id))
            for id in state.book.lists.keys where !ids.contains(id) { state.book.lists[id] = nil }
            for list in snapshot.lists {
                state.book.apply(list, deleted: false, steps: [], revision: snapshot.revision)
            }
            state.book.current = max(state.book.current, SyncStamp(revision: snapshot.revision))
            state.dirty = true
            return takeWaiters(&state)
        }
        // Saved before any client reads it: a book rebuilt again after a crash would give its
        // tasks other UIDs (each change after is made the same again from this revision).
        save()
        for waiter in waiters { waiter.resume() }
    }

    private func apply(_ event: ListEvent) {
        let waiters = state.withLock { state in
            state.book.apply(event.list, deleted: event.name == .didDeleteShoppingList, steps: event.changes, revision: event.revision)
            state.book.current = max(state.book.current, SyncStamp(revision: event.revision))
            state.dirty = true
            return takeWaiters(&state)
        }
        for waiter in waiters { waiter.resume() }
    }

    private func takeWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let revision = state.book.current.revision
        let ready = state.waiters.filter { $0.revision <= revision }.map(\.resume)
        state.waiters.removeAll { $0.revision <= revision }
        return ready
    }

    private func saveWhileRunning() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            save()
        }
    }

    /// Writes the book when it changed (a temporary file, fsync, rename: never half a book), and
    /// returns once the book as it was at the call is on disk (false: it could not be written).
    /// One write at a time, each of a book at least as new as the one before: a PUT answered
    /// after its save is never undone by an older book written after it.
    @discardableResult
    func save() -> Bool {
        writing.withLock { _ in
            let book: TaskBook? = state.withLock { state in
                guard state.dirty else { return nil }
                state.dirty = false
                return state.book
            }
            guard let book else { return true }
            // A book always encodes (strings, numbers and dates); were it not to, the file is
            // left as it was.
            guard let data = try? JSONEncoder().encode(book) else { return false }
            do throws(FileIO.Failure) {
                try FileIO.replace(path, with: Array(data))
                return true
            } catch {
                logger.error("cannot save the CalDAV task book \(path): \(error)")
                state.withLock { $0.dirty = true }
                return false
            }
        }
    }
}

