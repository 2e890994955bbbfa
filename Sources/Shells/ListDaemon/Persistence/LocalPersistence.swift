import DurableFiles
import Foundation
import ListCore
import ListFileFormat
import ListModel
import ListRPC
import NIOCore
import Synchronization

/// listd's own store, beside the list file: a snapshot (`.NAME.listd-state.json`) and the change
/// log after it (`.NAME.listd-log`). A start reads the snapshot and redoes the log's records on
/// it; compaction writes a new snapshot at the oldest change worth keeping and rewrites the log
/// with the changes after it, so a start reads a bounded amount whatever the lists' history.
final class LocalPersistence: ListPersistence {
    var keptIn: String { "the change log" }
    let statePath: String
    let logPath: String
    let listFilePath: String
    /// One lock for the log: appends come from the owner's loop, a compaction from the thread
    /// pool (the owner never runs both at once; the lock makes that checked, not assumed). The
    /// history the log follows is the core's, handed to a compaction (`PersistedView.history`):
    /// listd keeps one.
    private struct State {
        let log: ChangeLog
        /// Lines in the log since it was last rewritten.
        var lines = 0
    }
    private let state: Mutex<State>
    private let historyLimit: Int

    /// - Parameter historyLimit: changes kept for `subscribe {since}`; the log is compacted once
    ///   it holds twice as many (and a hundred more).
    init(listFilePath: String, historyLimit: Int) throws(DaemonError) {
        let files = StateFiles(besideListFile: listFilePath)
        self.listFilePath = listFilePath
        statePath = files.state
        logPath = files.log
        self.historyLimit = max(historyLimit, 1)
        let log = try ChangeLog(path: logPath)
        state = Mutex(State(log: log))
    }

    func recover(listFileDigest: String?) throws(DaemonError) -> RecoveredLists {
        var snapshot: PersistedState?
        var problems: [DaemonError] = []
        let bytes: [UInt8]?
        do throws(FileIO.Failure) {
            bytes = try FileIO.read(statePath)
        } catch {
            throw .snapshotFailed(path: statePath, step: error.step, errno: error.errno)
        }
        if let bytes {
            do {
                snapshot = try RPCEncoding.decode(PersistedState.self, fromJSON: bytes)
            } catch {
                // The list file is the person's truth: the lists are rebuilt from it.
                problems.append(.unreadableState(path: statePath, detail: "\(error)"))
            }
        }
        let entries = try state.withLock { state throws(DaemonError) in try state.log.readAll() }
        var recovered = try Self.recover(
            snapshot: snapshot,
            entries: entries,
            listFileDigest: listFileDigest,
            fileChangedSince: Self.modified(listFilePath, after: [logPath, statePath]),
            historyLimit: historyLimit,
            logPath: logPath
        )
        recovered.isFirstStart = snapshot == nil && entries.isEmpty
        recovered.problems = problems
        state.withLock { $0.lines = entries.count }
        return recovered
    }

    /// `path` was modified after every one of `others` that exists (false when it is not there,
    /// or none of them is): written after listd's last word in its own files.
    static func modified(_ path: String, after others: [String]) -> Bool {
        func modification(_ path: String) -> timespec? {
            var status = stat()
            return stat(path, &status) == 0 ? status.st_mtim : nil
        }
        guard let file = modification(path) else { return false }
        let times = others.compactMap(modification)
        return !times.isEmpty && times.allSatisfy { (file.tv_sec, file.tv_nsec) > ($0.tv_sec, $0.tv_nsec) }
    }

