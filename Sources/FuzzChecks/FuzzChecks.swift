import Foundation
import ListFileFormat
import ListModel
import ListRPC

/// What the fuzzers check for any input, shared with the regression tests that replay every
/// input kept (Tests/Fuzz): each check returns the property the input broke, or nil. The fuzzers
/// stop on it (a crash libFuzzer keeps the input of); the tests name it.
public enum FuzzChecks {
    /// One request line: framing limits, JSON, JSON-RPC validation and listd's params must not
    /// crash, whatever the bytes; and a request read is written back as a line that reads as the
    /// same request.
    public static func rpcLine(_ bytes: UnsafeRawBufferPointer) -> String? {
        let messages: [Result<RPCMessage, RPCLine.InvalidMessage>]
        switch RPCLine.parse(bytes, limits: .default) {
        case .empty: return nil
        case .single(let message): messages = [message]
        case .batch(let batch): messages = batch
        }
        for case .success(.request(let request)) in messages {
            // Every params type listd decodes, as it would for that method (a refusal is fine).
            _ = try? RPCEncoding.decode(AddItem.Params.self, from: request.params)
            _ = try? RPCEncoding.decode(ReplaceItem.Params.self, from: request.params)
            _ = try? RPCEncoding.decode(CreateList.Params.self, from: request.params)
            _ = try? RPCEncoding.decode(Subscribe.Params.self, from: request.params)
            _ = try? RPCEncoding.decode(RegisterDelegate.Params.self, from: request.params)
            let written: Data
            do {
                written = try RPCEncoding.request(id: request.id, method: request.method, params: request.params)
            } catch {
                return "a request read could not be written back: \(error)"
            }
            let reread = written.withUnsafeBytes { RPCLine.parse($0, limits: .default) }
            guard case .single(.success(.request(let again))) = reread else {
                return "a request written back does not read as one: \(String(decoding: written, as: UTF8.self))"
            }
            if again != request {
                return "a request written back reads differently: \(request) became \(again)"
            }
        }
        return nil
    }

    /// The list file: any bytes a person (or a disk) may leave there must not crash; what listd
    /// writes back must read as the same lists, and writing those again gives the same text.
    public static func listFile(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
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
        let edits = reread.edits(from: book)
        if !edits.isEmpty {
            return "the file listd writes does not read back as the same lists: \(edits.map(\.edit))"
        }
        let rewritten = ListFileWriter.text(for: book, onto: reread, rejected: reread.rejectedLines)
        if rewritten != written {
            return
                "writing the same lists onto listd's own file changed it: \(written.debugDescription) became \(rewritten.debugDescription)"
        }
        // Ticks listd makes (each list's first item toggled) are written as boxes that read back
        // as the same ticks.
        var ticked = book
        for list in book.lists {
            guard let first = list.items.first else { continue }
            let toggle: ListEdit = list.isChecked(first) ? .uncheckItem(first, on: .id(list.id)) : .checkItem(first, on: .id(list.id))
            _ = try? ticked.apply(toggle, at: Timestamp(millisecondsSinceEpoch: 2), origin: .file)
        }
        let boxes = ListFileWriter.text(for: ticked, onto: reread, rejected: reread.rejectedLines)
        let boxEdits = ListFileReading(ListDocument(parsing: boxes), known: ticked).edits(from: ticked)
        if !boxEdits.isEmpty {
            return "the ticks listd writes do not read back as the same lists: \(boxEdits.map(\.edit))"
        }
        return nil
    }
}
