// The journal off the owner's path: a pass's entries are written on the journal's thread, in the
// order handed over, and stderr's lines of one batch go out together, not one write per line.
// Real pipes stand for stderr.
import Glibc
import Logging
import NIOPosix
import Testing

import ListModel
@testable import ListCore
@testable import ListDaemon

/// A pipe whose write end takes the lines.
private struct Pipe: ~Copyable {
    let read: Int32
    let write: Int32

    init() throws {
        var fds: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&fds) == 0)
        (read, write) = (fds[0], fds[1])
        // Reads take what is there and return.
        _ = fcntl(read, F_SETFL, O_NONBLOCK)
    }

    deinit {
        close(read)
        close(write)
    }

    /// Bytes written and not read yet.
    var unread: Int {
        var count: Int32 = 0
        _ = ioctl(read, UInt(FIONREAD), &count)
        return Int(count)
    }

    func readAll() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// What the journal writes on stderr for `batches`, handed over one after another (each as one
/// pass's), once all are written.
private func stderrText(
    of batches: [[JournalEntry]],
    level: Logger.Level = .info,
    keptIn: String = "the change log"
) async throws -> String {
    let pipe = try Pipe()
    let lines = StderrLines(descriptor: pipe.write)
    let journal = JournalWriter(output: .stderr(label: "listd", lines: lines), level: level, keptIn: keptIn, lines: lines)
    for batch in batches { journal.write(batch) }
    try await journal.written(on: MultiThreadedEventLoopGroup.singleton.next()).get()
    return pipe.readAll()
}

@Suite struct JournalWriterTests {
    @Test func linesLoggedInABatchAreWrittenWhenItCloses() throws {
        let pipe = try Pipe()
        let lines = StderrLines(descriptor: pipe.write)
        let logger = Logger(label: "listd") { StderrLogHandler(label: $0, lines: lines) }

        logger.info("alone")
        #expect(pipe.readAll().hasSuffix("info listd: [ListDaemonTests] alone\n"), "outside a batch, at once")
        var unreadInside: [Int] = []
        lines.batch {
            logger.info("first", metadata: ["list_name": "Groceries"])
            unreadInside.append(pipe.unread)
            logger.notice("second")
            unreadInside.append(pipe.unread)
        }
        #expect(unreadInside == [0, 0], "nothing is written while the batch is open")
        let written = pipe.readAll().split(separator: "\n")
        #expect(written.count == 2)
        #expect(written.first?.hasSuffix("info listd: list_name=Groceries [ListDaemonTests] first") == true)
        #expect(written.last?.hasSuffix("notice listd: [ListDaemonTests] second") == true)

        // The handler's own fields join the event's (the event's win), in key order.
        var tagged = logger
        tagged[metadataKey: "instance"] = "home"
        tagged[metadataKey: "list_name"] = "old"
        tagged.info("third", metadata: ["list_name": "Groceries", "item": "milk"])
        #expect(pipe.readAll().hasSuffix("info listd: instance=home item=milk list_name=Groceries [ListDaemonTests] third\n"))
    }

    @Test func aPassesEntriesAreWrittenOnTheJournalsThreadInTheOrderHandedOver() async throws {
        let written = try await stderrText(of: [
            [.fileEmptied(path: "/lists.md", deleted: true), .fileWrittenAgain(path: "/lists.md")],
            [.fileEmptied(path: "/other.md", deleted: false)],
        ]).split(separator: "\n")
        #expect(written.count == 3)
        #expect(written.count == 3 && written[0].contains("the list file /lists.md was deleted"))
        #expect(written.count == 3 && written[1].contains("the list file /lists.md is written again"))
        #expect(written.count == 3 && written[2].contains("the list file /other.md was emptied"))
    }