    /// The lists the snapshot and the log after it give (pure: tested without files).
    /// - Parameter listFileDigest: the list file's digest as it is now, to find what it shows.
    /// - Parameter fileChangedSince: the list file was modified after listd's log and snapshot
    ///   last were: someone wrote it while listd was stopped, so a note of a text byte for byte
    ///   like it (the person's revert to an earlier text) does not make it listd's own.
    static func recover(
        snapshot: PersistedState?,
        entries: [LogEntry],
        listFileDigest: String?,
        fileChangedSince: Bool = false,
        historyLimit: Int,
        logPath: String
    ) throws(DaemonError) -> RecoveredLists {
        var book = snapshot?.book ?? ListBook()
        let snapshotRevision = book.revision
        var history = ChangeHistory(base: book, limit: historyLimit)
        var lastShown = snapshot?.shownBook ?? book
        var shownByFile = snapshot.flatMap { $0.listFileDigest == listFileDigest ? $0.shownBook : nil }
        // Only two of the files listd noted matter: the last one, and the one on disk now. A copy
        // of the lists at every note would copy a long list's items once per note. A note names
        // the lists at its revision, wherever it is logged (changes appended while the file was
        // rendered come before it): they are taken as the redo passes that revision.
        var lastNote: Revision?
        var noteOfFile: Revision?
        var savesTaken: [SavedText] = []
        var lastDigest = snapshot?.listFileDigest
        var savedDigests: Set<String> = []
        for entry in entries {
            if case .saveTaken(let text, _) = entry, listFileDigest != nil { savedDigests.insert(digest(text)) }
            guard case .fileShows(let digest, let revision) = entry, revision >= snapshotRevision else { continue }
            lastNote = revision
            lastDigest = digest
            if digest == listFileDigest { noteOfFile = revision }
        }
        // A person's save taken in earlier, back on disk byte for byte while listd was stopped
        // (the same buffer put back as it was), is theirs again, not a text listd knows: read as
        // a save; so is any older text written after listd's last word in its own files (a
        // revert to listd's own earlier text). An older text listd wrote itself, older than its
        // log, is its own still: a power cut can lose the later write its last note names.
        if let listFileDigest, lastDigest != listFileDigest, savedDigests.contains(listFileDigest) || fileChangedSince {
            noteOfFile = nil
            shownByFile = nil
        }
        func takeNotedLists() {
            if book.revision == lastNote { lastShown = book }
            if book.revision == noteOfFile { shownByFile = book }
        }
        takeNotedLists()
        for (index, entry) in entries.enumerated() {
            do throws(RedoError) {
                switch entry {
                case .change(let record) where record.revision > book.revision:
                    try book.redo(record)
                    try history.append(record, after: book)
                case .fullChange(let change) where change.revision > book.revision:
                    // An older log's line: the list after the change, whole.
                    let before = try? book.list(.id(change.list.id))
                    book.replay(change)
                    try history.append(ChangeRecord(change, before: before))
                case .change, .fullChange:
                    break  // the snapshot has it (an older log kept changes before its snapshot)
                case .order(let ids, let revision) where revision >= snapshotRevision:
                    book.reorder(by: ids)
                case .saveTaken(let text, let revision) where revision >= snapshotRevision:
                    savesTaken.append(SavedText(text: text, revision: revision))
                case .fileShows, .order, .saveTaken:
                    break
                }
                takeNotedLists()
            } catch {
                throw .damagedLog(path: logPath, line: index + 1)
            }
        }
        return RecoveredLists(
            instance: snapshot?.instance,
            book: book,
            history: history,
            shownByFile: shownByFile,
            lastShown: lastShown,
            isFirstStart: false,
            problems: [],
            savesTaken: savesTaken
        )
    }

    /// Written and `fdatasync`ed before this returns: the future is complete already.
    func append(_ entries: [LogEntry], on loop: any EventLoop) -> EventLoopFuture<Void> {
        do throws(DaemonError) {
            try append(entries)
            return loop.makeSucceededVoidFuture()
        } catch {
            return loop.makeFailedFuture(error)
        }
    }

    func append(_ entries: [LogEntry]) throws(DaemonError) {
        try state.withLock { state throws(DaemonError) in
            try state.log.append(entries)
            state.lines += entries.count
        }
    }

    var compactionDue: Bool { state.withLock { $0.lines > 2 * historyLimit + 100 } }

