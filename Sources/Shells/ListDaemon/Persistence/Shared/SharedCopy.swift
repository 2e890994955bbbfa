// This machine's copy of the shared lists (`.NAME.listd-shared`, beside the list file): what a
// listd started with `--share` last saw, so that it can start, serve reads and know what its
// list file shows while the server cannot be reached. The database stays the truth: the copy is
// replaced at every start that reaches it, and follows every change listd commits or fetches.
import ErrnoText
import DurableFiles
import Glibc
import ListCore
import ListModel
import ListRPC
import Synchronization

final class SharedCopy: Sendable {
    let path: String

    /// What a copy holds: the shared lists' changes as this machine last saw them, and what its
    /// list file showed.
    struct Contents: Sendable, Equatable {
        /// The server they came from, as listd names it (`listd@kitchen.local:5432/lists`).
        var server: String
        var lists: SharedPersistence.Loaded
    }

    /// A copy that is there and cannot be used.
    struct Unusable: Error, Sendable, Equatable, CustomStringConvertible {
        var path: String
        var why: String
        var description: String { "its copy \(path) \(why)" }
    }

    private struct Handle {
        /// The copy, once written here (`replace`): appended to as the change log is.
        var file: LogEntryFile?
        /// The last change the copy holds.
        var revision: Revision = 0
        /// Why the copy stopped following the changes (it stays a true, older copy).
        var stopped: String?
    }
    private let handle = Mutex(Handle())

    init(path: String) {
        self.path = path
    }

    /// The copy kept for the list file whose lists live at `statePath`.
    static func path(besideListFile statePath: String) -> String {
        StateFiles(besideListFile: statePath).shared
    }

    // MARK: Reading

    /// The copy, or nil when there is none; later changes are appended after it.
    func read() throws(Unusable) -> Contents? {
        var bytes: [UInt8]
        do throws(FileIO.Failure) {
            guard let read = try FileIO.read(path) else { return nil }
            bytes = read
        } catch {
            throw Unusable(path: path, why: "cannot be read (\(error))")
        }
        // A torn last line (a write a power cut left half done: the copy is not flushed) is cut
        // off the file too, so that what is appended next starts a line of its own (appended
        // after the torn bytes, it made a damaged line, and the copy unusable at the next start).
        let whole = bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let torn = whole < bytes.count
        if torn { bytes = Array(bytes[..<whole]) }
        let contents: Contents
        do throws(Unusable.Why) {
            contents = try Self.contents(of: bytes)
        } catch {
            throw Unusable(path: path, why: error.text)
        }
        handle.withLock { handle in
            handle.revision = contents.lists.records.last?.revision ?? 0
            do throws(FileIO.Failure) {
                let file = try LogEntryFile(path: path)
                if torn { try file.cut(to: whole) }
                handle.file = file
                handle.stopped = nil
            } catch {
                handle.file = nil
                handle.stopped = "cannot be opened: \(error)"
            }
        }
        return contents
    }

    /// The lines of a copy, read back (pure). A torn last line (a write a crash cut short) is
    /// left out: the copy is then a little older, which the catch-up makes up for.
    static func contents(of bytes: [UInt8]) throws(Unusable.Why) -> Contents {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first, case .object(let header)? = try? RPCEncoding.value(fromJSON: first),
            header[Self.formatField]?.integerValue == Int64(Self.format),
            let server = header["server"]?.stringValue, let instance = header["instance"]?.stringValue
        else { throw .init(text: "does not begin with the copy's header line") }
        var lists = SharedPersistence.Loaded(instance: instance, records: [])
        for (index, line) in lines.enumerated().dropFirst() {
            switch LogEntry(line: line) {
            case .change(let record)?:
                guard record.revision == (lists.records.last?.revision ?? 0) + 1 else {
                    throw .init(text: "holds change #\(record.revision) on line \(index + 1), which does not follow the one before")
                }
                lists.records.append(record)
            case .fileShows(let digest, let revision)?:
                lists.fileDigest = digest
                lists.fileRevision = revision
            case .order?, .fullChange?, .saveTaken?:
                break
            case nil:
                guard index == lines.count - 1, bytes.last != UInt8(ascii: "\n") else {
                    throw .init(text: "is damaged on line \(index + 1)")
                }
            }
        }
        return Contents(server: server, lists: lists)
    }

    // MARK: Writing

    /// Replaces the copy by `contents`, durably (temp file, fsync, rename), and follows the
    /// changes after it from now on.
    func replace(with contents: Contents) throws(FileIO.Failure) {
        var bytes: [UInt8] = []
        JSONWriter.write(
            .object([
                Self.formatField: .integer(Int64(Self.format)),
                "server": .string(contents.server),
                "instance": .string(contents.lists.instance),
            ]),
            into: &bytes
        )
        bytes.append(UInt8(ascii: "\n"))
        var entries = contents.lists.records.map(LogEntry.change)
        if let digest = contents.lists.fileDigest, let revision = contents.lists.fileRevision {
            entries.append(.fileShows(digest: digest, revision: revision))
        }
        bytes += LogEntryFile.lines(entries)
        try handle.withLock { handle throws(FileIO.Failure) in
            handle = Handle()
            try FileIO.replace(path, with: bytes)
            handle.file = try LogEntryFile(path: path)
            handle.revision = contents.lists.records.last?.revision ?? 0
        }
    }

    /// Appends `records` (committed, in order) and this machine's note of its list file. Changes
    /// the copy already holds are skipped; one that does not follow the copy's last stops the
    /// copy where it is (it stays true, only older). Not flushed: after a power cut the copy may
    /// lack the last changes, and a start reaching the server replaces it anyway.
    ///
    /// - Returns: why the copy stopped following, the first time it does (for the journal).
    func follow(_ records: [ChangeRecord], note: LogEntry? = nil) -> String? {
        handle.withLock { handle -> String? in
            guard let file = handle.file, handle.stopped == nil else { return nil }
            let new = records.filter { $0.revision > handle.revision }
            if let first = new.first, first.revision != handle.revision + 1 {
                handle.stopped = "it holds up to change #\(handle.revision), and #\(first.revision) came next"
                return handle.stopped
            }
            let entries = new.map(LogEntry.change) + (note.map { [$0] } ?? [])
            guard !entries.isEmpty else { return nil }
            do throws(FileIO.Failure) {
                try file.append(entries, flush: false)
            } catch {
                handle.stopped = "\(error)"
                return handle.stopped
            }
            handle.revision = new.last?.revision ?? handle.revision
            return nil
        }
    }

    /// The header's field naming the copy's format, and its version.
    private static let formatField = "listdSharedCopy"
    private static let format = 1
}

extension SharedCopy.Unusable {
    /// What is wrong with a copy's text.
    struct Why: Error, Sendable, Equatable {
        var text: String
    }
}
