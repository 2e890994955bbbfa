// Files read whole and replaced whole, durably: what listd's files and listd-web's device file
// need from the file system.
import CLinux
import ErrnoText
import Glibc
import Synchronization

/// The blocking file operations listd's and listd-web's files need, each retrying on EINTR and failing with the
/// step and errno that went wrong (callers name the file in their `DaemonError`).
public enum FileIO {
    /// A step of a file operation that failed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var step: String
        public var errno: Int32

        public init(step: String, errno: Int32) {
            self.step = step
            self.errno = errno
        }

        public var description: String { "\(step): \(errorText(errno))" }
    }

    /// The file's bytes, or nil when it does not exist.
    public static func read(_ path: String) throws(Failure) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw Failure(step: "open", errno: errno)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var info = stat()
        if fstat(fd, &info) == 0 { bytes.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            switch count {
            case .success(0): return bytes
            case .success(let count): bytes += chunk[..<count]
            case .failure(let error): throw Failure(step: "read", errno: error.code)
            }
        }
    }

    /// Writes all of `bytes` to `fd` (short writes and EINTR are retried).
    public static func writeAll(_ bytes: [UInt8], to fd: Int32) throws(Failure) {
        var failure: Int32?
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                switch retryingEINTR({ Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written) }) {
                case .success(let count): written += count
                case .failure(let error):
                    failure = error.code
                    return
                }
            }
        }
        if let failure { throw Failure(step: "write", errno: failure) }
    }

    /// Makes the entries of `directory` durable: a file created or renamed there survives a power
    /// loss only once this returns.
    public static func syncDirectory(_ directory: String) throws(Failure) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(step: "open the directory \(directory)", errno: errno) }
        defer { close(fd) }
        if case .failure(let error) = retryingEINTR({ fsync(fd) }) {
            throw Failure(step: "fsync the directory \(directory)", errno: error.code)
        }
    }

    /// Replaces `path` so that no reader ever sees it half-written and a crash at any moment
    /// leaves the old or the new content: temp file in the same directory, fsync, rename over,
    /// fsync the directory. An existing file keeps its permissions; a new one is 0600.
    ///
    /// - Parameter beforeRename: runs once the new content is durable in the temp file, just
    ///   before it replaces `path`; returning false (or throwing) leaves `path` as it was.
    /// - Returns: false when `beforeRename` said not to replace.
    @discardableResult
    public static func replace(
        _ path: String,
        with bytes: [UInt8],
        beforeRename: () throws(Failure) -> Bool = { true }
    ) throws(Failure) -> Bool {
        let temporary = try writeTemporary(bytes, beside: path)
        do throws(Failure) {
            guard try beforeRename() else {
                unlink(temporary)
                return false
            }
        } catch {
            unlink(temporary)
            throw error
        }
        try rename(temporary, over: path)
        return true
    }

    /// Replaces `path` as `replace` does, but only if it still holds `expected` (nil: only while
    /// there is no file) at the instant the new file takes its place, not merely when it was
    /// last read. The swap is renameat2's exchange, and what it swapped out is looked at: an
    /// editor's save that landed since the check (renamed over the file, or written into it) is
    /// swapped back, and false returned, so listd never writes over a save it has not read. On a
    /// file system without the exchange (some FUSE ones), the check is made just before a plain
    /// rename, and a save landing in that instant is lost, as before.
    ///
    /// An editor that opened the file before the swap and writes into it after the look (open,
    /// then truncate and write) writes into the file swapped out: with `keepingReplacedAt`, that
    /// file is not removed but renamed there, where such a late write can be found and put back
    /// (`ListFileStorage.reclaimLateWrite`); without it, it is removed and such a write is lost.
    ///
    /// - Parameter beforeSwap: runs between the check and the swap (tests race a save there).
    /// - Returns: false when the file no longer held `expected`; nothing of it was changed.
    public static func replace(
        _ path: String,
        with bytes: [UInt8],
        ifStill expected: [UInt8]?,
        keepingReplacedAt kept: String? = nil,
        beforeSwap: () -> Void = {}
    ) throws(Failure) -> Bool {
        let temporary = try writeTemporary(bytes, beside: path)
        let holdsExpected: Bool
        do throws(Failure) {
            holdsExpected = try read(path) == expected
        } catch {
            unlink(temporary)
            throw error
        }
        guard holdsExpected else {
            unlink(temporary)
            return false
        }
        beforeSwap()
        guard let swapped = try swap(temporary, into: path, expecting: expected, ours: bytes, keeping: kept) else {
            try rename(temporary, over: path)
            return true
        }
        try syncDirectory(directoryName(of: path))
        return swapped
    }

    /// Puts `temporary` at `path` in one step, when the file system can: when `expected` is nil,
    /// only while `path` does not exist; else by an exchange, then a look at what it swapped out,
    /// which goes back unless it is `expected`. nil: the file system cannot, nothing was done and
    /// `temporary` is still there; otherwise it is gone.
    private static func swap(
        _ temporary: String,
        into path: String,
        expecting expected: [UInt8]?,
        ours: [UInt8],
        keeping kept: String?
    ) throws(Failure) -> Bool? {
        func renameat2(_ flags: Int32) -> Int32 {
            listd_renameat2(AT_FDCWD, temporary, AT_FDCWD, path, UInt32(flags)) == 0 ? 0 : errno
        }
        // Not there (an old kernel), or refused by the file system or a seccomp filter.
        let unsupported: Set<Int32> = [EINVAL, ENOSYS, EPERM, EOPNOTSUPP]
        let code = renameat2(expected == nil ? LISTD_RENAME_NOREPLACE : LISTD_RENAME_EXCHANGE)
        switch code {
        case 0: if expected == nil { return true }
        case _ where unsupported.contains(code): return nil
        case EEXIST where expected == nil, ENOENT where expected != nil:
            // Made, or removed, since the check.
            unlink(temporary)
            return false
        default:
            unlink(temporary)
            throw Failure(step: "rename \(temporary) onto it", errno: code)
        }
        if (try? read(temporary)) == expected {
            if kept == nil || Glibc.rename(temporary, kept!) != 0 { unlink(temporary) }
            return true
        }
        // A save landed between the check and the exchange: it goes back. Should another have
        // landed on listd's bytes meanwhile (what comes back is neither listd's text nor
        // unreadable), that later one goes back instead (it was written last, as it would have
        // been without listd).
        for _ in 0..<2 {
            let code = renameat2(LISTD_RENAME_EXCHANGE)
            guard code == 0 else {
                // The person's save is in the temp file: left there, and named.
                throw Failure(step: "put back a save made while listd wrote, now in \(temporary)", errno: code)
            }
            guard let back = try? read(temporary), back != ours else { break }
        }
        unlink(temporary)
        return false
    }

    /// Exchanges the two names in one step (renameat2's exchange): whether it was done.
    public static func exchange(_ first: String, _ second: String) -> Bool {
        listd_renameat2(AT_FDCWD, first, AT_FDCWD, second, UInt32(LISTD_RENAME_EXCHANGE)) == 0
    }

    /// `bytes` durable in a new temp file beside `path` (its mode, or 0600 for a new file).
    private static func writeTemporary(_ bytes: [UInt8], beside path: String) throws(Failure) -> String {
        let temporary = directoryName(of: path) + "/" + newTemporaryName()
        var mode: mode_t = 0o600
        var existing = stat()
        if stat(path, &existing) == 0 { mode = existing.st_mode & 0o7777 }

        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(step: "create \(temporary)", errno: errno) }
        do throws(Failure) {
            defer { close(fd) }
            try writeAll(bytes, to: fd)
            if fchmod(fd, mode) != 0 { throw Failure(step: "chmod \(temporary)", errno: errno) }
            if case .failure(let error) = retryingEINTR({ fsync(fd) }) {
                throw Failure(step: "fsync \(temporary)", errno: error.code)
            }
        } catch {
            unlink(temporary)
            throw error
        }
        return temporary
    }

    /// Renames `temporary` over `path` and makes the rename durable.
    private static func rename(_ temporary: String, over path: String) throws(Failure) {
        if Glibc.rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw Failure(step: "rename \(temporary) onto it", errno: code)
        }
        // The rename is durable only once the directory entry is.
        try syncDirectory(directoryName(of: path))
    }

    /// A name to write a file under before renaming it into place, `.listd-PID-N.tmp`: one of its
    /// own for each call, as the list file and the snapshot may be replaced at the same moment
    /// from two threads (with one shared name each could rename the other's bytes into place).
    public static func newTemporaryName() -> String {
        ".listd-\(getpid())-\(temporaryFiles.add(1, ordering: .relaxed).newValue).tmp"
    }

    private static let temporaryFiles = Atomic<Int>(0)

    /// Whether `name` is a temp file of some listd (this one or an earlier one).
    public static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".listd-") && name.hasSuffix(".tmp")
    }

    /// The pid of the listd that named a temp file (`.listd-PID-N.tmp`, or `.listd-PID.tmp` as
    /// listd named them before), or nil for another name.
    public static func writer(ofTemporaryName name: String) -> pid_t? {
        guard isTemporaryName(name) else { return nil }
        return pid_t(name.dropFirst(".listd-".count).dropLast(".tmp".count).prefix { $0 != "-" })
    }
}
