// What a store hands the core: the lists found at a start, what it keeps to recognise the list
// file, and the changes other machines committed.
import ListModel

/// A change another machine (or this one, before a restart) committed.
package struct RemoteChange: Sendable, Equatable {
    package var record: ChangeRecord
    /// `host:/path/to/lists.md`: who made it.
    package var machine: String

    package init(record: ChangeRecord, machine: String) {
        self.record = record
        self.machine = machine
    }
}

/// What a store holds besides the changes: enough to recognise the list file at the next start.
package struct PersistedView: Sendable {
    /// The committed lists (as of the last append).
    package var book: ListBook
    /// Digest of the list file as listd last read or wrote it.
    package var fileDigest: String
    /// The lists that file shows (older than `book` while a person's save waits for delegates).
    package var shown: ListBook
    package var instance: String
    /// listd's one history (the core's): a compaction keeps its last changes on its base.
    package var history: ChangeHistory

    package init(book: ListBook, fileDigest: String, shown: ListBook, instance: String, history: ChangeHistory) {
        self.book = book
        self.history = history
        self.fileDigest = fileDigest
        self.shown = shown
        self.instance = instance
    }
}

/// The state a start begins from.
package struct RecoveredLists: Sendable {
    /// Names this state; nil when none was saved yet (a first start, or an older state file).
    package var instance: String?
    /// Every confirmed change applied.
    package var book: ListBook
    /// The last changes, for `subscribe {since}`.
    package var history: ChangeHistory
    /// The lists the list file on disk shows, when listd wrote it or took it in (found by its
    /// digest); nil when a person changed it since.
    package var shownByFile: ListBook?
    /// What the last such file shows.
    package var lastShown: ListBook
    /// Nothing was kept at all: the list file is all there is.
    package var isFirstStart: Bool
    /// What was found wrong and worked around (an unreadable snapshot), for the journal.
    package var problems: [DaemonError]
    /// The saves taken in within the kept history, oldest first (`LogEntry.saveTaken`). A start
    /// keeps the last of them as a running listd does (`CoreLimits.keptFileVersions`), and
    /// remembers which revisions the others were made from (`FileState.forgottenSaves`).
    package var savesTaken: [SavedText]

    package init(
        instance: String? = nil,
        book: ListBook,
        history: ChangeHistory,
        shownByFile: ListBook? = nil,
        lastShown: ListBook,
        isFirstStart: Bool,
        problems: [DaemonError],
        savesTaken: [SavedText] = []
    ) {
        self.instance = instance
        self.book = book
        self.history = history
        self.shownByFile = shownByFile
        self.lastShown = lastShown
        self.isFirstStart = isFirstStart
        self.problems = problems
        self.savesTaken = savesTaken
    }
}

/// A person's save that listd took in: its text, and the revision right after it.
package struct SavedText: Sendable, Equatable {
    package var text: [UInt8]
    package var revision: Revision

    package init(text: [UInt8], revision: Revision) {
        self.text = text
        self.revision = revision
    }
}
