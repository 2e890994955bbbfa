import Foundation
@testable import ListDaemon
import ListModel
import ListRPC
import Testing

@Suite struct ChangeLogTests {
    private func temporaryLog() throws -> String {
        let directory = NSTemporaryDirectory() + "log-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/log"
    }

    private func changeLine(revision: Int, item: String) throws -> [UInt8] {
        let list = ShoppingList(id: 1, name: "G", edited: Timestamp(millisecondsSinceEpoch: 0), revision: revision, items: [item])
        let change = ListChange(kind: .updated, revision: revision, list: list, steps: [.add(item: item)], origin: .file)
        return Array(try RPCEncoding.request(id: nil, method: "didUpdateShoppingList", params: ListChangeParams(change)))
    }

    private func revisions(_ records: [ChangeLog.Record]) -> [String] {
        records.map { record in
            switch record {
            case .change(let change, _, _): "change \(change.revision)"
            case .fileShows(_, let revision): "file \(revision)"
            case .order(_, let revision): "order \(revision)"
            }
        }
    }

    @Test func whatIsAppendedIsReadBackInOrderAndEachLineCanBeReadAgain() throws {
        let path = try temporaryLog()
        let log = try ChangeLog(path: path)
        #expect(try log.readAll().isEmpty)
        let placed = try log.append([try changeLine(revision: 1, item: "milk"), ChangeLog.fileShowsLine(digest: "d", revision: 1)])
        try log.append([ChangeLog.orderLine([2, 1], revision: 1), try changeLine(revision: 2, item: "eggs")])
        #expect(String(decoding: log.read(placed[0]), as: UTF8.self) == String(decoding: try changeLine(revision: 1, item: "milk"), as: UTF8.self))
        #expect(revisions(try ChangeLog(path: path).readAll()) == ["change 1", "file 1", "order 1", "change 2"])
    }

    @Test func aTornLastLineIsCutOffAndAppendsGoOnFromAWholeLine() throws {
        let path = try temporaryLog()
        let log = try ChangeLog(path: path)
        try log.append([try changeLine(revision: 1, item: "milk")])
        // A crash in the middle of the next append (never confirmed).
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(try changeLine(revision: 2, item: "eggs").prefix(30)))
        try handle.close()

        let reopened = try ChangeLog(path: path)
        #expect(revisions(try reopened.readAll()) == ["change 1"])
        try reopened.append([try changeLine(revision: 2, item: "bread")])
        #expect(revisions(try ChangeLog(path: path).readAll()) == ["change 1", "change 2"])
    }

    @Test func aDamagedLineWithConfirmedLinesAfterItIsRefusedNotDropped() throws {
        let path = try temporaryLog()
        let log = try ChangeLog(path: path)
        try log.append([try changeLine(revision: 1, item: "milk"), Array("{garbage".utf8), try changeLine(revision: 3, item: "eggs")])
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
