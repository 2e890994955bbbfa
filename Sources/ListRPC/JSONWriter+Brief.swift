// The brief forms (`hello {brief: true}`: what a client that wants speed asks for) written by hand,
// past Codable's generic containers, as the default forms are (`JSONWriter+Direct`): an edit's
// confirm on a brief connection is a `ListSummary`, a change told to a brief subscriber is a
// `BriefChangeParams`. Each writes what its `encode(to:)` would; JSONReaderWriterTests compare.
import ListModel

/// `,"name":` then `value` as a JSON string.
private func field(_ name: StaticString, _ value: String, into bytes: inout [UInt8]) {
    bytes.append(contentsOf: #",""#.utf8)
    bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    bytes.append(contentsOf: #"":"#.utf8)
    JSONWriter.Sink.writeString(value, into: &bytes)
}

/// `,"name":` then `value` as a JSON number.
private func field(_ name: StaticString, _ value: Int, into bytes: inout [UInt8]) {
    bytes.append(contentsOf: #",""#.utf8)
    bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    bytes.append(contentsOf: #"":"#.utf8)
    bytes.append(contentsOf: String(value).utf8)
}

/// `,"name":` then `values` as a JSON array of strings.
private func field(_ name: StaticString, _ values: [String], into bytes: inout [UInt8]) {
    bytes.append(contentsOf: #",""#.utf8)
    bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    bytes.append(contentsOf: #"":["#.utf8)
    for (index, value) in values.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        JSONWriter.Sink.writeString(value, into: &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
}

extension ListSummary: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"id":"#.utf8)
        bytes.append(contentsOf: String(id).utf8)
        field("name", name, into: &bytes)
        field("revision", revision, into: &bytes)
        bytes.append(contentsOf: #","edited":""#.utf8)
        edited.appendRFC3339(to: &bytes)
        bytes.append(contentsOf: #""}"#.utf8)
    }
}

extension BriefStep: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"op":"#.utf8)
        JSONWriter.Sink.writeString(op, into: &bytes)
        if let item { field("item", item, into: &bytes) }
        if let with { field("with", with, into: &bytes) }
        if let from { field("from", from, into: &bytes) }
        if let to { field("to", to, into: &bytes) }
        if let index { field("index", index, into: &bytes) }
        if let fromIndex { field("fromIndex", fromIndex, into: &bytes) }
        if let section { field("section", section, into: &bytes) }
        if let quantity { field("quantity", quantity, into: &bytes) }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension BriefChangeParams: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        JSONWriter.writeChangeOpening(revision: revision, list: list, origin: origin, changes: changes, into: &bytes)
        if let items { field("items", items, into: &bytes) }
        if let checked { field("checked", checked, into: &bytes) }
        if let sections {
            bytes.append(contentsOf: #","sections":["#.utf8)
            for (index, section) in sections.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: #"{"name":"#.utf8)
                JSONWriter.Sink.writeString(section.name, into: &bytes)
                field("items", section.items, into: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(UInt8(ascii: "]"))
        }
        if let quantities {
            // In key order: a dictionary's own order changes from run to run.
            bytes.append(contentsOf: #","quantities":{"#.utf8)
            for (index, item) in quantities.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.Sink.writeString(item, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONWriter.Sink.writeString(quantities[item]!, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
        if let undoes { field("undoes", undoes, into: &bytes) }
        bytes.append(UInt8(ascii: "}"))
    }
}
