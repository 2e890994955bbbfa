import ListFileFormat
import ListModel
import Testing

@testable import ListCore

/// Issue 38: the rewrite after a quiet edit is noted in the change log only by the next append,
/// so a start may find a file no note names. It is listd's own when it shows exactly the lists
/// of the revision its headings name — even when other changes came since (another machine's,
/// through the shared lists) — and a person's edit is never taken for one.
@Suite struct ListFileRecognitionTests {
    static let time = Timestamp(millisecondsSinceEpoch: 1_000)
    static let origin = ChangeOrigin.client(pid: 1, uid: 1, name: "test")

    @Test func listdsOwnFileIsKnownByTheListsOfItsRevisionAndAPersonsEditIsNot() throws {
        var book = ListBook()
        var history = ChangeHistory(base: book, limit: 10)
        func apply(_ edit: ListEdit) throws {
            let before = edit.target.flatMap { try? book.list($0) }
            let change = try #require(try book.apply(edit, at: Self.time, origin: Self.origin))
            try history.append(ChangeRecord(change, before: before))
        }
        try apply(.createList(name: "Groceries", items: ["milk", "eggs"]))
        let written = book
        let bytes = ListFileText.render(written, onto: nil, rejected: [:]).bytes
        // Since the file was written: eggs removed (on another machine).
        try apply(.removeItem("eggs", from: .id(1)))

        let known = ListFileText.listsShownExactly(by: bytes, history: history, newest: book)
        #expect(known == written, "the lists it shows, not the newest: eggs is not the person's")

        let edited = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "milk", with: "oat milk").utf8)
        #expect(ListFileText.listsShownExactly(by: edited, history: history, newest: book) == nil, "a person's edit")
        let added = Array((String(decoding: bytes, as: UTF8.self) + "- [ ] tea\n").utf8)
        #expect(ListFileText.listsShownExactly(by: added, history: history, newest: book) == nil, "a person's line")
    }

    /// A file known by its content alone is noted in the start's append: content stops naming it
    /// once more changes come than the history keeps, and a start after that would take it for a
    /// person's save of an old copy (a power-loss run brought two deleted lists back so).
    @Test func aFileKnownByContentAloneIsNotedAtStart() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "Groceries", items: ["milk"]), at: Self.time, origin: Self.origin)
        let bytes = ListFileText.render(book, onto: nil, rejected: [:]).bytes
        let content = ListFileText.content(bytes, known: book, withEdits: false)
        func appended(byNote: Bool) -> [LogEntry] {
            var core = ListCore(recovered: ListCoreTests.recovered(book), filePath: "/lists.md")
            _ = core.feed(.started(content, recognized: book, byNote: byNote, firstStart: false), now: ListCoreTests.now, at: Self.time)
            _ = core.feed(.fileWriteForced, now: ListCoreTests.now)
            _ = core.feed(.fileNoteForced)
            return core.feed(.passEnded).flatMap { action -> [LogEntry] in
                if case .append(let entries) = action { entries } else { [] }
            }
        }
        let note = LogEntry.fileShows(digest: digest(bytes), revision: book.revision)
        #expect(appended(byNote: false) == [note], "known by content: noted before listd serves")
        #expect(appended(byNote: true) == [], "a note names it already")
    }
}
