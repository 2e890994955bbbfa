import ListFileFormat
import ListModel
import ListRPC

/// What the fuzzers check for any input, shared with the regression tests that replay every
/// input a fuzzer ever found a crash with (Tests/Fuzz/regressions).
public enum FuzzChecks {
    /// One request line: framing limits, JSON, JSON-RPC validation and listd's params. Must not
    /// crash, whatever the bytes.
    public static func rpcLine(_ bytes: UnsafeRawBufferPointer) {
        let messages: [Result<RPCMessage, RPCLine.InvalidMessage>]
        switch RPCLine.parse(bytes, limits: .default) {
        case .empty: return
        case .single(let message): messages = [message]
        case .batch(let batch): messages = batch
        }
        for case .success(.request(let request)) in messages {
            // Every params type listd decodes, as it would for that method.
            _ = try? RPCEncoding.decode(AddItem.Params.self, from: request.params)
            _ = try? RPCEncoding.decode(ReplaceItem.Params.self, from: request.params)
            _ = try? RPCEncoding.decode(CreateList.Params.self, from: request.params)
            _ = try? RPCEncoding.decode(Subscribe.Params.self, from: request.params)
            _ = try? RPCEncoding.decode(RegisterDelegate.Params.self, from: request.params)
            // Whatever was read is written back without failing.
            _ = try? RPCEncoding.request(id: request.id, method: request.method, params: request.params)
        }
    }

    /// The list file: any bytes a person (or a disk) may leave there. Must not crash, and what
    /// listd writes back must read as the same lists.
    public static func listFile(_ bytes: UnsafeRawBufferPointer) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        let document = ListDocument(parsing: text)
        // A first start, then the same file read against what it gave.
        var first = ListFileReading(document, known: nil)
        var book = first.book(at: Timestamp(millisecondsSinceEpoch: 0))
        let again = ListFileReading(document, known: book)
        for edit in again.edits(from: book) {
            _ = try? book.apply(edit.edit, at: Timestamp(millisecondsSinceEpoch: 1), origin: .file)
        }
        let written = ListFileWriter.text(for: book, onto: again, rejected: again.rejectedLines)
        let reread = ListFileReading(ListDocument(parsing: written), known: book)
        if !reread.edits(from: book).isEmpty {
            fatalError("the file listd writes does not read back as the same lists")
        }
    }
}
