import DurableFiles
import Foundation
import Glibc
import ListCore

/// The person's list file on disk: read it, replace it without ever overwriting a save listd has
/// not seen, and clear away temp files a killed listd left. Blocking: callers pick the thread.
struct ListFileStorage: Sendable {
    /// The list file as named: what listd reads and watches. A symlink stays a symlink: each write
    /// goes to where it points at that moment (`destination`), even when its target does not exist
    /// yet; a save that replaces the link with a file (`sed -i`) is taken in, and that file is kept
    /// from then on.
    let path: String
    /// Where listd's own files (change log, snapshot, lock) live: beside the file the name led to
    /// at start, as they always have.
    let statePath: String

    init(path: String) {
        self.path = path
        var resolved = path
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, let real = realpath(path, nil) {
            resolved = String(cString: real)
            free(real)
        }
        self.statePath = resolved
    }

    /// Where a write of the file goes now: the end of the chain of links `path` starts (a target
    /// that does not exist yet included), or `path` itself when it is a file or missing.
    func destination() -> String {
        var current = path
        for _ in 0..<40 {  // the kernel's own limit on links followed (ELOOP)
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return current }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : directoryName(of: current) + "/" + target
        }
        return current
    }

    /// The file's bytes, or nil when it does not exist.
    func read() throws(DaemonError) -> [UInt8]? {
        do throws(FileIO.Failure) {
            return try FileIO.read(path)
        } catch {
            throw .cannotReadListFile(path: path, errno: error.errno)
        }
    }

    /// Replaces the file atomically (see `FileIO.replace`).
    ///
    /// - Parameter expected: when given, the content the file must still have (nil: must not
    ///   exist) when the new file takes its place; otherwise nothing is replaced and
    ///   `changedWhileWriting` is thrown, so a person's save that lands while listd writes, even
    ///   in the instant of the swap, is never overwritten (`FileIO.replace(_:with:ifStill:)`).
    func write(_ bytes: [UInt8], expecting expected: [UInt8]?? = .none) throws(DaemonError) {
        let destination = destination()
        let replaced: Bool
        do throws(FileIO.Failure) {
            if case .some(let expected) = expected {
                replaced = try FileIO.replace(destination, with: bytes, ifStill: expected)
            } else {
                replaced = try FileIO.replace(destination, with: bytes)
            }
        } catch {
            throw .cannotWriteListFile(path: destination, step: error.step, errno: error.errno)
        }
        if !replaced { throw .changedWhileWriting(path: path) }
    }

    /// Removes temp files listd processes that are gone left beside the list file (a listd killed
    /// while writing); one of a live process (another listd on another file here) is left alone.
    /// Returns the names removed.
    @discardableResult
    func removeAbandonedTemporaryFiles() -> [String] {
        var removed: [String] = []
        for directory in Set([directoryName(of: path), directoryName(of: destination())]) {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in entries {
                guard let pid = FileIO.writer(ofTemporaryName: name), pid != getpid() else { continue }
                // ESRCH: no such process. Anything else (alive, or not ours to signal) stays.
                if kill(pid, 0) != 0, errno == ESRCH, unlink(directory + "/" + name) == 0 { removed.append(name) }
            }
        }
        return removed
    }
}
