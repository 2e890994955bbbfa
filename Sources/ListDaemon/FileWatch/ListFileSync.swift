import ListFileFormat
import ListModel
import NIOCore
import NIOPosix

/// The list file's shell: reads it once the watcher says a save has settled, renders the lists
/// onto the person's text and replaces the file. Blocking work runs on NIO's thread pool, never
/// on an event loop; every decision about the file is the core's.
struct ListFileSync: Sendable {
    let storage: ListFileStorage
    /// Says when a person's save has settled.
    let watcher: FileWatcher

    var path: String { storage.path }

    /// Reads the file now (blocking) and ties it to `known`.
    func readNow(known: ListBook) throws(DaemonError) -> FileContent {
        guard let bytes = try storage.read() else { return .missing }
        return Self.content(bytes, known: known)
    }

    /// Reads the file on the thread pool once no save is in progress; the future completes on
    /// `loop`.
    func read(known: ListBook, on loop: any EventLoop) -> EventLoopFuture<FileContent> {
        let promise = loop.makePromise(of: FileContent.self)
        watcher.whenSettled {
            promise.completeWith(NIOThreadPool.singleton.runIfActive(eventLoop: loop) { try readNow(known: known) })
        }
        return promise.futureResult
    }

    /// The file's bytes read and tied to `known`; `withEdits`: with the save's edits from `known`
    /// too (a read after a save; not at start, where the file is usually listd's own).
    static func content(_ bytes: [UInt8], known: ListBook, withEdits: Bool = true) -> FileContent {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .bytes(bytes, reading: nil, known: known, edits: nil)
        }
        let reading = ListFileReading(ListDocument(parsing: text), known: known)
        return .bytes(bytes, reading: reading, known: known, edits: withEdits ? reading.edits(from: known) : nil)
    }

    /// The file's new text: `book` laid onto the person's `reading`, `rejected` lines marked.
    static func render(_ book: ListBook, onto reading: ListFileReading?, rejected: [Int: String]) -> RenderedFile {
        let text = ListFileWriter.text(for: book, onto: reading, rejected: rejected)
        return RenderedFile(
            bytes: Array(text.utf8),
            reading: ListFileReading(ListDocument(parsing: text), known: book),
            book: book
        )
    }

    /// Replaces the file (blocking) unless it no longer holds `expecting`.
    func replace(_ rendered: RenderedFile, expecting: [UInt8]?) -> FileReplaceOutcome {
        do throws(DaemonError) {
            try storage.write(rendered.bytes, expecting: .some(expecting))
            return .written
        } catch .changedWhileWriting {
            return .changedWhileWriting
        } catch {
            return .failed(error)
        }
    }
}
