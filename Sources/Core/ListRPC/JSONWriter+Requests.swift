// The requests a one-shot client sends most (listctl's hello, show, add, remove, check), written
// past Codable's generic containers: a short-lived process pays for every generic type it touches
// the first time, more than for its request. Each writes exactly what its `encode(to:)` would
// (JSONReaderWriterTests compare the two).
import ListModel

extension ListReference: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        switch self {
        case .id(let id): bytes.writeDecimal(id)
        case .name(let name): bytes.writeQuoted(name)
        }
    }
}

extension Hello.Params: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        var object = DirectObject(into: &bytes)
        object.field("name", name, into: &bytes)
        object.field("brief", brief, into: &bytes)
        object.field("rights", rights, into: &bytes)
        object.close(into: &bytes)
    }
}

extension GetList.Params: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        var object = DirectObject(into: &bytes)
        object.field("list", list, into: &bytes)
        object.close(into: &bytes)
    }
}

extension AddItemParams: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        var object = DirectObject(into: &bytes)
        object.field("list", list, into: &bytes)
        object.field("item", item, into: &bytes)
        object.field("section", section, into: &bytes)
        object.field("quantity", quantity, into: &bytes)
        object.field("ifRevision", ifRevision, into: &bytes)
        object.field("ifAbsent", ifAbsent, into: &bytes)
        object.close(into: &bytes)
    }
}

extension ListItemParams: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        var object = DirectObject(into: &bytes)
        object.field("list", list, into: &bytes)
        object.field("item", item, into: &bytes)
        object.field("ifRevision", ifRevision, into: &bytes)
        object.close(into: &bytes)
    }
}

/// A JSON object written field by field, in the order given; an absent optional is left out, as
/// Codable's `encodeIfPresent` leaves it.
private struct DirectObject {
    private var empty = true

    init(into bytes: inout [UInt8]) {
        bytes.writeByte(UInt8(ascii: "{"))
    }

    private mutating func key(_ name: StaticString, into bytes: inout [UInt8]) {
        if !empty { bytes.writeByte(UInt8(ascii: ",")) }
        empty = false
        bytes.writeByte(UInt8(ascii: "\""))
        bytes.write(name)
        bytes.write("\":")
    }

    mutating func field(_ name: StaticString, _ value: String?, into bytes: inout [UInt8]) {
        guard let value else { return }
        key(name, into: &bytes)
        bytes.writeQuoted(value)
    }

    mutating func field(_ name: StaticString, _ value: Int?, into bytes: inout [UInt8]) {
        guard let value else { return }
        key(name, into: &bytes)
        bytes.writeDecimal(value)
    }

    mutating func field(_ name: StaticString, _ value: Bool?, into bytes: inout [UInt8]) {
        guard let value else { return }
        key(name, into: &bytes)
        bytes.write(value ? "true" : "false")
    }

    mutating func field(_ name: StaticString, _ value: [String]?, into bytes: inout [UInt8]) {
        guard let value else { return }
        key(name, into: &bytes)
        bytes.writeByte(UInt8(ascii: "["))
        for (index, string) in value.enumerated() {
            if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
            bytes.writeQuoted(string)
        }
        bytes.writeByte(UInt8(ascii: "]"))
    }

    mutating func field(_ name: StaticString, _ value: ListReference, into bytes: inout [UInt8]) {
        key(name, into: &bytes)
        value.writeJSON(into: &bytes)
    }

    func close(into bytes: inout [UInt8]) {
        bytes.writeByte(UInt8(ascii: "}"))
    }
}
