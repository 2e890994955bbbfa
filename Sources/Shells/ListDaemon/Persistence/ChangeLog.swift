import DurableFiles
import Glibc
import ListCore
import Synchronization

/// The append-only change log file: lines of JSON (`LogEntry`), appended in one write and one
/// `fdatasync` per call, so every edit of one append shares the flush (group commit). Blocking:
/// callers decide on which thread it runs, one at a time (`LocalPersistence` holds it under its
/// lock, with the history the log follows).
final class ChangeLog {
    let path: String
    /// The file, appended to and replaced as the shared lists' copy is (`LogEntryFile`).
    private let file: LogEntryFile
    /// Bytes of whole lines: a failed append is cut back to this.
    var size: Int { file.size }

    /// Opens the log, creating it (0600, and its directory entry made durable) when missing.
    init(path: String) throws(DaemonError) {
        self.path = path
        do throws(FileIO.Failure) {
            file = try LogEntryFile(path: path)
        } catch {
            throw .changeLogFailed(path: path, step: error.step, errno: error.errno)
        }
    }

    /// Every entry, in order. A torn last line (an append a crash cut short, never confirmed)
    /// is cut off; a damaged line before others is refused, naming it: confirmed changes follow
    /// it, and listd will not guess.
    func readAll() throws(DaemonError) -> [LogEntry] {
        let bytes: [UInt8]
        do throws(FileIO.Failure) {
            bytes = try FileIO.read(path) ?? []
        } catch {
            throw .changeLogFailed(path: path, step: error.step, errno: error.errno)
        }
        // Lines are parsed on every CPU: a start after a crash may read a few hundred thousand.
        var lines: [Range<Int>] = []
        var start = 0
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(start..<newline)
            start = newline + 1
        }
        let parsed = Self.parse(bytes, lines)
        var entries: [LogEntry] = []
        entries.reserveCapacity(parsed.count)
        start = 0
        for (number, entry) in parsed.enumerated() {
            guard let entry else {
                // A bad line with whole lines after it is damage; the last one, a torn append.
                if number < lines.count - 1 {
                    throw .damagedLog(path: path, line: number + 1)
                }
                break
            }
            entries.append(entry)
            start = lines[number].upperBound + 1
        }
        do throws(FileIO.Failure) {
            try file.cut(to: start)
        } catch {
            throw .changeLogFailed(path: path, step: error.step, errno: error.errno)
        }
        return entries
    }

    /// The entry on each of `lines` (nil for a line that holds none), parsed in parallel chunks.
    private static func parse(_ bytes: [UInt8], _ lines: [Range<Int>]) -> [LogEntry?] {
        let chunkSize = 4_096
        let chunks = (lines.count + chunkSize - 1) / chunkSize
        var parsed = [LogEntry?](repeating: nil, count: lines.count)
        parsed.withUnsafeMutableBufferPointer { results in
            // Each chunk writes only its own slots.
            nonisolated(unsafe) let results = results
            inParallel(chunks) { chunk in
                for number in (chunk * chunkSize)..<min(lines.count, (chunk + 1) * chunkSize) {
                    results[number] = LogEntry(line: bytes[lines[number]])
                }
            }
        }
        return parsed
    }

    /// Runs `body` for each of `0..<count` on as many threads as there are CPUs (the caller's
    /// among them), and returns when all are done. Threads of its own, ended with the parse: not
    /// libdispatch's pool, whose monitor would wake listd for as long as it runs.
    private static func inParallel(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let next = ChunkCounter()
        let work: @Sendable () -> Void = {
            while true {
                let chunk = next.value.add(1, ordering: .relaxed).oldValue
                guard chunk < count else { return }
                body(chunk)
            }
        }
        let helpers = min(count, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) - 1
        var threads: [pthread_t] = []
        for _ in 0..<max(helpers, 0) {
            var thread = pthread_t()
            let job = Unmanaged.passRetained(ThreadJob(work)).toOpaque()
            let made = pthread_create(&thread, nil, { job in
                Unmanaged<ThreadJob>.fromOpaque(job!).takeRetainedValue().run()
                return nil
            }, job)
            if made == 0 {
                threads.append(thread)
            } else {
                Unmanaged<ThreadJob>.fromOpaque(job).release()
            }
        }
        work()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// Appends `entries` and makes them durable, all in one flush. On failure nothing of them
    /// counts: the log is cut back, so later appends follow whole lines.
    func append(_ entries: [LogEntry]) throws(DaemonError) {
        do throws(FileIO.Failure) {
            try file.append(entries, flush: true)
        } catch {
            throw .changeLogFailed(path: path, step: error.step, errno: error.errno)
        }
    }

    /// Replaces the log by `entries`, atomically (see `FileIO.replace`). Call only once a
    /// snapshot holds everything the dropped lines did.
    func rewrite(_ entries: [LogEntry]) throws(DaemonError) {
        do throws(FileIO.Failure) {
            try file.replace(with: LogEntryFile.lines(entries))
        } catch {
            throw .changeLogFailed(path: path, step: error.step, errno: error.errno)
        }
    }
}

/// The next chunk to parse, shared by the parsing threads.
private final class ChunkCounter: Sendable {
    let value = Atomic<Int>(0)
}

/// A closure handed to a thread of its own.
private final class ThreadJob: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
