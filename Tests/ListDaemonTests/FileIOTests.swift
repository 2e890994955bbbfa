import DurableFiles
import Foundation
import Testing

@testable import ListCore
@testable import ListDaemon

/// `FileIO.replace`, the atomic write behind the list file, the snapshot and the log's rewrite.
@Suite struct FileIOTests {
    /// The list file and the snapshot are replaced from different threads, so one replace can
    /// start while another is between its write and its rename. Each must rename its own bytes
    /// into place: with one temp name for both, the later write truncated the earlier one's temp
    /// file, and the list file was seen holding the snapshot's JSON (found by PowerLossTests).
    @Test func aReplaceDuringAnotherRenamesEachOnesOwnBytes() throws {
        let directory = NSTemporaryDirectory() + "fileio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let listFile = directory + "/lists.md"
        let snapshot = directory + "/.lists.md.listd-state.json"

        let replaced = try FileIO.replace(listFile, with: Array("# Groceries\n".utf8)) { () throws(FileIO.Failure) in
            // The list file's bytes are durable in its temp file; the snapshot is written now.
            try FileIO.replace(snapshot, with: Array("{\"format\":3}".utf8))
            return true
        }

        #expect(replaced)
        #expect(try String(contentsOfFile: listFile, encoding: .utf8) == "# Groceries\n")
        #expect(try String(contentsOfFile: snapshot, encoding: .utf8) == "{\"format\":3}")
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == [
                "lists.md", ".lists.md.listd-state.json",
            ]
        )
    }

    /// Issue 59: listd's rewrite checked that the file still held what it read, then renamed its
    /// text over it: an editor's save landing between the two was lost. Now the check holds at
    /// the instant of the swap. A save in that instant — vim's rename of its buffer over the
    /// file, or a write into it (`cat >`, truncate then write) — is kept, and listd is told
    /// the file changed (it reads the save next).
    @Test(arguments: [SaveInTheGap.renamedOver, .writtenInPlace])
    func aSaveLandingBetweenTheCheckAndTheSwapIsKept(_ save: SaveInTheGap) throws {
        let directory = NSTemporaryDirectory() + "fileio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let listFile = directory + "/lists.md"
        let read = Array("# Groceries\n- [ ] milk\n".utf8)
        let persons = "# Groceries\n- [x] milk\n- [ ] eggs\n"
        try FileIO.replace(listFile, with: read)

        let replaced = try FileIO.replace(listFile, with: Array("# Groceries <!-- listd id=1 -->\n- [ ] milk\n".utf8), ifStill: read) {
            switch save {
            case .renamedOver:
                try? persons.write(toFile: directory + "/lists.md~", atomically: false, encoding: .utf8)
                rename(directory + "/lists.md~", listFile)
            case .writtenInPlace:
                let handle = FileHandle(forWritingAtPath: listFile)
                try? handle?.truncate(atOffset: 0)
                try? handle?.write(contentsOf: Data(persons.utf8))
                try? handle?.close()
            }
        }

        #expect(!replaced)
        #expect(try String(contentsOfFile: listFile, encoding: .utf8) == persons)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["lists.md"])
        // Unchanged, it is replaced; expecting no file, a file made in the gap is kept.
        #expect(try FileIO.replace(listFile, with: Array("mine\n".utf8), ifStill: Array(persons.utf8)))
        #expect(try String(contentsOfFile: listFile, encoding: .utf8) == "mine\n")
        let fresh = directory + "/new.md"
        #expect(!(try FileIO.replace(fresh, with: Array("mine\n".utf8), ifStill: nil) { _ = FileManager.default.createFile(atPath: fresh, contents: Data("theirs\n".utf8)) }))
        #expect(try String(contentsOfFile: fresh, encoding: .utf8) == "theirs\n")
        #expect(try FileIO.replace(directory + "/other.md", with: Array("mine\n".utf8), ifStill: nil))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["lists.md", "new.md", "other.md"])
    }

    enum SaveInTheGap: CaseIterable, Sendable { case renamedOver, writtenInPlace }
}
