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
}
