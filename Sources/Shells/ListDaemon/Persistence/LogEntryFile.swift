// An append-only file of whole `LogEntry` lines — the change log and the shared lists' copy are
// both one: lines appended in one write (flushed with fdatasync when the caller needs them
// durable), a failed write cut back to the last whole line, the whole file replaced atomically
// and reopened. One writer for both, so they cannot drift apart.
import DurableFiles
import Glibc
import ListCore

final class LogEntryFile {
    let path: String
    private var fd: Int32
    /// Bytes of whole lines: a failed append is cut back to this.
    private(set) var size: Int

    /// Opens `path` for appending, creating it (0600, its directory entry made durable) when
    /// missing.
    init(path: String) throws(FileIO.Failure) {
        self.path = path
        let existed = access(path, F_OK) == 0
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileIO.Failure(step: "open", errno: errno) }
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        self.fd = fd
        if !existed {
            do throws(FileIO.Failure) {
                try FileIO.syncDirectory(directoryName(of: path))
            } catch {
                close(fd)
                throw error
            }
        }
    }

    deinit {
        close(fd)
    }

    /// Appends `entries` in one write; with `flush`, durable when this returns (one fdatasync for
    /// all of them). On failure nothing of them counts: the file is cut back, so later appends
    /// follow whole lines.
    func append(_ entries: [LogEntry], flush: Bool) throws(FileIO.Failure) {
        guard !entries.isEmpty else { return }
        let bytes = Self.lines(entries)
        do throws(FileIO.Failure) {
            try FileIO.writeAll(bytes, to: fd)
            if flush, case .failure(let error) = retryingEINTR({ fdatasync(fd) }) {
                throw FileIO.Failure(step: "fdatasync", errno: error.code)
            }
        } catch {
            _ = ftruncate(fd, off_t(size))
            throw error
        }
        size += bytes.count
    }

    /// Cuts the file to its first `size` bytes (a torn last line a crash left); appends follow.
    func cut(to size: Int) throws(FileIO.Failure) {
        var info = stat()
        if fstat(fd, &info) == 0, Int(info.st_size) > size, ftruncate(fd, off_t(size)) != 0 {
            throw FileIO.Failure(step: "cut a torn line off", errno: errno)
        }
        self.size = size
    }

    /// Replaces the whole file by `bytes`, atomically (see `FileIO.replace`), and appends to the
    /// new one from now on.
    func replace(with bytes: [UInt8]) throws(FileIO.Failure) {
        try FileIO.replace(path, with: bytes)
        let reopened = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard reopened >= 0 else { throw FileIO.Failure(step: "open", errno: errno) }
        close(fd)
        fd = reopened
        size = bytes.count
    }

    /// The entries as the file's text: a line each.
    static func lines(_ entries: [LogEntry]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries {
            bytes += entry.line
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
