// The watcher tells listd's own rewrites of the list file from a person's saves.
import DurableFiles
import Foundation
import Glibc
import Inotify
import Logging
import NIOPosix
import Synchronization
import Testing

@testable import ListCore
@testable import ListDaemon

@Suite struct FileWatcherTests {
    /// listd swaps its text in by exchanging names with its temp file: neither half of the
    /// exchange (its temp file onto the list file, the list file onto the temp file's name) is a
    /// person's save. The fence is a person's write into the file (`written`), whose events queue
    /// behind the swap's: what came before it is what the swap was reported as — nothing.
    @Test func listdsOwnSwapIsNoChange() async throws {
        let directory = try ScratchDirectories.make("watch")
        let path = directory + "/lists.md"
        try FileIO.replace(path, with: Array("# Groceries\n".utf8))
        let watcher = try FileWatcher(path: path, logger: Logger(label: "test"))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let seen = Mutex<[FileChange]>([])
        try await loop.flatSubmit { watcher.start(on: loop) { changes in seen.withLock { $0 += changes } } }.get()

        #expect(try FileIO.replace(path, with: Array("# Groceries <!-- listd id=1 -->\n".utf8), ifStill: Array("# Groceries\n".utf8)))
        // Written again until it is seen: the watcher watches writes into the new file once it
        // has read the rename (a write before that is seen by no one), and the file stays open
        // (its close would be a `completed` of the person's).
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        let deadline = Date().addingTimeInterval(60)
        while !seen.withLock({ $0.contains(.written) }), Date() < deadline {
            try handle.write(contentsOf: Data("- milk\n".utf8))
            try await Task.sleep(for: .milliseconds(20))
        }
        try handle.close()
        #expect(seen.withLock { $0.first } == .written, "\(seen.withLock { $0 })")
        try await group.shutdownGracefully()
    }

    /// An exchange's two halves read apart (the read fell between them, as on a loaded machine):
    /// the second half, the list file moved to the temp file's name, is still listd's own. The
    /// same event with no file left under the name is a person's `mv` of it, and is reported.
    @Test func anExchangeReadInTwoPiecesIsStillNoChange() throws {
        let directory = try ScratchDirectories.make("watch")
        let path = directory + "/lists.md"
        try FileIO.replace(path, with: Array("# Groceries\n".utf8))
        let watcher = try FileWatcher(path: path, logger: Logger(label: "test"))
        let watch = watcher.watchedDirectory
        func event(_ mask: Int32, _ cookie: UInt32, _ name: String) -> InotifyEvent {
            InotifyEvent(watch: watch, mask: UInt32(mask), cookie: cookie, name: name)
        }
        func read(_ events: [InotifyEvent]) -> [FileChange] {
            watcher.take(events)
            defer { watcher.reportSeen() }
            return watcher.seen
        }
        // Read apart after the second half's first event…
        #expect(read([event(IN_MOVED_FROM, 7, ".listd-1-1.tmp"), event(IN_MOVED_TO, 7, "lists.md"), event(IN_MOVED_FROM, 8, "lists.md")]) == [])
        #expect(read([event(IN_MOVED_TO, 8, ".listd-1-1.tmp")]) == [])
        // …and before it.
        #expect(read([event(IN_MOVED_FROM, 9, ".listd-1-2.tmp"), event(IN_MOVED_TO, 9, "lists.md")]) == [])
        #expect(read([event(IN_MOVED_FROM, 10, "lists.md")]) == [])
        #expect(read([event(IN_MOVED_TO, 10, ".listd-1-2.tmp")]) == [])

        #expect(read([event(IN_MOVED_FROM, 11, ".listd-1-3.tmp"), event(IN_MOVED_TO, 11, "lists.md")]) == [])
        try FileManager.default.moveItem(atPath: path, toPath: directory + "/elsewhere.md")
        #expect(read([event(IN_MOVED_FROM, 12, "lists.md")]) == [.completed])
    }

    /// The file listd's swap replaced is kept beside the list file: a write closed into it may be
    /// an editor's save that raced the swap, so it is a save's end (the read puts it back,
    /// `ListFileStorage.reclaimLateWrite`); listd's own rename of it there is not.
    @Test func aWriteClosedIntoTheReplacedFileIsASavesEnd() throws {
        let directory = try ScratchDirectories.make("watch")
        let path = directory + "/lists.md"
        try FileIO.replace(path, with: Array("# Groceries\n".utf8))
        let watcher = try FileWatcher(path: path, logger: Logger(label: "test"))
        let watch = watcher.watchedDirectory
        func read(_ events: [(Int32, UInt32, String)]) -> [FileChange] {
            watcher.take(events.map { InotifyEvent(watch: watch, mask: UInt32($0.0), cookie: $0.1, name: $0.2) })
            defer { watcher.reportSeen() }
            return watcher.seen
        }
        #expect(read([(IN_MOVED_FROM, 3, ".listd-1-1.tmp"), (IN_MOVED_TO, 3, ".lists.md.listd-replaced")]) == [])
        #expect(read([(IN_CLOSE_WRITE, 0, ".lists.md.listd-replaced")]) == [.completed])
        #expect(read([(IN_CLOSE_WRITE, 0, ".other.md.listd-replaced")]) == [])
    }
}
