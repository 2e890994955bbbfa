// The values every reply and notification carries, written by hand past Codable's generic
// containers (`JSONWriter` uses them when it meets one); each writes exactly what its
// `encode(to:)` would, as JSONReaderWriterTests check against the generic path.
import ListModel

/// A type `JSONWriter` writes itself, past Codable's generic containers: for the values every
/// reply and notification carries. It must write exactly what its `encode(to:)` would (the tests
/// compare the two).
protocol JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8])
}

extension ShoppingList: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"id":"#.utf8)
        bytes.append(contentsOf: String(id).utf8)
        bytes.append(contentsOf: #","name":"#.utf8)
        JSONWriter.Sink.writeString(name, into: &bytes)
        bytes.append(contentsOf: #","edited":""#.utf8)
        edited.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: #","revision":"#.utf8)
        bytes.append(contentsOf: String(revision).utf8)
        bytes.append(contentsOf: #","items":["#.utf8)
        for (index, item) in items.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.Sink.writeString(item, into: &bytes)
        }
        bytes.append(contentsOf: #"],"checked":["#.utf8)
        for (index, item) in checkedItems.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.Sink.writeString(item, into: &bytes)
        }
        bytes.append(contentsOf: #"],"sections":["#.utf8)
        for (index, section) in sectionsWithItems.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #"{"name":"#.utf8)
            JSONWriter.Sink.writeString(section.name, into: &bytes)
            bytes.append(contentsOf: #","items":["#.utf8)
            for (index, item) in section.items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.Sink.writeString(item, into: &bytes)
            }
            bytes.append(contentsOf: "]}".utf8)
        }
        bytes.append(contentsOf: #"],"quantities":{"#.utf8)
        // In list order (a dictionary's own order changes from run to run).
        var first = true
        if !quantities.isEmpty {
            for item in items {
                guard let quantity = quantities[item] else { continue }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                JSONWriter.Sink.writeString(item, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONWriter.Sink.writeString(quantity, into: &bytes)
            }
        }
        bytes.append(contentsOf: "}}".utf8)
    }
}

extension ChangeOrigin: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        switch self {
        case .client(let pid, let uid, let name):
            bytes.append(contentsOf: #"{"kind":"client","pid":"#.utf8)
            bytes.append(contentsOf: String(pid).utf8)
            bytes.append(contentsOf: #","uid":"#.utf8)
            bytes.append(contentsOf: String(uid).utf8)
            if let name {
                bytes.append(contentsOf: #","name":"#.utf8)
                JSONWriter.Sink.writeString(name, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .file(nil):
            bytes.append(contentsOf: #"{"kind":"file"}"#.utf8)
        case .file(let host?):
            bytes.append(contentsOf: #"{"kind":"file","host":"#.utf8)
            JSONWriter.Sink.writeString(host, into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

extension ListChange.Step: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        func field(_ name: String, _ value: String) {
            bytes.append(contentsOf: #",""#.utf8)
            bytes.append(contentsOf: name.utf8)
            bytes.append(contentsOf: #"":"#.utf8)
            JSONWriter.Sink.writeString(value, into: &bytes)
        }
        switch self {
        case .add(let item, let quantity, let section):
            bytes.append(contentsOf: #"{"op":"add""#.utf8)
            field("item", item)
            if let quantity { field("quantity", quantity) }
            if let section { field("section", section) }
        case .remove(let item):
            bytes.append(contentsOf: #"{"op":"remove""#.utf8)
            field("item", item)
        case .replace(let item, let with):
            bytes.append(contentsOf: #"{"op":"replace""#.utf8)
            field("item", item)
            field("with", with)
        case .rename(let from, let to):
            bytes.append(contentsOf: #"{"op":"rename""#.utf8)
            field("from", from)
            field("to", to)
        case .move(let item, let index, let section):
            bytes.append(contentsOf: #"{"op":"move""#.utf8)
            field("item", item)
            field("section", section)
            bytes.append(contentsOf: ",\"index\":\(index)".utf8)
        case .check(let item):
            bytes.append(contentsOf: #"{"op":"check""#.utf8)
            field("item", item)
        case .uncheck(let item):
            bytes.append(contentsOf: #"{"op":"uncheck""#.utf8)
            field("item", item)
        case .addSection(let section):
            bytes.append(contentsOf: #"{"op":"addSection""#.utf8)
            field("section", section)
        case .renameSection(let from, let to):
            bytes.append(contentsOf: #"{"op":"renameSection""#.utf8)
            field("from", from)
            field("to", to)
        case .removeSection(let section):
            bytes.append(contentsOf: #"{"op":"removeSection""#.utf8)
            field("section", section)
        case .quantity(let item, let quantity):
            bytes.append(contentsOf: #"{"op":"quantity""#.utf8)
            field("item", item)
            if let quantity { field("quantity", quantity) } else { bytes.append(contentsOf: #","quantity":null"#.utf8) }
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension ListChangeParams: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        JSONWriter.writeChangeOpening(revision: revision, list: list, origin: origin, changes: changes, into: &bytes)
        if let undoes { bytes.append(contentsOf: ",\"undoes\":\(undoes)".utf8) }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension JSONWriter {
    /// What a change notification's params begin with, whole or brief:
    /// `{"revision":…,"list":…,"origin":…,"changes":[…]` (the caller adds the rest and the `}`).
    static func writeChangeOpening(
        revision: Revision,
        list: some JSONDirectlyWritable,
        origin: ChangeOrigin,
        changes: [some JSONDirectlyWritable],
        into bytes: inout [UInt8]
    ) {
        bytes.append(contentsOf: #"{"revision":"#.utf8)
        bytes.append(contentsOf: String(revision).utf8)
        bytes.append(contentsOf: #","list":"#.utf8)
        list.writeJSON(into: &bytes)
        bytes.append(contentsOf: #","origin":"#.utf8)
        origin.writeJSON(into: &bytes)
        bytes.append(contentsOf: #","changes":["#.utf8)
        for (index, step) in changes.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            step.writeJSON(into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

extension RPCRequestID {
    func writeJSON(into bytes: inout [UInt8]) {
        switch self {
        case .number(let number): bytes.append(contentsOf: String(number).utf8)
        case .string(let string): JSONWriter.Sink.writeString(string, into: &bytes)
        case .null: bytes.append(contentsOf: "null".utf8)
        }
    }
}
