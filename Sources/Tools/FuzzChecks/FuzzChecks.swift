import CalDAV
import Foundation
import ListFileFormat
import ListModel
import ListRPC
import ListWebProtocol

/// What the fuzzers check for any input, shared with the regression tests that replay every
/// input kept (Tests/Fuzz): each check returns the property the input broke, or nil. The fuzzers
/// stop on it (a crash libFuzzer keeps the input of); the tests name it.
public enum FuzzChecks {
    /// One request line: framing limits, JSON, JSON-RPC validation and listd's params must not
    /// crash, whatever the bytes; and a request read is written back as a line that reads as the
    /// same request.
    public static func rpcLine(_ bytes: UnsafeRawBufferPointer) -> String? {
        let messages: [Result<RPCMessage, RPCLine.InvalidMessage>]
        let parsed = RPCLine.parse(bytes, limits: .default)
        // The line is checked without being read into a tree: it must be taken exactly when the
        // tree reader takes it.
        let readsAsJSON = (try? RPCEncoding.value(fromJSON: bytes)) != nil
        switch parsed {
        case .single(.failure(let invalid)) where invalid.error.code == RPCError.parseError("").code:
            if readsAsJSON { return "a line refused as not JSON reads as JSON" }
        case .single(.failure(let invalid)) where invalid.error.message.contains("nested deeper"): break
        case .empty: break
        default: if !readsAsJSON { return "a line that is not JSON was read as messages" }
        }
        switch parsed {
        case .empty: return nil
        case .single(let message): messages = [message]
        case .batch(let batch): messages = batch
        }
        for case .success(.request(let request)) in messages {
            // Every params type listd decodes, as it would for that method (a refusal is fine),
            // read from the text as listd does and from the tree, with the same answer.
            let disagreements = [
                paramsReadAlike(AddItem.Params.self, request.params),
                paramsReadAlike(ReplaceItem.Params.self, request.params),
                paramsReadAlike(CreateList.Params.self, request.params),
                paramsReadAlike(Subscribe.Params.self, request.params),
                paramsReadAlike(RegisterDelegate.Params.self, request.params),
                paramsReadAlike(GetHistory.Params.self, request.params),
                paramsReadAlike(MoveItem.Params.self, request.params),
                paramsReadAlike(RemoveItem.Params.self, request.params),
            ]
            if let disagreement = disagreements.compactMap({ $0 }).first { return disagreement }
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

    /// Params decoded from their text (listd's way) and from their tree give the same value, or
    /// fail with the same error (the one the client reads).
    static func paramsReadAlike<P: Decodable & Equatable>(_ type: P.Type, _ params: JSONText?) -> String? {
        let fromText = Result { try RPCEncoding.decode(P.self, from: params) }
        let fromTree = Result { try RPCEncoding.decode(P.self, from: params?.value ?? .object([:])) }
        switch (fromText, fromTree) {
        case (.success(let text), .success(let tree)) where text == tree: return nil
        case (.failure(let text), .failure(let tree)) where "\(text)" == "\(tree)": return nil
        default: return "\(P.self) read from text as \(fromText) but from the tree as \(fromTree): \(params?.description ?? "none")"
        }
    }

    /// One WebSocket message from a page: vetting it must not crash, whatever the bytes; what
    /// is sent on to listd is one line holding one request of a method a page may call, with the
    /// page's id; what is refused is a JSON-RPC error reply.
    public static func pageMessage(_ bytes: UnsafeRawBufferPointer) -> String? {
        switch PageMessages.vet(String(decoding: bytes, as: UTF8.self)) {
        case .forward(let line, let id):
            guard line.last == UInt8(ascii: "\n"), !line.dropLast().contains(UInt8(ascii: "\n")) else {
                return "a forwarded request is not one line"
            }
            guard case .single(.success(.request(let request))) = RPCLine.parse(line.dropLast(), limits: .default) else {
                return "a forwarded line does not read as one request: \(String(decoding: line, as: UTF8.self))"
            }
            guard PageMessages.allowedMethods.contains(request.method) else { return "“\(request.method)” was let through" }
            guard request.id == id else { return "the forwarded request's id changed" }
        case .refuse(let reply):
            guard case .single(.success(.response(let response))) = RPCLine.parse(reply, limits: .default),
                case .failure = response.outcome
            else {
                return "a refusal is not an error reply: \(String(decoding: reply, as: UTF8.self))"
            }
        }
        return nil
    }

    /// A CalDAV client's bodies: as XML (a PROPFIND or REPORT, answered from a small book) and as
    /// iCalendar (a PUT). Nothing may crash; an XML body with a DOCTYPE is never read; an
    /// iCalendar object read and written again reads as the same object.
    public static func calDAV(_ bytes: UnsafeRawBufferPointer) -> String? {
        let body = Array(bytes)
        let xml = Result { () throws(XMLReadError) in try XMLReader.read(body) }
        if case .success = xml, String(decoding: body, as: UTF8.self).contains("<!DOCTYPE") {
            // Inside a comment or CDATA it is text; anywhere else it must have been refused.
            if !String(decoding: body, as: UTF8.self).contains("<!--"), !String(decoding: body, as: UTF8.self).contains("<![CDATA[") {
                return "a body with a DOCTYPE was read"
            }
        }
        var book = TaskBook()
        book.follow(instance: "fuzz", at: 0)
        let list = ShoppingList(
            id: 1, name: "Groceries", edited: Timestamp(millisecondsSinceEpoch: 0), revision: 1, items: ["milk", "eggs"],
            checkedItems: ["eggs"], quantities: ["milk": "2 l"]
        )
        book.apply(list, deleted: false, steps: [], revision: 1)
        let handler = DAVHandler(book: book, deviceName: "fuzz")
        for (method, path) in [("PROPFIND", "/caldav/lists/1/"), ("REPORT", "/caldav/lists/1/"), ("PROPPATCH", "/caldav/lists/1/"), ("PUT", "/caldav/lists/1/new.ics")] {
            if case .respond(let response) = handler.answer(DAVRequest(method: method, path: path, depth: "1", body: body)),
                !(200..<600).contains(response.status)
            {
                return "\(method) was answered \(response.status)"
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self), let calendar = try? ICalendar.read(text) else { return nil }
        guard let again = try? ICalendar.read(calendar.text) else { return "an iCalendar object written does not read again" }
        guard again == calendar else { return "an iCalendar object written reads as another" }
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
