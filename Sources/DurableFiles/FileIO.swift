// Files read whole and replaced whole, durably: what listd's files and listd-web's device file
// need from the file system.
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
        let directory = directoryName(of: path)
        let temporary = directory + "/" + newTemporaryName()
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
        do throws(Failure) {
            guard try beforeRename() else {
                unlink(temporary)
                return false
            }
        } catch {
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw Failure(step: "rename \(temporary) onto it", errno: code)
        }
        // The rename is durable only once the directory entry is.
        try syncDirectory(directory)
        return true
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
