// What a restart finds in listd's own files: the change log redone on the snapshot, and the
// note that names the list file at its revision.
import Foundation
import ListFileFormat
import ListModel
import ListRPC
import Testing

@testable import ListCore
@testable import ListDaemon

@Suite struct RecoveryTests {
    static let client = ChangeOrigin.client(pid: 1, uid: 1, name: "test")
    static let time = Timestamp(millisecondsSinceEpoch: 1_000)

    /// A file's note may be logged after changes the file does not show yet (they were appended
    /// while the file was rendered): what the file shows is the lists at the note's revision, not
    /// at its place in the log, or a save from that file would be read against lists it never
    /// showed, and undo what they added.
    @Test func aFilesNoteNamesTheListsAtItsRevisionWhereverItIsLogged() throws {
        var book = ListBook()
        var entries: [LogEntry] = []
        func apply(_ edit: ListEdit) throws {
            let before = edit.target.flatMap { try? book.list($0) }
            let change = try #require(try book.apply(edit, at: Self.time, origin: Self.client))
            entries.append(.change(ChangeRecord(change, before: before)))
        }
        try apply(.createList(name: "G", items: ["milk"]))
        let rendered = book
        try apply(.addItem("eggs", to: .id(1)))
        entries.append(.fileShows(digest: "d", revision: rendered.revision))
        let recovered = try LocalPersistence.recover(
            snapshot: nil,
            entries: entries,
            listFileDigest: "d",
            historyLimit: 10,
            logPath: "/log"
        )
        #expect(recovered.book == book)
        #expect(recovered.shownByFile == rendered, "the file shows milk, not eggs")
        #expect(recovered.lastShown == rendered)
    }

    @Test func aRestartRedoesTheLogOnTheSnapshot() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "G", items: (0..<100).map { "i\($0)" }), at: Self.time, origin: .file)
        let snapshot = PersistedState(book: book, listFileDigest: "d", shown: book, instance: "x")
        var entries: [LogEntry] = []
        var expected = book
        for round in 0..<50 {
            let before = try expected.list(.id(1))
            let change = try #require(
                try expected.apply(.addItem("n\(round)", to: .id(1), at: round), at: Self.time, origin: Self.client)
            )
            entries.append(.change(ChangeRecord(change, before: before)))
            let removedBefore = try expected.list(.id(1))
            let removal = try #require(
                try expected.apply(.removeItem("i\(round)", from: .id(1)), at: Self.time, origin: Self.client)
            )
            entries.append(.change(ChangeRecord(removal, before: removedBefore)))
        }
        entries.append(.fileShows(digest: "e", revision: expected.revision))
        let recovered = try LocalPersistence.recover(
            snapshot: snapshot,
            entries: entries,
            listFileDigest: "e",
            historyLimit: 1_000,
            logPath: "/log"
        )
        #expect(recovered.book == expected)
        #expect(recovered.shownByFile == expected)
        #expect(recovered.lastShown == expected)
        // A file listd never wrote: nothing known about it.
        let unknown = try LocalPersistence.recover(
            snapshot: snapshot,
            entries: entries,
            listFileDigest: "f",
            historyLimit: 1_000,
            logPath: "/log"
        )
        #expect(unknown.shownByFile == nil)
        // The history rebuilds every change in full, as subscribers were told it.
        let changes = try recovered.history.changes(after: book.revision)
        #expect(changes.count == 100)
        #expect(changes.last?.list == (try expected.list(.id(1))))
        // A record that does not follow from the lists before it is refused, naming its line.
        var broken = entries
        broken[3] = .change(
            ChangeRecord(
                revision: book.revision + 4,
                time: Self.time,
                origin: .file,
                operation: .remove(id: 1, at: 9_999)
            )
        )
        #expect(throws: DaemonError.self) {
            try LocalPersistence.recover(
                snapshot: snapshot,
                entries: broken,
                listFileDigest: nil,
                historyLimit: 1_000,
                logPath: "/log"
            )
        }
    }
}

extension RecoveryTests {
    /// The soak's seed 2633312658: while listd was stopped, a person saved a text byte for byte
    /// like one listd had noted earlier (their own earlier save, a tick put back). listd's start
    /// recognised it by that old note as its own and wrote the lists over it, taking nothing in:
    /// the untick was lost without a word. A person's save back on disk is a save, unless it is
    /// the text listd noted last.
    @Test func aPersonsSaveBackOnDiskIsASaveAtAStart() throws {
        var book = ListBook()
        var entries: [LogEntry] = []
        let change = try #require(try book.apply(.createList(name: "G", items: ["milk"]), at: Self.time, origin: Self.client))
        entries.append(.change(ChangeRecord(change, before: nil)))
        // listd's text, then a person's save taken in (it showed the lists), then listd's again.
        entries.append(.fileShows(digest: "written", revision: book.revision))
        let saved = Array("# G <!-- listd id=1 rev=1 -->\n- [ ] milk\n".utf8)
        entries.append(.saveTaken(text: saved, revision: book.revision))
        entries.append(.fileShows(digest: digest(saved), revision: book.revision))
        let before = try book.list(.id(1))
        let tick = try #require(try book.apply(.checkItem("milk", on: .id(1)), at: Self.time, origin: Self.client))
        entries.append(.change(ChangeRecord(tick, before: before)))
        entries.append(.fileShows(digest: "new", revision: book.revision))
        func recovered(_ digest: String, changedSince: Bool = false) throws -> RecoveredLists {
            try LocalPersistence.recover(
                snapshot: nil, entries: entries, listFileDigest: digest, fileChangedSince: changedSince, historyLimit: 10, logPath: "/log"
            )
        }
        #expect(try recovered(digest(saved)).shownByFile == nil, "the person's save back on disk is a save")
        #expect(try recovered("new").shownByFile == book)
        // An older text listd wrote itself is its own still (a power cut lost the later write)…
        #expect(try recovered("written").shownByFile != nil)
        // …unless it was written after listd's log (seeds 752175798, 2633312658: a person's
        // revert to listd's own earlier text while it was stopped); the last one is always its.
        #expect(try recovered("written", changedSince: true).shownByFile == nil)
        #expect(try recovered("new", changedSince: true).shownByFile == book)
    }
}
