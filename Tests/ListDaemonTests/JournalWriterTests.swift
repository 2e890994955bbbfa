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
        let pipe = try Pipe()
        let lines = StderrLines(descriptor: pipe.write)
        let journal = JournalWriter(output: .stderr(label: "listd", lines: lines), level: .info, lines: lines)
        let loop = MultiThreadedEventLoopGroup.singleton.next()

        journal.write([.fileEmptied(path: "/lists.md", deleted: true), .fileWrittenAgain(path: "/lists.md")])
        journal.write([.fileEmptied(path: "/other.md", deleted: false)])
        try await journal.written(on: loop).get()

        let written = pipe.readAll().split(separator: "\n")
        #expect(written.count == 3)
        #expect(written.count == 3 && written[0].contains("the list file /lists.md was deleted"))
        #expect(written.count == 3 && written[1].contains("the list file /lists.md is written again"))
        #expect(written.count == 3 && written[2].contains("the list file /other.md was emptied"))
    }

    @Test func aChangesEntryIsOneLineWithItsFieldsInKeyOrder() async throws {
        let pipe = try Pipe()
        let lines = StderrLines(descriptor: pipe.write)
        let journal = JournalWriter(output: .stderr(label: "listd", lines: lines), level: .info, lines: lines)
        let list = ShoppingList(id: 3, name: "Groceries", edited: Timestamp(millisecondsSinceEpoch: 0), revision: 2, items: ["milk"])
        let origin = ChangeOrigin.client(pid: 42, uid: 1000, name: "phone")
        journal.write([
            .applied(ListChange(kind: .updated, revision: 2, list: list, steps: [.add(item: "milk", quantity: "2 l")], origin: origin)),
            .denied(.itemExists(item: "milk", list: "Groceries"), edit: .addItem("milk", to: .id(3)), origin: origin, list: list),
        ])
        try await journal.written(on: MultiThreadedEventLoopGroup.singleton.next()).get()

        let written = pipe.readAll().split(separator: "\n")
        #expect(written.count == 2)
        #expect(
            written.first?.hasSuffix(
                "info listd: client_name=phone client_pid=42 client_uid=1000 item=milk list_id=3 list_name=Groceries origin=client revision=2 [ListDaemon] added “milk” (2 l) to Groceries (revision 2, by phone (pid 42, uid 1000))"
            ) == true,
            "\(written.first ?? "")"
        )
        #expect(written.last?.contains("notice listd: client_name=phone client_pid=42 client_uid=1000 item=milk list_id=3 list_name=Groceries origin=client reason=itemExists [ListDaemon] denied:") == true, "\(written.last ?? "")")
    }

    /// Issue 60, case 6: a sharing listd's journal said its lists were "safe in the change log"
    /// (it has none) when the list file could not be written; and one warning per edit refused
    /// while the shared lists' server was away. It names where the lists are, and such lines
    /// come at most once a second, the next saying how many were held back.
    @Test func aSharingListdsJournalNamesWhereTheListsAreAndHoldsBackRepeats() async throws {
        let pipe = try Pipe()
        let lines = StderrLines(descriptor: pipe.write)
        let journal = JournalWriter(
            output: .stderr(label: "listd", lines: lines), level: .info, keptIn: "the shared lists at listd@kitchen/lists", lines: lines
        )
        let unwritable = DaemonError.cannotWriteListFile(path: "/lists.md", step: "create a temp file", errno: 28)
        let away = DaemonError.shareUnavailable(server: "listd@kitchen/lists", detail: "the connection to the server closed")
        journal.write([.fileWriteFailed(unwritable)] + Array(repeating: .storageFailed(away, edits: 1), count: 50))
        try await journal.written(on: MultiThreadedEventLoopGroup.singleton.next()).get()

        let written = pipe.readAll().split(separator: "\n")
        #expect(written.first?.contains("the lists are safe in the shared lists at listd@kitchen/lists") == true, "\(written.first ?? "")")
        #expect(written.count == 2, "one refusal line of fifty within a second: \(written)")
    }
}
