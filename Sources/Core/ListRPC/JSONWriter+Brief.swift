// The brief forms (`hello {brief: true}`: what a client that wants speed asks for) written by hand,
// past Codable's generic containers, as the default forms are (`JSONWriter+Direct`): an edit's
// confirm on a brief connection is a `ListSummary`, a change told to a brief subscriber is a
// `BriefChangeParams`. Each writes what its `encode(to:)` would; JSONReaderWriterTests compare.
import ListModel

/// `,"name":` then `value` as a JSON string.
private func field(_ name: StaticString, _ value: String, into bytes: inout [UInt8]) {
    bytes.write(#",""#)
    bytes.write(name)
    bytes.write(#"":"#)
    bytes.writeQuoted(value)
}

/// `,"name":` then `value` as a JSON number.
private func field(_ name: StaticString, _ value: Int, into bytes: inout [UInt8]) {
    bytes.write(#",""#)
    bytes.write(name)
    bytes.write(#"":"#)
    bytes.writeDecimal(value)
}

/// `,"name":` then `values` as a JSON array of strings.
private func field(_ name: StaticString, _ values: [String], into bytes: inout [UInt8]) {
    bytes.write(#",""#)
    bytes.write(name)
    bytes.write(#"":["#)
    for (index, value) in values.enumerated() {
        if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
        bytes.writeQuoted(value)
    }
    bytes.writeByte(UInt8(ascii: "]"))
}

extension ListSummary: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        writeJSONFields(into: &bytes)
        bytes.writeByte(UInt8(ascii: "}"))
    }

    /// The object without its closing brace: an edit's reply may add fields (`EditReply`).
    func writeJSONFields(into bytes: inout [UInt8]) {
        bytes.write(#"{"id":"#)
        bytes.writeDecimal(id)
        field("name", name, into: &bytes)
        field("revision", revision, into: &bytes)
        bytes.write(#","edited":""#)
        bytes.writeRFC3339(edited)
        bytes.writeByte(UInt8(ascii: "\""))
    }
}

extension BriefStep: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        bytes.write(#"{"op":"#)
        bytes.writeQuoted(op)
        if let item { field("item", item, into: &bytes) }
        if let with { field("with", with, into: &bytes) }
        if let from { field("from", from, into: &bytes) }
        if let to { field("to", to, into: &bytes) }
        if let index { field("index", index, into: &bytes) }
        if let fromIndex { field("fromIndex", fromIndex, into: &bytes) }
        if let section { field("section", section, into: &bytes) }
        if let quantity { field("quantity", quantity, into: &bytes) }
        bytes.writeByte(UInt8(ascii: "}"))
    }
}

extension BriefChangeParams: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        JSONWriter.writeChangeOpening(revision: revision, list: list, origin: origin, changes: changes, into: &bytes)
        if let items { field("items", items, into: &bytes) }
        if let checked { field("checked", checked, into: &bytes) }
        if let sections {
            bytes.write(#","sections":["#)
            for (index, section) in sections.enumerated() {
                if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
                bytes.write(#"{"name":"#)
                bytes.writeQuoted(section.name)
                field("items", section.items, into: &bytes)
                bytes.writeByte(UInt8(ascii: "}"))
            }
            bytes.writeByte(UInt8(ascii: "]"))
        }
        if let quantities {
            // In key order: a dictionary's own order changes from run to run.
            bytes.write(#","quantities":{"#)
            for (index, item) in quantities.keys.sorted().enumerated() {
                if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
                bytes.writeQuoted(item)
                bytes.writeByte(UInt8(ascii: ":"))
                bytes.writeQuoted(quantities[item]!)
            }
            bytes.writeByte(UInt8(ascii: "}"))
        }
        if let undoes { field("undoes", undoes, into: &bytes) }
        bytes.writeByte(UInt8(ascii: "}"))
    }
}
