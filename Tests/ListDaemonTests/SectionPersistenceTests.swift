// What listd keeps of sections and amounts across a restart: the snapshot holds each list's
// sections and amounts, and the section each item taken off was last in.
import Foundation
import ListModel
import ListRPC
import Testing

@testable import ListCore
@testable import ListDaemon

@Suite struct SectionPersistenceTests {
    @Test func theSnapshotKeepsSectionsAmountsAndWhereEachItemWasLast() throws {
        let time = Timestamp(millisecondsSinceEpoch: 1_700_000_000_000)
        var book = ListBook()
        _ = try book.apply(.createList(name: "Groceries", items: ["tape"]), at: time, origin: .file)
        _ = try book.apply(.addItem("milk", to: .id(1), section: "Dairy", quantity: "2 l"), at: time, origin: .file)
        _ = try book.apply(.addItem("bread", to: .id(1), section: "Bakery"), at: time, origin: .file)
        _ = try book.apply(.removeItem("bread", from: .id(1)), at: time, origin: .file)
        #expect(try book.list(.id(1)).lastSections == ["bread": "Bakery"])
        let bytes = try JSONEncoder().encode(PersistedState(book: book, listFileDigest: "d", shown: book, instance: "x"))
        let read = try RPCEncoding.decode(PersistedState.self, fromJSON: Array(bytes))
        #expect(read.book == book)
        let list = try read.book.list(.id(1))
        #expect(list.sections == [ListSection("Dairy", count: 1), ListSection("Bakery")])
        #expect(list.quantities == ["milk": "2 l"])
        #expect(list.lastSections == ["bread": "Bakery"], "bread goes back under Bakery after a restart")
        // A snapshot from before sections reads as lists without any.
        let older = #"{"format":3,"revision":1,"nextID":2,"listFileDigest":"d","lists":[{"id":1,"name":"G","edited":"2026-01-01T00:00:00Z","revision":1,"items":["batteries (4)"],"checked":[]}]}"#
        let old = try RPCEncoding.decode(PersistedState.self, fromJSON: Array(older.utf8))
        #expect(try old.book.list(.id(1)).items == ["batteries (4)"], "its text unchanged")
        #expect(try old.book.list(.id(1)).sections.isEmpty)
    }
}
