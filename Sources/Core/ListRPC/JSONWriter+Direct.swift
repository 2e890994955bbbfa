// The values every reply and notification carries, written by hand past Codable's generic
// containers (`JSONWriter` uses them when it meets one); each writes exactly what its
// `encode(to:)` would, as JSONReaderWriterTests check against the generic path.
import ListModel

/// A type `JSONWriter` writes itself, past Codable's generic containers: for the values every
/// reply and notification carries. It must write exactly what its `encode(to:)` would (the tests
/// compare the two).
protocol JSONDirectlyWritable: SendableMetatype {
    /// Into a byte array, not any `JSONOutput`: called through this protocol, a generic writer
    /// ran unspecialized (`RPCEncoding.lineByHand` copies the line where it goes).
    func writeJSON(into bytes: inout [UInt8])
}

extension ShoppingList: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        writeJSONFields(into: &bytes)
        bytes.writeByte(UInt8(ascii: "}"))
    }

    /// The object without its closing brace: an edit's reply may add fields (`EditReply`).
    func writeJSONFields(into bytes: inout [UInt8]) {
        bytes.write(#"{"id":"#)
        bytes.writeDecimal(id)
        bytes.write(#","name":"#)
        bytes.writeQuoted(name)
        bytes.write(#","edited":""#)
        bytes.writeRFC3339(edited)
        bytes.writeByte(UInt8(ascii: "\""))
        bytes.write(#","revision":"#)
        bytes.writeDecimal(revision)
        bytes.write(#","items":["#)
        for (index, item) in items.enumerated() {
            if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
            bytes.writeQuoted(item)
        }
        bytes.write(#"],"checked":["#)
        for (index, item) in checkedItems.enumerated() {
            if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
            bytes.writeQuoted(item)
        }
        bytes.write(#"],"sections":["#)
        for (index, section) in sectionsWithItems.enumerated() {
            if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
            bytes.write(#"{"name":"#)
            bytes.writeQuoted(section.name)
            bytes.write(#","items":["#)
            for (index, item) in section.items.enumerated() {
                if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
                bytes.writeQuoted(item)
            }
            bytes.write("]}")
        }
        bytes.write(#"],"quantities":{"#)
        // In list order (a dictionary's own order changes from run to run).
        var first = true
        if !quantities.isEmpty {
            for item in items {
                guard let quantity = quantities[item] else { continue }
                if !first { bytes.writeByte(UInt8(ascii: ",")) }
                first = false
                bytes.writeQuoted(item)
                bytes.writeByte(UInt8(ascii: ":"))
                bytes.writeQuoted(quantity)
            }
        }
        bytes.writeByte(UInt8(ascii: "}"))
    }
}

extension ChangeOrigin: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        switch self {
        case .client(let pid, let uid, let name):
            bytes.write(#"{"kind":"client","pid":"#)
            bytes.writeDecimal(Int(pid))
            bytes.write(#","uid":"#)
            bytes.writeDecimal(Int(uid))
            if let name {
                bytes.write(#","name":"#)
                bytes.writeQuoted(name)
            }
            bytes.writeByte(UInt8(ascii: "}"))
        case .file(nil):
            bytes.write(#"{"kind":"file"}"#)
        case .file(let host?):
            bytes.write(#"{"kind":"file","host":"#)
            bytes.writeQuoted(host)
            bytes.writeByte(UInt8(ascii: "}"))
        }
    }
}

extension ListChange.Step: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        func field(_ name: StaticString, _ value: String) {
            bytes.write(#",""#)
            bytes.write(name)
            bytes.write(#"":"#)
            bytes.writeQuoted(value)
        }
        switch self {
        case .add(let item, let quantity, let section):
            bytes.write(#"{"op":"add""#)
            field("item", item)
            if let quantity { field("quantity", quantity) }
            if let section { field("section", section) }
        case .remove(let item):
            bytes.write(#"{"op":"remove""#)
            field("item", item)
        case .replace(let item, let with):
            bytes.write(#"{"op":"replace""#)
            field("item", item)
            field("with", with)
        case .rename(let from, let to):
            bytes.write(#"{"op":"rename""#)
            field("from", from)
            field("to", to)
        case .move(let item, let index, let section):
            bytes.write(#"{"op":"move""#)
            field("item", item)
            field("section", section)
            bytes.write(#","index":"#)
            bytes.writeDecimal(index)
        case .check(let item):
            bytes.write(#"{"op":"check""#)
            field("item", item)
        case .uncheck(let item):
            bytes.write(#"{"op":"uncheck""#)
            field("item", item)
        case .addSection(let section):
            bytes.write(#"{"op":"addSection""#)
            field("section", section)
        case .renameSection(let from, let to):
            bytes.write(#"{"op":"renameSection""#)
            field("from", from)
            field("to", to)
        case .removeSection(let section):
            bytes.write(#"{"op":"removeSection""#)
            field("section", section)
        case .quantity(let item, let quantity):
            bytes.write(#"{"op":"quantity""#)
            field("item", item)
            if let quantity { field("quantity", quantity) } else { bytes.write(#","quantity":null"#) }
        }
        bytes.writeByte(UInt8(ascii: "}"))
    }
}

extension ListChangeParams: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        JSONWriter.writeChangeOpening(revision: revision, list: list, origin: origin, changes: changes, into: &bytes)
        if let undoes {
            bytes.write(#","undoes":"#)
            bytes.writeDecimal(undoes)
        }
        bytes.writeByte(UInt8(ascii: "}"))
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
        bytes.write(#"{"revision":"#)
        bytes.writeDecimal(revision)
        bytes.write(#","list":"#)
        list.writeJSON(into: &bytes)
        bytes.write(#","origin":"#)
        origin.writeJSON(into: &bytes)
        bytes.write(#","changes":["#)
        for (index, step) in changes.enumerated() {
            if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
            step.writeJSON(into: &bytes)
        }
        bytes.writeByte(UInt8(ascii: "]"))
    }
}

extension RPCRequestID: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        switch self {
        case .number(let number): bytes.writeDecimal(Int(number))
        case .string(let string): bytes.writeQuoted(string)
        case .null: bytes.write("null")
        case .numberText(var text): text.withUTF8 { bytes.writeRaw(UnsafeRawBufferPointer($0)) }
        }
    }
}
