import DurableFiles
import Foundation
import Glibc
import ListCore
import NIOConcurrencyHelpers

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
    /// What the last swap put where (`reclaimLateWrite`); shared by every copy of the storage.
    private let lastSwap = NIOLockedValueBox<LastSwap?>(nil)

    /// listd's text swapped into place, and the person's it swapped out (kept under
    /// `replacedPath`) as listd had read it.
    private struct LastSwap {
        var replaced: String
        var swappedOut: [UInt8]
        var ours: [UInt8]
    }

    /// Where the file a swap replaced is kept (hidden, beside it): `.lists.md.listd-replaced`.
    static func replacedName(of name: String) -> String { ".\(name).listd-replaced" }

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
        // A late write into the file the last swap replaced goes back first: this swap would
        // replace that file in turn (the check below then finds the person's save in place).
        reclaimLateWrite()
        let destination = destination()
        let kept = directoryName(of: destination) + "/" + Self.replacedName(of: String(destination.split(separator: "/").last ?? ""))
        let replaced: Bool
        do throws(FileIO.Failure) {
            if case .some(let expected) = expected {
                replaced = try FileIO.replace(destination, with: bytes, ifStill: expected, keepingReplacedAt: kept)
                if replaced, let expected {
                    lastSwap.withLockedValue { $0 = LastSwap(replaced: kept, swappedOut: expected, ours: bytes) }
                }
            } else {
                replaced = try FileIO.replace(destination, with: bytes)
            }
        } catch {
            throw .cannotWriteListFile(path: destination, step: error.step, errno: error.errno)
        }
        // A write into the swapped-out file that landed after the swap's look: the person's save
        // goes back in place, and listd's text did not stay.
        if !replaced || reclaimLateWrite() { throw .changedWhileWriting(path: path) }
    }

    /// An editor that opened the list file before listd's last swap and wrote into it after
    /// (open, then truncate and write: an in-place save racing listd's rewrite) wrote into the
    /// file swapped out, now kept beside it. When that file no longer holds what listd swapped
    /// out, and the list file still holds listd's text, the two are exchanged back: the person's
    /// save is in place, to be read as any save (the watcher sees the exchange). Returns whether
    /// it did. Called before every read of the file and after every write.
    @discardableResult
    func reclaimLateWrite() -> Bool {
        lastSwap.withLockedValue { last in
            guard let swap = last, let kept = try? FileIO.read(swap.replaced), kept != swap.swappedOut else { return false }
            guard (try? FileIO.read(destination())) == swap.ours, FileIO.exchange(swap.replaced, destination()) else {
                last = nil  // the file changed since (a save of its own): that one is read instead
                return false
            }
            // The kept file now holds listd's text: a write into it later is no one's save.
            last = LastSwap(replaced: swap.replaced, swappedOut: swap.ours, ours: kept)
            return true
        }
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
