// The change log's line format: a `LogEntry` as one line of JSON and back (docs/file-format.md).
// The core decides which entries a pass logs; the persistence shells write and read them
// (ChangeLog, the shared lists' copy and database), so the format lives beside them.
import ListCore
import ListModel
import ListRPC

extension LogEntry {
    /// The entry as one line of JSON, without its newline. Written field by field (a change is
    /// logged on every edit, and `Codable` took a sixth of an edit's own CPU time); short field names
    /// (there is one line per change), read back by `init(line:)`.
    package var line: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        switch self {
        case .change(let record):
            bytes.append(contentsOf: #"{"r":"#.utf8)
            bytes.appendJSON(integer: record.revision)
            bytes.append(contentsOf: #","t":"#.utf8)
            bytes.appendJSON(integer: Int(record.time.millisecondsSinceEpoch))
            bytes.append(contentsOf: #","o":"#.utf8)
            Self.write(record.origin, into: &bytes)
            // Names are static text: a line is made per change, and an interpolated name cost a
            // string per field.
            func name(_ name: StaticString) {
                bytes.append(contentsOf: #",""#.utf8)
                bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                bytes.append(contentsOf: #"":"#.utf8)
            }
            func field(_ field: StaticString, _ value: String) {
                name(field)
                bytes.appendJSON(string: value)
            }
            func field(_ field: StaticString, _ value: Int) {
                name(field)
                bytes.appendJSON(integer: value)
            }
            func field(_ field: StaticString, _ values: [String]) {
                name(field)
                bytes.appendJSON(strings: values)
            }
            switch record.operation {
            case .create(let id, let name, let items, let checked, let sections, let quantities):
                field("op", "create")
                field("id", id)
                field("name", name)
                field("items", items)
                if !checked.isEmpty { field("checked", checked) }
                if !sections.isEmpty {
                    field("sectionNames", sections.map(\.name))
                    bytes.append(contentsOf: ",\"sectionCounts\":[\(sections.map { String($0.count) }.joined(separator: ","))]".utf8)
                }
                if !quantities.isEmpty {
                    // In list order, by index into the items.
                    let quantified = items.indices.filter { quantities[items[$0]] != nil }
                    bytes.append(contentsOf: ",\"quantityIndexes\":[\(quantified.map(String.init).joined(separator: ","))]".utf8)
                    field("quantities", quantified.map { quantities[items[$0]]! })
                }
            case .rename(let id, let name):
                field("op", "rename")
                field("id", id)
                field("name", name)
            case .delete(let id):
                field("op", "delete")
                field("id", id)
            case .add(let id, let item, let at, let section, let newSection, let quantity):
                field("op", "add")
                field("id", id)
                field("item", item)
                field("at", at)
                if let section { field("s", section) }
                if let newSection { field("newSection", newSection) }
                if let quantity { field("q", quantity) }
            case .remove(let id, let at):
                field("op", "remove")
                field("id", id)
                field("at", at)
            case .replace(let id, let at, let with):
                field("op", "replace")
                field("id", id)
                field("item", with)
                field("at", at)
            case .move(let id, let from, let to, let section):
                field("op", "move")
                field("id", id)
                field("at", from)
                field("to", to)
                if let section { field("s", section) }
            case .addSection(let id, let name, let at, let taking):
                field("op", "addSection")
                field("id", id)
                field("name", name)
                field("at", at)
                if taking > 0 { field("taking", taking) }
            case .renameSection(let id, let at, let name):
                field("op", "renameSection")
                field("id", id)
                field("name", name)
                field("at", at)
            case .removeSection(let id, let at):
                field("op", "removeSection")
                field("id", id)
                field("at", at)
            case .setQuantity(let id, let at, let quantity):
                field("op", "quantity")
                field("id", id)
                field("at", at)
                if let quantity { field("q", quantity) }
            case .check(let id, let at):
                field("op", "check")
                field("id", id)
                field("at", at)
            case .uncheck(let id, let at):
                field("op", "uncheck")
                field("id", id)
                field("at", at)
            case .restate(let id, let from, let to, let section, let newSection, let checked, let quantity):
                field("op", "restate")
                field("id", id)
                field("at", from)
                field("to", to)
                if let section { field("s", section) }
                if let newSection { field("newSection", newSection) }
                if checked { field("checked", 1) }
                if let quantity { field("q", quantity) }
            case .removeItems(let id, let placed), .insertItems(let id, let placed):
                if case .removeItems = record.operation { field("op", "removeItems") } else { field("op", "insertItems") }
                field("id", id)
                // The items and their places; the checked ones by index into them.
                bytes.append(contentsOf: #","items":"#.utf8)
                JSONWriter.write(.array(placed.map { .string($0.text) }), into: &bytes)
                bytes.append(contentsOf: ",\"places\":[\(placed.map { String($0.at) }.joined(separator: ","))]".utf8)
                let checked = placed.indices.filter { placed[$0].checked }
                bytes.append(contentsOf: ",\"checkedIndexes\":[\(checked.map(String.init).joined(separator: ","))]".utf8)
                // Sections ("" none) and amounts ("" none), when any item has one.
                if placed.contains(where: { $0.section != nil }) { field("sections", placed.map { $0.section ?? "" }) }
                if placed.contains(where: { $0.quantity != nil }) { field("quantities", placed.map { $0.quantity ?? "" }) }
            }
            if let undoes = record.undoes { field("undoes", undoes) }
            if let editId = record.editId { field("e", editId) }
            bytes.append(UInt8(ascii: "}"))
        case .fileShows(let digest, let revision):
            bytes.append(contentsOf: #"{"listd":"fileShows","digest":"#.utf8)
            JSONWriter.write(.string(digest), into: &bytes)
            bytes.append(contentsOf: ",\"revision\":\(revision)}".utf8)
        case .saveTaken(let text, let revision):
            bytes.append(contentsOf: #"{"listd":"saveTaken","revision":"#.utf8)
            bytes.append(contentsOf: "\(revision),\"text\":".utf8)
            JSONWriter.write(.string(String(decoding: text, as: UTF8.self)), into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        case .order(let ids, let revision):
            bytes.append(contentsOf: #"{"listd":"order","revision":"#.utf8)
            bytes.append(contentsOf: "\(revision),\"ids\":[\(ids.map(String.init).joined(separator: ","))]}".utf8)
        case .fullChange:
            preconditionFailure("an older log's whole-list line is read, never written")
        }
        return bytes
    }

    /// `{"kind":"client","pid":…,"uid":…,"name":…}` (no name when there is none) or
    /// `{"kind":"file"}` (with `"host"` when shared), as `ChangeOrigin`'s `Codable` writes it.
    private static func write(_ origin: ChangeOrigin, into bytes: inout [UInt8]) {
        switch origin {
        case .file(nil):
            bytes.append(contentsOf: #"{"kind":"file"}"#.utf8)
        case .file(let host?):
            bytes.append(contentsOf: #"{"kind":"file","host":"#.utf8)
            JSONWriter.write(.string(host), into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        case .client(let pid, let uid, let name):
            bytes.append(contentsOf: #"{"kind":"client","pid":"#.utf8)
            bytes.appendJSON(integer: Int(pid))
            bytes.append(contentsOf: #","uid":"#.utf8)
            bytes.appendJSON(integer: Int(uid))
            if let name {
                bytes.append(contentsOf: #","name":"#.utf8)
                bytes.appendJSON(string: name)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The entry a line holds, or nil when it is not one (torn or damaged).
    package init?(line: some Collection<UInt8>) {
        guard let value = try? RPCEncoding.value(fromJSON: line), case .object(let fields) = value else { return nil }
        guard let entry = Self.change(fields) ?? Self.note(fields) ?? Self.olderChange(value) else { return nil }
        self = entry
    }

    /// The fields are read by hand rather than through `Decodable`: a start reads up to a few
    /// hundred thousand of these lines, and the generic decoder took twice as long as the parse.
    private static func change(_ fields: [String: JSONValue]) -> LogEntry? {
        guard let revision = fields.int("r"), let milliseconds = fields["t"]?.integerValue,
            let origin = fields["o"].flatMap(ChangeOrigin.init(stored:)), let op = fields["op"]?.stringValue,
            let id = fields.int("id")
        else { return nil }
        let operation: ChangeRecord.Operation
        switch (op, fields["name"]?.stringValue, fields.strings("items"), fields["item"]?.stringValue, fields.int("at"))
        {
        case ("create", let name?, let items?, _, _):
            let names = fields.strings("sectionNames") ?? []
            let counts = fields.ints("sectionCounts") ?? []
            let quantified = fields.ints("quantityIndexes") ?? []
            let amounts = fields.strings("quantities") ?? []
            guard names.count == counts.count, quantified.count == amounts.count,
                quantified.allSatisfy(items.indices.contains)
            else { return nil }
            operation = .create(
                id: id,
                name: name,
                items: items,
                checked: fields.strings("checked") ?? [],
                sections: zip(names, counts).map { ListSection($0, count: $1) },
                quantities: Dictionary(zip(quantified.map { items[$0] }, amounts), uniquingKeysWith: { $1 })
            )
        case ("rename", let name?, _, _, _): operation = .rename(id: id, to: name)
        case ("delete", _, _, _, _): operation = .delete(id: id)
        case ("add", _, _, let item?, let at?):
            operation = .add(
                id: id,
                item: item,
                at: at,
                section: fields.int("s"),
                newSection: fields["newSection"]?.stringValue,
                quantity: fields["q"]?.stringValue
            )
        case ("remove", _, _, _, let at?): operation = .remove(id: id, at: at)
        case ("replace", _, _, let item?, let at?): operation = .replace(id: id, at: at, with: item)
        case ("move", _, _, _, let at?):
            guard let to = fields.int("to") else { return nil }
            operation = .move(id: id, from: at, to: to, section: fields.int("s"))
        case ("addSection", let name?, _, _, let at?):
            operation = .addSection(id: id, name: name, at: at, taking: fields.int("taking") ?? 0)
        case ("renameSection", let name?, _, _, let at?): operation = .renameSection(id: id, at: at, to: name)
        case ("removeSection", _, _, _, let at?): operation = .removeSection(id: id, at: at)
        case ("quantity", _, _, _, let at?): operation = .setQuantity(id: id, at: at, quantity: fields["q"]?.stringValue)
        case ("check", _, _, _, let at?): operation = .check(id: id, at: at)
        case ("uncheck", _, _, _, let at?): operation = .uncheck(id: id, at: at)
        case ("restate", _, _, _, let at?):
            guard let to = fields.int("to") else { return nil }
            operation = .restate(
                id: id,
                from: at,
                to: to,
                section: fields.int("s"),
                newSection: fields["newSection"]?.stringValue,
                checked: fields.int("checked") == 1,
                quantity: fields["q"]?.stringValue
            )
        case ("removeItems", _, let items?, _, _), ("insertItems", _, let items?, _, _):
            guard let places = fields.ints("places"), places.count == items.count,
                let checked = fields.ints("checkedIndexes").map(Set.init)
            else { return nil }
            let sections = fields.strings("sections")
            let quantities = fields.strings("quantities")
            guard (sections?.count ?? items.count) == items.count, (quantities?.count ?? items.count) == items.count else {
                return nil
            }
            let placed = items.indices.map { index in
                PlacedItem(
                    items[index],
                    at: places[index],
                    checked: checked.contains(index),
                    section: sections.flatMap { $0[index].isEmpty ? nil : $0[index] },
                    quantity: quantities.flatMap { $0[index].isEmpty ? nil : $0[index] }
                )
            }
            operation = op == "removeItems" ? .removeItems(id: id, placed) : .insertItems(id: id, placed)
        default: return nil
        }
        let time = Timestamp(millisecondsSinceEpoch: milliseconds)
        return .change(
            ChangeRecord(
                revision: revision,
                time: time,
                origin: origin,
                operation: operation,
                undoes: fields.int("undoes"),
                editId: fields["e"]?.stringValue
            )
        )
    }

    private static func note(_ fields: [String: JSONValue]) -> LogEntry? {
        guard let revision = fields.int("revision") else { return nil }
        switch fields["listd"]?.stringValue {
        case "fileShows": return fields["digest"]?.stringValue.map { .fileShows(digest: $0, revision: revision) }
        case "order": return fields.ints("ids").map { .order($0, revision: revision) }
        case "saveTaken": return fields["text"]?.stringValue.map { .saveTaken(text: Array($0.utf8), revision: revision) }
        default: return nil
        }
    }

    private static func olderChange(_ value: JSONValue) -> LogEntry? {
        struct OlderChangeLine: Decodable {
            var method: String
            var params: ListChangeParams
        }
        guard let older = try? RPCEncoding.decode(OlderChangeLine.self, from: value),
            let event = ListEventName(rawValue: older.method), let kind = ListChange.Kind(event)
        else { return nil }
        let params = older.params
        return .fullChange(
            ListChange(
                kind: kind,
                revision: params.revision,
                list: params.list,
                steps: params.changes,
                origin: params.origin
            )
        )
    }

}

extension [String: JSONValue] {
    fileprivate func int(_ key: String) -> Int? {
        self[key]?.integerValue.flatMap { Int(exactly: $0) }
    }

    fileprivate func ints(_ key: String) -> [Int]? {
        guard case .array(let elements)? = self[key] else { return nil }
        let numbers = elements.compactMap { $0.integerValue.flatMap { Int(exactly: $0) } }
        return numbers.count == elements.count ? numbers : nil
    }

    fileprivate func strings(_ key: String) -> [String]? {
        guard case .array(let elements)? = self[key] else { return nil }
        let strings = elements.compactMap(\.stringValue)
        return strings.count == elements.count ? strings : nil
    }
}

extension ChangeOrigin {
    /// The origin as `Codable` writes it: `{"kind":"client","pid":…,"uid":…,"name":…}` or
    /// `{"kind":"file"}`.
    fileprivate init?(stored: JSONValue) {
        switch stored["kind"]?.stringValue {
        case "file":
            self = .file(host: stored["host"]?.stringValue)
        case "client":
            guard let pid = stored["pid"]?.integerValue.flatMap({ Int32(exactly: $0) }),
                let uid = stored["uid"]?.integerValue.flatMap({ UInt32(exactly: $0) })
            else { return nil }
            let name = stored["name"]
            guard name == nil || name == .null || name?.stringValue != nil else { return nil }
            self = .client(pid: pid, uid: uid, name: name?.stringValue)
        default:
            return nil
        }
    }
}

extension ListChange.Kind {
    /// The kind a change notification reports.
    init?(_ event: ListEventName) {
        switch event {
        case .didCreateShoppingList: self = .created
        case .didUpdateShoppingList: self = .updated
        case .didRenameShoppingList: self = .renamed
        case .didDeleteShoppingList: self = .deleted
        case .didRejectFileEdit, .didDenyChange, .didChangeDelegates: return nil
        }
    }
}
