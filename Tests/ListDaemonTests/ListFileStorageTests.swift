import Foundation
import Testing

@testable import ListCore
@testable import ListDaemon

@Suite struct ListFileStorageTests {
    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "storage-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aWriteReplacesTheFileAndLeavesNoTemporaryFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = ListFileStorage(path: directory + "/lists.md")
        try storage.write(Array("one\n".utf8))
        try storage.write(Array("two\n".utf8), expecting: .some(Array("one\n".utf8)))
        #expect(try storage.read() == Array("two\n".utf8))
        // The file the swap replaced is kept, hidden, for a write that raced it (below).
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == ["lists.md", ".lists.md.listd-replaced"])
        let mode = try FileManager.default.attributesOfItem(atPath: storage.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// A listd SIGKILLed mid-write leaves its temp file; the next start removes it, but never one
    /// of a process that is still running (another listd writing another file here).
    @Test func tempFilesOfGoneProcessesAreRemovedAndLiveOnesKept() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let live = Process()
        live.executableURL = URL(fileURLWithPath: "/bin/sleep")
        live.arguments = ["30"]
        try live.run()
        defer { live.terminate() }
        // Named as listd names them now (`.listd-PID-N.tmp`), and as it did before (`.listd-PID.tmp`).
        for pid in [gone.processIdentifier, live.processIdentifier, getpid()] {
            for name in [".listd-\(pid)-7.tmp", ".listd-\(pid).tmp"] {
                #expect(
                    FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("half a write".utf8))
                )
            }
        }
        #expect(FileManager.default.createFile(atPath: directory + "/.listd-notapid.tmp", contents: nil))
        let storage = ListFileStorage(path: directory + "/lists.md")
        #expect(
            Set(storage.removeAbandonedTemporaryFiles())
                == [".listd-\(gone.processIdentifier)-7.tmp", ".listd-\(gone.processIdentifier).tmp"]
        )
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: directory))
                == [
                    ".listd-\(live.processIdentifier)-7.tmp", ".listd-\(live.processIdentifier).tmp",
                    ".listd-\(getpid())-7.tmp", ".listd-\(getpid()).tmp", ".listd-notapid.tmp",
                ]
        )
    }

    /// An in-place save racing listd's rewrite, in `directory`: an editor opens the file, listd
    /// swaps its text in ("listd's version"), and the editor then truncates and writes `save`
    /// through what it opened (`beforeTheWrite` looks in between). Returns the storage.
    private func racedSave(_ save: String, in directory: String, beforeTheWrite: (ListFileStorage) -> Void = { _ in }) throws -> ListFileStorage {
        let storage = ListFileStorage(path: directory + "/lists.md")
        try storage.write(Array("what listd read\n".utf8))
        let editor = open(storage.path, O_RDWR)
        #expect(editor >= 0)
        defer { close(editor) }
        try storage.write(Array("listd's version\n".utf8), expecting: .some(Array("what listd read\n".utf8)))
        beforeTheWrite(storage)
        let bytes = Array(save.utf8)
        #expect(ftruncate(editor, 0) == 0 && pwrite(editor, bytes, bytes.count, 0) == bytes.count)
        return storage
    }

    /// The save lands in the file swapped out. It is put back in place, to be read as a save;
    /// listd's text goes. Once back, nothing further is done (a second call finds nothing).
    @Test func aSaveWrittenIntoTheSwappedOutFileIsPutBack() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try racedSave("the person's save\n", in: directory) { storage in
            #expect(!storage.reclaimLateWrite(), "nothing written into it yet")
        }
        #expect(try storage.read() == Array("listd's version\n".utf8))
        #expect(storage.reclaimLateWrite())
        #expect(try storage.read() == Array("the person's save\n".utf8))
        #expect(!storage.reclaimLateWrite())
        #expect(try storage.read() == Array("the person's save\n".utf8))
    }

    /// A late write not yet read when listd writes again: that write's swap would replace the
    /// kept file, so the save goes back first, and the write finds it in place (not replaced).
    @Test func aLateWriteIsPutBackBeforeTheNextSwap() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try racedSave("the person's save\n", in: directory)
        #expect(throws: DaemonError.self) {
            try storage.write(Array("listd's next version\n".utf8), expecting: .some(Array("listd's version\n".utf8)))
        }
        #expect(try storage.read() == Array("the person's save\n".utf8))
    }

    /// The same race, when the list file has changed again since listd's swap (another save):
    /// that one stays, and is what is read.
    @Test func aLateWriteNeverReplacesALaterSave() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try racedSave("a late save\n", in: directory)
        try "a later save\n".write(toFile: storage.path, atomically: true, encoding: .utf8)
        #expect(!storage.reclaimLateWrite())
        #expect(try storage.read() == Array("a later save\n".utf8))
    }

    @Test func aFileChangedSinceItWasReadIsNotReplaced() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = ListFileStorage(path: directory + "/lists.md")
        try "the person's save\n".write(toFile: storage.path, atomically: true, encoding: .utf8)
        #expect {
            try storage.write(Array("listd's version\n".utf8), expecting: .some(Array("what listd read\n".utf8)))
        } throws: { error in
            guard case DaemonError.changedWhileWriting = error else { return false }
            return true
        }
        #expect(try String(contentsOfFile: storage.path, encoding: .utf8) == "the person's save\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["lists.md"])
        // Expecting no file, but there is one: not replaced either.
        #expect(throws: DaemonError.self) { try storage.write([], expecting: .some(nil)) }
    }

    /// The name is what is read and watched; writes go to where the link points; listd's own
    /// files stay beside the target, as before links were kept as links.
    @Test func aSymlinkIsWrittenThroughAndItsStateKeptBesideItsTarget() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "x".write(toFile: directory + "/target.md", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/lists.md",
            withDestinationPath: directory + "/target.md"
        )
        let storage = ListFileStorage(path: directory + "/lists.md")
        #expect(storage.path.hasSuffix("/lists.md"))
        #expect(storage.destination().hasSuffix("/target.md"))
        try storage.write(Array("y".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/lists.md").hasSuffix("/target.md"))
        #expect(try String(contentsOfFile: directory + "/target.md", encoding: .utf8) == "y")
        #expect(
            try LocalPersistence(listFilePath: storage.statePath, historyLimit: 1).statePath.hasSuffix(
                "/.target.md.listd-state.json"
            )
        )
    }
}
