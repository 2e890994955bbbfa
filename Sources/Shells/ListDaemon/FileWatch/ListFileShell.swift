import ListCore
import ListFileFormat
import ListModel
import NIOCore
import NIOPosix

/// The list file's shell: reads it, renders the lists onto the person's text and replaces the
/// file, when the core says. Blocking work runs on NIO's thread pool, never
/// on an event loop; every decision about the file is the core's.
struct ListFileShell: Sendable {
    let storage: ListFileStorage

    var path: String { storage.path }

    /// Reads the file now (blocking) and checks it against `request`.
    private func readNow(_ request: FileReadRequest) throws(DaemonError) -> FileContent {
        // A save written into the file listd's last swap replaced is put back first, and read.
        storage.reclaimLateWrite()
        guard let bytes = try storage.read() else { return .missing }
        return ListFileText.content(bytes, request)
    }

    /// Reads the file on the thread pool; the future completes on `loop`.
    func read(_ request: FileReadRequest, on loop: any EventLoop) -> EventLoopFuture<FileContent> {
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) { try readNow(request) }
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