    @Test func aChangesEntryIsOneLineWithItsFieldsInKeyOrder() async throws {
        let list = ShoppingList(id: 3, name: "Groceries", edited: Timestamp(millisecondsSinceEpoch: 0), revision: 2, items: ["milk"])
        let origin = ChangeOrigin.client(pid: 42, uid: 1000, name: "phone")
        let written = try await stderrText(of: [[
            .applied(ListChange(kind: .updated, revision: 2, list: list, steps: [.add(item: "milk", quantity: "2 l")], origin: origin)),
            .denied(.itemExists(item: "milk", list: "Groceries"), edit: .addItem("milk", to: .id(3)), origin: origin, list: list),
        ]]).split(separator: "\n")
        #expect(written.count == 2)
        #expect(
            written.first?.hasSuffix(
                "info listd: client_name=phone client_pid=42 client_uid=1000 item=milk list_id=3 list_name=Groceries origin=client revision=2 [ListDaemon] added “milk” (2 l) to Groceries (revision 2, by phone (pid 42, uid 1000))"
            ) == true,
            "\(written.first ?? "")"
        )
        #expect(written.last?.contains("notice listd: client_name=phone client_pid=42 client_uid=1000 item=milk list_id=3 list_name=Groceries origin=client reason=itemExists [ListDaemon] denied:") == true, "\(written.last ?? "")")
    }

    /// Every kind of step says its own sentence, the last step's is the one said, a clear and a
    /// put-back name their count, an undo and another machine are said after it.
    @Test func everyChangeSaysWhatItDid() async throws {
        let list = ShoppingList(id: 3, name: "Groceries", edited: Timestamp(millisecondsSinceEpoch: 0), revision: 2, items: ["milk"])
        let origin = ChangeOrigin.client(pid: 42, uid: 1000, name: "phone")
        func change(_ steps: [ListChange.Step], kind: ListChange.Kind = .updated, undoes: Revision? = nil) -> ListChange {
            ListChange(kind: kind, revision: 7, list: list, steps: steps, origin: origin, undoes: undoes)
        }
        let expected: [(JournalEntry, String)] = [
            (.applied(change([], kind: .created)), "created list “Groceries”"),
            (.applied(change([], kind: .deleted)), "deleted list “Groceries”"),
            (.applied(change([], kind: .updated)), "changed list “Groceries”"),
            (.applied(change([.add(item: "milk")])), "added “milk” to Groceries"),
            (.applied(change([.add(item: "milk", quantity: "2 l", section: "Dairy")])), "added “milk” (2 l) to Groceries, under Dairy"),
            (.applied(change([.remove(item: "milk")])), "removed “milk” from Groceries"),
            (.applied(change([.replace(item: "milk", with: "oat milk")])), "replaced “milk” with “oat milk” on Groceries"),
            (.applied(change([.rename(from: "Food", to: "Groceries")], kind: .renamed)), "renamed list “Food” to “Groceries”"),
            (.applied(change([.move(item: "milk", to: 2)])), "moved “milk” to place 3 on Groceries"),
            (.applied(change([.move(item: "milk", to: 0, section: "Dairy")])), "moved “milk” to place 1 on Groceries, under Dairy"),
            (.applied(change([.addSection(section: "Dairy")])), "added the section Dairy to Groceries"),
            (.applied(change([.renameSection(from: "Dairy", to: "Fridge")])), "renamed the section Dairy of Groceries to Fridge"),
            (.applied(change([.removeSection(section: "Dairy")])), "removed the section Dairy from Groceries"),
            (.applied(change([.quantity(item: "milk", quantity: "2 l")])), "set “milk” to 2 l on Groceries"),
            (.applied(change([.quantity(item: "milk", quantity: nil)])), "cleared the amount of “milk” on Groceries"),
            (.applied(change([.check(item: "milk")])), "checked “milk” on Groceries"),
            (.applied(change([.uncheck(item: "milk")])), "unchecked “milk” on Groceries"),
            (.applied(change([.check(item: "milk"), .add(item: "tea")])), "added “tea” to Groceries"),
            (.applied(change([.remove(item: "milk"), .remove(item: "tea")])), "removed 2 items from Groceries"),
            (.applied(change([.add(item: "milk"), .add(item: "tea")], undoes: 5)), "put 2 items back on Groceries (undoing change 5)"),
            (.applied(change([.check(item: "milk")], undoes: 6)), "checked “milk” on Groceries (undoing change 6)"),
            (.remote(change([.add(item: "milk")]), machine: "kitchen"), "added “milk” to Groceries"),
        ]
        // At debug level: another machine's change is journalled there.
        let written = try await stderrText(of: [expected.map(\.0)], level: .debug)
        // One line each: a clear's field of items, one per line for journald, says `\n` here.
        #expect(written.split(separator: "\n").count == expected.count, "\(written)")
        var rest = written[...]
        for (entry, sentence) in expected {
            let elsewhere = if case .remote = entry { " on kitchen" } else { "" }
            let said = "] \(sentence) (revision 7, by phone (pid 42, uid 1000)\(elsewhere))\n"
            // In the order written.
            guard let found = rest.firstRange(of: said) else {
                Issue.record("no “\(said)” after the entries before it in \(written)")
                continue
            }
            rest = rest[found.upperBound...]
        }
        // The fields: a later step's win; a clear's items in one field, without `item`.
        #expect(written.contains("item=tea list_id=3 list_name=Groceries origin=client revision=7 [ListDaemon] added “tea” to Groceries (revision 7"))
        #expect(written.contains(#"client_uid=1000 items=milk\ntea list_id=3 list_name=Groceries origin=client revision=7 [ListDaemon] removed 2 items"#))
    }

    /// Text a client sent reaches the readable log with its control characters written out: an
    /// item refused for holding ESC or a C1 control cannot move a terminal's cursor there.
    @Test func aClientsControlCharactersAreWrittenOut() async throws {
        let origin = ChangeOrigin.client(pid: 42, uid: 1000, name: "x\u{1B}]0;owned\u{07}")
        let item = "milk\u{1B}[2J\u{9B}31m\ttea"
        let written = try await stderrText(of: [[
            .denied(.invalidItem(item, .controlCharacter(scalar: 0x1B)), edit: .addItem(item, to: .id(3)), origin: origin, list: nil)
        ]])
        #expect(!written.unicodeScalars.dropLast().contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }, "\(written.debugDescription)")
        #expect(written.contains(#"item=milk\x1b[2J\x9b31m\ttea"#), "\(written)")
        #expect(written.contains(#"client_name=x\x1b]0;owned\x07"#), "\(written)")
    }

    /// Issue 60, case 6: a sharing listd's journal said its lists were "safe in the change log"
    /// (it has none) when the list file could not be written; and one warning per edit refused
    /// while the shared lists' server was away. It names where the lists are, and such lines
    /// come at most once a second, the next saying how many were held back.
    @Test func aSharingListdsJournalNamesWhereTheListsAreAndHoldsBackRepeats() async throws {
        let unwritable = DaemonError.cannotWriteListFile(path: "/lists.md", step: "create a temp file", errno: 28)
        let away = DaemonError.shareUnavailable(server: "listd@kitchen/lists", detail: "the connection to the server closed")
        let written = try await stderrText(
            of: [[.fileWriteFailed(unwritable)] + Array(repeating: .storageFailed(away, edits: 1), count: 50)],
            keptIn: "the shared lists at listd@kitchen/lists"
        ).split(separator: "\n")
        #expect(written.first?.contains("the lists are safe in the shared lists at listd@kitchen/lists") == true, "\(written.first ?? "")")
        #expect(written.count == 2, "one refusal line of fifty within a second: \(written)")
    }
}
