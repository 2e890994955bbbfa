import Foundation
import Glibc
import Inotify
import Testing

@Suite struct InotifyEventParserTests {
    private func record(watch: Int32, mask: UInt32, cookie: UInt32, name: String, padTo length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in [UInt32(bitPattern: watch), mask, cookie, UInt32(length)] {
            bytes += withUnsafeBytes(of: value.littleEndian, Array.init)
        }
        var nameBytes = Array(name.utf8)
        nameBytes += [UInt8](repeating: 0, count: length - nameBytes.count)
        return bytes + nameBytes
    }

    @Test func parsesConsecutiveRecordsWithPaddedNames() {
        let bytes =
            record(watch: 1, mask: 0x100, cookie: 0, name: "lists.md", padTo: 16)
            + record(watch: 1, mask: 0x80, cookie: 7, name: "4913", padTo: 16)
            + record(watch: -1, mask: 0x4000, cookie: 0, name: "", padTo: 0)
        #expect(
            InotifyEvent.parse(bytes) == [
                InotifyEvent(watch: 1, mask: 0x100, cookie: 0, name: "lists.md"),
                InotifyEvent(watch: 1, mask: 0x80, cookie: 7, name: "4913"),
                InotifyEvent(watch: -1, mask: 0x4000, cookie: 0, name: ""),
            ]
        )
    }

    @Test func aTruncatedRecordIsNotReadPastTheBuffer() {
        let bytes = record(watch: 1, mask: 2, cookie: 0, name: "a", padTo: 16)
        #expect(InotifyEvent.parse(bytes.dropLast(4)).isEmpty)
        #expect(InotifyEvent.parse(bytes.prefix(10)).isEmpty)
    }
}

@Suite struct InotifyTests {
    /// Events are queued by the time the system call that caused them returns: the descriptor is
    /// readable right after, with no waiting (what listd relies on to take a save in before an
    /// edit sent after it: epoll reports the two to the same turn of its loop, or the save
    /// first), and no longer once they are read; what a read returns parses.
    @Test func aRenameIsQueuedAsSoonAsItReturnsAndParses() throws {
        /// Readable now, as epoll would report it (a poll that does not wait).
        func readable(_ descriptor: Int32) -> Bool {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
        }
        let directory = NSTemporaryDirectory() + "inotify-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Not while the overflow test has lowered the system's queue limit (see IntegrationTests).
        let lockFD = open("/tmp/listd-tests-inotify.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        flock(lockFD, LOCK_SH)
        let inotify = try Inotify()
        flock(lockFD, LOCK_UN)
        close(lockFD)
        try inotify.addWatch(path: directory, mask: UInt32(IN_MOVED_TO | IN_CLOSE_WRITE))
        #expect(!readable(inotify.descriptor), "nothing happened yet")
        // Plain system calls, so the close surely happens before the rename.
        let fd = open(directory + "/tmp", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(write(fd, "x", 1) == 1)
        close(fd)
        rename(directory + "/tmp", directory + "/lists.md")
        #expect(readable(inotify.descriptor), "queued before rename returned")
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { read(inotify.descriptor, $0.baseAddress, $0.count) }
        let seen = InotifyEvent.parse(buffer[..<max(count, 0)])
        #expect(seen.contains { $0.name == "lists.md" && $0.mask & UInt32(IN_MOVED_TO) != 0 })
        #expect(seen.contains { $0.name == "tmp" && $0.mask & UInt32(IN_CLOSE_WRITE) != 0 })
        #expect(!readable(inotify.descriptor), "each event is read once")
    }
}
