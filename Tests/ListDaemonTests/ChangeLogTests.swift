import Foundation
import ListModel
import ListRPC
import Testing

@testable import ListCore
@testable import ListDaemon

@Suite struct ChangeLogTests {
    private func temporaryLog() throws -> String {
        let directory = try ScratchDirectories.make("log")
        return directory + "/log"
    }

    private func change(revision: Int, item: String) -> LogEntry {
        .change(
            ChangeRecord(
                revision: revision,
                time: Timestamp(millisecondsSinceEpoch: 5),
                origin: .file,
                operation: .add(id: 1, item: item, at: 0)
            )
        )
    }

    private func revisions(_ entries: [LogEntry]) -> [String] {
        entries.map { entry in
            switch entry {
            case .change(let record): "change \(record.revision)"
            case .fullChange(let change): "full \(change.revision)"
            case .fileShows(_, let revision): "file \(revision)"
            case .order(_, let revision): "order \(revision)"
            case .saveTaken(_, let revision): "save \(revision)"
            }
        }
    }

    @Test func whatIsAppendedIsReadBackInOrder() throws {
        let path = try temporaryLog()
        let log = try ChangeLog(path: path)
        #expect(try log.readAll().isEmpty)
        try log.append([change(revision: 1, item: "milk"), .fileShows(digest: "d", revision: 1)])
        try log.append([.order([2, 1], revision: 1), change(revision: 2, item: "eggs")])
        // A save's text whole, with the quotes, newlines and non-ASCII a person types.
        let saved = Array("# Groceries <!-- listd id=1 rev=1 -->\n- [ ] “crème” \"fraîche\"\t\\\n".utf8)
        try log.append([.saveTaken(text: saved, revision: 2)])
        let read = try ChangeLog(path: path).readAll()
        #expect(revisions(read) == ["change 1", "file 1", "order 1", "change 2", "save 2"])
        #expect(read.last == .saveTaken(text: saved, revision: 2))
        #expect(read[0] == change(revision: 1, item: "milk"))
        #expect(read[2] == .order([2, 1], revision: 1))
    }

    @Test func everyOperationRoundTripsThroughItsLine() throws {
        let origin = ChangeOrigin.client(pid: 7, uid: 1000, name: "a “name”\n")
        let operations: [ChangeRecord.Operation] = [
            .create(id: 3, name: "Groceries", items: ["milk", "eggs"]), .rename(id: 3, to: "Food"), .delete(id: 3),
            .add(id: 3, item: "bread\\\"", at: 2), .remove(id: 3, at: 1), .replace(id: 3, at: 0, with: "oat milk"),
            .move(id: 3, from: 2, to: 0),
            // Sections and amounts (issue 30).
            .create(
                id: 4,
                name: "Groceries",
                items: ["tape", "milk", "bread"],
                checked: ["milk"],
                sections: [ListSection("Dairy", count: 1), ListSection("Bakery", count: 1), ListSection("Frozen")],
                quantities: ["milk": "2 l", "tape": "1 roll"]
            ),
            .add(id: 4, item: "ice", at: 3, section: 2, newSection: "Frozen", quantity: "1 kg"),
            .add(id: 4, item: "jam", at: 1, section: nil, newSection: nil, quantity: "2"),
            .move(id: 4, from: 0, to: 2, section: 1), .move(id: 4, from: 2, to: 0, section: nil),
            .addSection(id: 4, name: "Deli", at: 1), .addSection(id: 4, name: "Deli", at: 0, taking: 2),
            .renameSection(id: 4, at: 1, to: "Bread & “cakes”"), .removeSection(id: 4, at: 0),
            .setQuantity(id: 4, at: 1, quantity: "500 g"), .setQuantity(id: 4, at: 1, quantity: nil),
            .removeItems(id: 4, [PlacedItem("milk", at: 1, checked: true, section: "Dairy", quantity: "2 l"), PlacedItem("tape", at: 0, checked: false)]),
            .insertItems(id: 4, [PlacedItem("milk", at: 1, checked: false, section: nil, quantity: "2 l")]),
            .restate(id: 4, from: 1, to: 3, section: 2, newSection: "Fridge", checked: false, quantity: "2 l"),
            .restate(id: 4, from: 3, to: 1, section: nil, newSection: nil, checked: true, quantity: nil),
        ]
        let origins = [origin, .client(pid: 8, uid: 0, name: nil), .file]
        for operation in operations {
            for origin in origins {
                let entry = LogEntry.change(
                    ChangeRecord(
                        revision: 9,
                        time: Timestamp(millisecondsSinceEpoch: 1234),
                        origin: origin,
                        operation: operation
                    )
                )
                #expect(LogEntry(line: entry.line) == entry, "\(operation) by \(origin)")
            }
        }
        for note in [
            LogEntry.fileShows(digest: "fnv1a64:ab:12", revision: 4), .order([3, 1, 2], revision: 5),
            .order([], revision: 0),
        ] {
            #expect(LogEntry(line: note.line) == note, "\(note)")
        }
    }

