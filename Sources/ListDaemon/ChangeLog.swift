import Foundation
import Glibc
import ListModel
import ListRPC
import Synchronization

/// listd's append-only change log, beside the list file: what makes a confirm durable.
///
/// Each pass of the store appends its records in one write and one `fdatasync`, so every edit
/// confirmed by that pass shares the flush (group commit). A change is logged as the very
/// notification line subscribers get, which makes the log the history `subscribe {since}` replays
/// from. The list file and the state snapshot are written later, from the lists in memory; on a
/// start, the snapshot plus the log after it give back every confirmed change.
///
/// Blocking: call from a thread pool, never from an event loop.
final class ChangeLog: Sendable {
    /// What one line of the log says.
    enum Record: Sendable {
        /// A change, with where its line is (to replay it to a subscriber).
        case change(ListChange, ListEventName, Line)
        /// The list file with this digest shows the lists as of `revision` (listd wrote it, or took
        /// in a person's save of it): a start that finds that file knows what it shows.
        case fileShows(digest: String, revision: Revision)
        /// The lists were put in this order (a person moved them in the file).
        case order([ListID], revision: Revision)
    }

    /// Where a line is in the log.
    struct Line: Sendable, Hashable {
        var offset: Int
        var length: Int
    }

    let path: String
    private struct Handle {
        var fd: Int32
        var size: Int
    }
    private let handle: Mutex<Handle>

    /// Opens the log (creating it, 0600) and reads every record in it. A torn last line, left by
    /// a crash in the middle of an append that was never confirmed, is cut off.
    init(path: String) throws(DaemonError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotWriteListFile(path: path, step: "open the change log", errno: errno) }
        handle = Mutex(Handle(fd: fd, size: 0))
    }

    deinit {
        handle.withLock { _ = close($0.fd) }
    }

    /// Every record, in order. A torn last line (an append a crash cut short, never confirmed)
    /// is cut off; a damaged line before others is refused, naming it: confirmed changes follow
    /// it, and listd will not guess.
    func readAll() throws(DaemonError) -> [Record] {
        let bytes = try ListFileStorage(path: path).read(path) ?? []
        var records: [Record] = []
        var start = 0
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = Line(offset: start, length: newline - start)
            guard let record = Self.record(bytes[start..<newline], at: line) else {
                if bytes[(newline + 1)...].contains(UInt8(ascii: "\n")) {
                    throw .damagedLog(path: path, line: records.count + 1)
                }
                break
            }
            records.append(record)
            start = newline + 1
        }
        let good = start
        if good < bytes.count {
            // Never confirmed (the append did not finish), or damaged: cut it off so appends go on
            // from a whole line.
            try handle.withLock { handle throws(DaemonError) in
                if ftruncate(handle.fd, off_t(good)) != 0 {
                    throw .cannotWriteListFile(path: path, step: "cut a torn line off the change log", errno: errno)
                }
            }
        }
        handle.withLock { $0.size = good }
        return records
    }

    /// Appends `lines` (each without its newline) and makes them durable, all in one flush.
    /// - Returns: where each line went.
    @discardableResult
    func append(_ lines: [[UInt8]]) throws(DaemonError) -> [Line] {
        guard !lines.isEmpty else { return [] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count + 1 })
        var placed: [Line] = []
        return try handle.withLock { handle throws(DaemonError) -> [Line] in
            for line in lines {
                placed.append(Line(offset: handle.size + bytes.count, length: line.count))
                bytes += line
                bytes.append(UInt8(ascii: "\n"))
            }
            do throws(DaemonError) {
                try Self.writeAll(bytes, to: handle.fd, path: path)
                guard fdatasync(handle.fd) == 0 else { throw .cannotWriteListFile(path: path, step: "fdatasync the change log", errno: errno) }
            } catch {
                // Nothing of this append counts: cut it off, so later appends follow whole lines.
                _ = ftruncate(handle.fd, off_t(handle.size))
                throw error
            }
            handle.size += bytes.count
            return placed
        }
    }

    /// The bytes of a line written before.
    func read(_ line: Line) -> [UInt8] {
        handle.withLock { handle in
            var bytes = [UInt8](repeating: 0, count: line.length)
            let count = bytes.withUnsafeMutableBytes { pread(handle.fd, $0.baseAddress, line.length, off_t(line.offset)) }
            return count == line.length ? bytes : []
        }
    }

    var size: Int { handle.withLock { $0.size } }

    /// Replaces the log by `lines` (the history worth keeping), atomically: temp file, fsync,
    /// rename, directory fsync. Call only once a snapshot holds everything the dropped lines did.
    /// - Returns: where each line now is.
    func rewrite(keeping lines: [[UInt8]]) throws(DaemonError) -> [Line] {
        var bytes: [UInt8] = []
        var placed: [Line] = []
        for line in lines {
            placed.append(Line(offset: bytes.count, length: line.count))
            bytes += line
            bytes.append(UInt8(ascii: "\n"))
        }
        try ListFileStorage(path: path).write(bytes, to: path)
        let fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotWriteListFile(path: path, step: "open the change log", errno: errno) }
        handle.withLock { handle in
            close(handle.fd)
            handle = Handle(fd: fd, size: bytes.count)
        }
        return placed
    }

    // MARK: Lines

    /// The line for `fileShows`.
    static func fileShowsLine(digest: String, revision: Revision) -> [UInt8] {
        Array(#"{"listd":"fileShows","digest":"\#(digest)","revision":\#(revision)}"#.utf8)
    }

    /// The line for `order`.
    static func orderLine(_ ids: [ListID], revision: Revision) -> [UInt8] {
        Array(#"{"listd":"order","ids":[\#(ids.map(String.init).joined(separator: ","))],"revision":\#(revision)}"#.utf8)
    }

    private struct StoredLine: Decodable {
        var method: String?
        var params: ListChangeParams?
        var listd: String?
        var digest: String?
        var revision: Revision?
        var ids: [ListID]?
    }

    private static func record(_ bytes: ArraySlice<UInt8>, at line: Line) -> Record? {
        guard let stored = try? RPCEncoding.decode(StoredLine.self, fromJSON: bytes) else { return nil }
        if let method = stored.method, let event = ListEventName(rawValue: method), let params = stored.params,
            let kind = ListChange.Kind(event)
        {
            let change = ListChange(kind: kind, revision: params.revision, list: params.list, steps: params.changes, origin: params.origin)
            return .change(change, event, line)
        }
        switch (stored.listd, stored.revision) {
        case ("fileShows", let revision?):
            return stored.digest.map { .fileShows(digest: $0, revision: revision) }
        case ("order", let revision?):
            return stored.ids.map { .order($0, revision: revision) }
        default:
            return nil
        }
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(DaemonError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotWriteListFile(path: path, step: "append to the change log", errno: errno)
            }
            written += count
        }
    }
}

extension ListChange.Kind {
    /// The kind a change notification reports.
    init?(_ event: ListEventName) {
        switch event {
        case .didCreateShoppingList: self = .created
        case .didUpdateShoppingList: self = .updated
        case .didRenameShoppingList: self = .renamed
        case .didDeleteShoppingList: self = .deleted
        case .didRejectFileEdit, .didDenyChange: return nil
        }
    }
}