    func compact(_ view: PersistedView) throws(DaemonError) {
        try state.withLock { state throws(DaemonError) in
            guard state.lines > 2 * historyLimit + 100 else { return }  // another compaction did it
            var kept: [LogEntry]
            var base: ListBook
            var history = view.history
            do throws(RedoError) {
                try history.trim(keeping: historyLimit)
                base = history.base
                kept = history.records.map(LogEntry.change)
            } catch {
                // A history that does not add up starts again from the lists now.
                base = view.book
                kept = []
            }
            base.reorder(by: view.book.lists.map(\.id))
            kept.append(.order(view.book.lists.map(\.id), revision: view.book.revision))
            // The snapshot first: until the log is rewritten, the old log on the new snapshot
            // gives the same lists (its changes up to the snapshot are skipped).
            try writeSnapshot(
                PersistedState(book: base, listFileDigest: view.fileDigest, shown: view.shown, instance: view.instance)
            )
            try state.log.rewrite(kept)
            state.lines = kept.count
        }
    }

    /// Writes the snapshot alone (a first start, whose lists are in no log).
    func writeSnapshot(of view: PersistedView) throws(DaemonError) {
        try state.withLock { state throws(DaemonError) in
            // Only when nothing is logged yet: the snapshot is the base the log's records follow.
            guard view.history.records.isEmpty else { return }
            try writeSnapshot(
                PersistedState(
                    book: view.book,
                    listFileDigest: view.fileDigest,
                    shown: view.shown,
                    instance: view.instance
                )
            )
        }
    }

    private func writeSnapshot(_ snapshot: PersistedState) throws(DaemonError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(snapshot)
        } catch {
            throw .unreadableState(path: statePath, detail: "\(error)")
        }
        do throws(FileIO.Failure) {
            try FileIO.replace(statePath, with: Array(data))
        } catch {
            throw .snapshotFailed(path: statePath, step: error.step, errno: error.errno)
        }
    }
}

/// The snapshot listd keeps beside the list file; the change log holds what came after it.
struct PersistedState: Codable, Sendable {
    /// 3: `lists` are the base the log's records follow (2: the log may also hold older changes).
    var format = 3
    /// Names this state: a client that resumes from a revision can tell it is the same state
    /// (and not, say, another list file's). Absent in format 1; given on the next start.
    var instance: String?
    var revision: Revision
    var nextID: ListID
    /// Digest of the list file as listd last read or wrote it: a different file at start-up was
    /// edited while listd was not running, and is taken in as a person's edit.
    var listFileDigest: String
    var lists: [ShoppingList]
    /// The lists that file shows, when not the ones `lists` and the log give (while delegates vet
    /// a person's save). A restart merges the file's changes from these lists, losing neither.
    var listFileLists: [ShoppingList]?
    /// The revision `listFileLists` are at.
    var listFileRevision: Revision?
    /// Per list (by id), the section each item taken off was last in (`ShoppingList.lastSections`,
    /// which the protocol's lists do not carry). Absent before sections.
    var lastSections: [String: [String: String]]?

    init(book: ListBook, listFileDigest: String, shown: ListBook, instance: String) {
        self.instance = instance
        revision = book.revision
        nextID = book.nextID
        self.listFileDigest = listFileDigest
        lists = book.lists
        listFileLists = shown.lists == book.lists ? nil : shown.lists
        listFileRevision = listFileLists == nil ? nil : shown.revision
        let remembered = book.lists.filter { !$0.lastSections.isEmpty }
        lastSections = remembered.isEmpty ? nil : Dictionary(uniqueKeysWithValues: remembered.map { ("\($0.id)", Dictionary($0.lastSections)) })
    }

    var book: ListBook { ListBook(lists: remembering(lists), revision: revision, nextID: nextID) }

    /// `lists` with what their items were last in, as the lists had it when this was saved.
    private func remembering(_ lists: [ShoppingList]) -> [ShoppingList] {
        guard let lastSections else { return lists }
        var lists = lists
        for index in lists.indices { lists[index].lastSections = .init(lastSections["\(lists[index].id)"] ?? [:]) }
        return lists
    }

    /// What the list file showed when this was saved.
    var shownBook: ListBook {
        ListBook(lists: remembering(listFileLists ?? lists), revision: listFileRevision ?? revision, nextID: nextID)
    }
}