    @Test func aChangeLineDoesNotGrowWithTheList() throws {
        // Defect 2 of issue 12: the line held the whole list after the change.
        func line(listSize: Int) -> Int {
            var book = ListBook()
            _ = try? book.apply(
                .createList(name: "G", items: (0..<listSize).map { "item \($0)" }),
                at: .epoch,
                origin: .file
            )
            let before = try? book.list(.id(1))
            let change = try? book.apply(.addItem("one more", to: .id(1), at: 0), at: .epoch, origin: .file)
            return LogEntry.change(ChangeRecord(change!, before: before)).line.count
        }
        #expect(line(listSize: 10) == line(listSize: 10_000))
    }

    @Test func anOlderLogsFullChangeLineIsStillRead() throws {
        let list = ShoppingList(
            id: 1,
            name: "G",
            edited: Timestamp(millisecondsSinceEpoch: 0),
            revision: 2,
            items: ["milk"]
        )
        let full = ListChange(kind: .updated, revision: 2, list: list, steps: [.add(item: "milk")], origin: .file)
        // As listd wrote a change before it kept records: the notification's line.
        let olderLine = try RPCEncoding.requestBytes(id: nil, method: ListEventName(full.kind).rawValue, params: ListChangeParams(full))
        #expect(LogEntry(line: olderLine) == .fullChange(full))
    }

    @Test func aLongLogIsReadInOrderAndItsDamageIsNamedByLineWhateverChunkItIsIn() throws {
        // More lines than one parsing chunk holds, so several chunks are parsed at once.
        let path = try temporaryLog()
        let log = try ChangeLog(path: path)
        let count = 10_000
        try log.append((1...count).map { change(revision: $0, item: "item \($0)") })
        let read = try ChangeLog(path: path).readAll()
        #expect(read == (1...count).map { change(revision: $0, item: "item \($0)") })

        // A damaged line deep in the log, in a later chunk than the first.
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        lines[8_999] = "{garbage"
        try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
        #expect {
            try ChangeLog(path: path).readAll()
        } throws: { error in
            guard case DaemonError.damagedLog(_, let line) = error else { return false }
            return line == 9_000
        }

        // The same damage on the last whole line is a torn append: cut off, the rest kept.
        lines[8_999] = Substring(String(decoding: change(revision: 9_000, item: "item 9000").line, as: UTF8.self))
        lines[count - 1] = "{garbage"
        try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try ChangeLog(path: path).readAll().count == count - 1)
    }

    @Test func aTornLastLineIsCutOffAndAppendsGoOnFromAWholeLine() throws {
        let path = try temporaryLog()
        let log = try ChangeLog(path: path)
        try log.append([change(revision: 1, item: "milk")])
        // A crash in the middle of the next append (never confirmed).
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(change(revision: 2, item: "eggs").line.prefix(20)))
        try handle.close()

        let reopened = try ChangeLog(path: path)
        #expect(revisions(try reopened.readAll()) == ["change 1"])
        try reopened.append([change(revision: 2, item: "bread")])
        #expect(revisions(try ChangeLog(path: path).readAll()) == ["change 1", "change 2"])
    }

    @Test func aDamagedLineWithConfirmedLinesAfterItIsRefusedNotDropped() throws {
        let path = try temporaryLog()
        let log = try ChangeLog(path: path)
        try log.append([change(revision: 1, item: "milk")])
        try "{garbage\n".data(using: .utf8)!.append(toFile: path)
        try log.append([change(revision: 3, item: "eggs")])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try ChangeLog(path: path).readAll()
        } throws: { error in
            guard case DaemonError.damagedLog(_, let line) = error else { return false }
            return line == 2
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "nothing was cut")
    }
}

extension Data {
    fileprivate func append(toFile path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(self)
        try handle.close()
    }
}
