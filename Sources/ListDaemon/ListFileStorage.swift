import Foundation
import Glibc
import ListModel
import ListRPC

/// listd's files: the person's list file, and beside it a snapshot of what the Markdown does not
/// show (revisions, edit times, the next id, the lists as of the snapshot) and the change log
/// since (see `ChangeLog`). Blocking: call from a thread pool, never from an event loop.
///
/// Keeping the numbers out of the Markdown means a person's save that only changes items is never
/// rewritten by listd, so an editor that still has the file open is not told it changed.
struct ListFileStorage: Sendable {
    /// The list file; a symlink is followed to its target, so the link stays a link.
    let path: String
    let statePath: String
    /// The change log (see `ChangeLog`).
    let logPath: String

    init(path: String) {
        var resolved = path
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, let real = realpath(path, nil) {
            resolved = String(cString: real)
            free(real)
        }
        self.path = resolved
        let directory = directoryName(of: resolved)
        let name = resolved.split(separator: "/").last.map(String.init) ?? "lists.md"
        self.statePath = directory + "/." + name + ".listd-state.json"
        self.logPath = directory + "/." + name + ".listd-log"
    }

    /// The file's bytes, or nil when it does not exist.
    func read(_ path: String) throws(DaemonError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .cannotReadListFile(path: path, errno: errno)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            switch count {
            case .success(0): return bytes
            case .success(let count): bytes += chunk[..<count]
            case .failure(let error): throw .cannotReadListFile(path: path, errno: error.code)
            }
        }
    }

    /// Replaces `path` so that no reader ever sees it half-written and a crash at any moment
    /// leaves the old or the new content: temp file in the same directory, fsync, rename over,
    /// fsync the directory. An existing file keeps its permissions; a new one is 0600.
    ///
    /// - Parameter expected: when given, the content `path` must still have (nil: must not exist)
    ///   just before the rename; otherwise nothing is replaced and `changedWhileWriting` is thrown,
    ///   so a person's save that lands while listd writes is never overwritten.
    /// - Parameter beforeRename: runs once the new content is durable in the temp file, just
    ///   before it replaces `path`; when it throws, nothing is replaced.
    func write(
        _ bytes: [UInt8],
        to path: String,
        expecting expected: [UInt8]?? = .none,
        beforeRename: () throws(DaemonError) -> Void = {}
    ) throws(DaemonError) {
        let directory = directoryName(of: path)
        let temporary = directory + "/" + Self.temporaryName
        var mode: mode_t = 0o600
        var existing = stat()
        if stat(path, &existing) == 0 { mode = existing.st_mode & 0o7777 }

        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .cannotWriteListFile(path: path, step: "create \(temporary)", errno: errno) }
        var failure: (String, Int32)?
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                switch retryingEINTR({ Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written) }) {
                case .success(let count): written += count
                case .failure(let error):
                    failure = ("write", error.code)
                    return
                }
            }
        }
        if failure == nil, fchmod(fd, mode) != 0 { failure = ("chmod", errno) }
        if failure == nil, fsync(fd) != 0 { failure = ("fsync", errno) }
        close(fd)
        if failure == nil {
            do throws(DaemonError) {
                try beforeRename()
            } catch {
                unlink(temporary)
                throw error
            }
        }
        if failure == nil, case .some(let expected) = expected {
            let current: [UInt8]?
            do throws(DaemonError) {
                current = try read(path)
            } catch {
                unlink(temporary)
                throw error
            }
            if current != expected {
                unlink(temporary)
                throw .changedWhileWriting(path: path)
            }
        }
        if failure == nil, rename(temporary, path) != 0 { failure = ("rename", errno) }
        if let failure {
            unlink(temporary)
            throw .cannotWriteListFile(path: path, step: failure.0, errno: failure.1)
        }
        // The rename is durable only once the directory entry is.
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw .cannotWriteListFile(path: path, step: "open directory", errno: errno) }
        defer { close(directoryFD) }
        if fsync(directoryFD) != 0 { throw .cannotWriteListFile(path: path, step: "fsync directory", errno: errno) }
    }

    /// The name listd writes a file under before renaming it into place.
    static let temporaryName = ".listd-" + String(getpid()) + ".tmp"

    /// Removes temp files listd processes that are gone left beside the list file (a listd killed
    /// while writing); one of a live process (another listd on another file here) is left alone.
    /// Returns the names removed.
    @discardableResult
    func removeAbandonedTemporaryFiles() -> [String] {
        let directory = directoryName(of: path)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for name in entries where Self.isTemporaryName(name) {
            let digits = name.dropFirst(".listd-".count).dropLast(".tmp".count)
            guard let pid = pid_t(digits), pid != getpid() else { continue }
            // ESRCH: no such process. Anything else (alive, or not ours to signal) stays.
            if kill(pid, 0) != 0, errno == ESRCH, unlink(directory + "/" + name) == 0 { removed.append(name) }
        }
        return removed
    }

    /// Whether `name` is a temp file of some listd (this one or an earlier one).
    static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".listd-") && name.hasSuffix(".tmp")
    }

    /// The saved state; nil when there is none. A state file that cannot be read is reported and
    /// ignored: the list file is the person's truth, and the state is rebuilt from it.
    func readState() throws(DaemonError) -> Result<PersistedState, DaemonError>? {
        guard let bytes = try read(statePath) else { return nil }
        do {
            return .success(try RPCEncoding.decode(PersistedState.self, fromJSON: bytes))
        } catch {
            return .failure(.unreadableState(path: statePath, detail: "\(error)"))
        }
    }

    func writeState(_ state: PersistedState) throws(DaemonError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(state)
        } catch {
            throw .unreadableState(path: statePath, detail: "\(error)")
        }
        try write(Array(data), to: statePath)
    }
}

/// The snapshot listd keeps beside the list file; the change log holds what came after it.
struct PersistedState: Codable, Sendable {
    var format = 2
    /// Names this state: a client that resumes from a revision can tell it is the same state
    /// (and not, say, another list file's). Absent in format 1; given on the next start.
    var instance: String?
    var revision: Revision
    var nextID: ListID
    /// Digest of the list file as listd last read or wrote it: a different file at start-up was
    /// edited while listd was not running (or listd stopped between its two writes), and is taken
    /// in as a person's edit.
    var listFileDigest: String
    var lists: [ShoppingList]
    /// The lists as the list file shows them, when that is not `lists`: while delegates vet a
    /// person's save, confirmed client edits are kept here only, and the file is left alone. A
    /// restart then merges the file's changes (from these lists) onto `lists`, losing neither.
    var listFileLists: [ShoppingList]?

    init(book: ListBook, listFile: [UInt8], shown: ListBook, instance: String) {
        self.instance = instance
        revision = book.revision
        nextID = book.nextID
        listFileDigest = digest(listFile)
        lists = book.lists
        listFileLists = shown.lists == book.lists ? nil : shown.lists
    }

    var book: ListBook { ListBook(lists: lists, revision: revision, nextID: nextID) }

    /// What the list file showed when this was saved.
    var shownBook: ListBook { ListBook(lists: listFileLists ?? lists, revision: revision, nextID: nextID) }
}

/// 64-bit FNV-1a of `bytes`, in hex: tells two files apart, not a security measure.
func digest(_ bytes: [UInt8]) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return "fnv1a64:" + String(hash, radix: 16) + ":\(bytes.count)"
}

/// Offset of the first byte that is not part of valid UTF-8, for error messages.
func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar): offset += scalar.count
        case .emptyInput, .error: return offset
        }
    }
}
