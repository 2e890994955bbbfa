import ListModel
import ListRPC

/// One line of the change log, and its text: a change (what changed, never the whole list), or
/// a note about the list file.
enum LogEntry: Sendable, Hashable {
    case change(ChangeRecord)
    /// The list file with this digest shows the lists as of `revision` (listd wrote it, or took
    /// in a person's save of it): a start that finds that file knows what it shows.
    case fileShows(digest: String, revision: Revision)
    /// The lists were put in this order (a person moved them in the file).
    case order([ListID], revision: Revision)
    /// A change as listd logged it before it kept records: the notification line, with the
    /// whole list. Read from an older log, never written.
    case fullChange(ListChange)

    /// The entry as one line of JSON, without its newline.
    var line: [UInt8] {
        var stored = StoredEntry()
        switch self {
        case .change(let record):
            stored.r = record.revision
            stored.t = record.time.millisecondsSinceEpoch
            stored.o = record.origin
            switch record.operation {
            case .create(let id, let name, let items):
                (stored.op, stored.id, stored.name, stored.items) = ("create", id, name, items)
            case .rename(let id, let name): (stored.op, stored.id, stored.name) = ("rename", id, name)
            case .delete(let id): (stored.op, stored.id) = ("delete", id)
            case .add(let id, let item, let at): (stored.op, stored.id, stored.item, stored.at) = ("add", id, item, at)
            case .remove(let id, let at): (stored.op, stored.id, stored.at) = ("remove", id, at)
            case .replace(let id, let at, let with):
                (stored.op, stored.id, stored.at, stored.item) = ("replace", id, at, with)
            }
        case .fileShows(let digest, let revision):
            (stored.listd, stored.digest, stored.revision) = ("fileShows", digest, revision)
        case .order(let ids, let revision):
            (stored.listd, stored.ids, stored.revision) = ("order", ids, revision)
        case .fullChange(let change):
            // Never written; kept encodable so an old log's line round-trips in tests.
            return
                (try? RPCEncoding.requestBytes(
                    id: nil,
                    method: ListEventName(change.kind).rawValue,
                    params: ListChangeParams(change)
                )) ?? []
        }
        return (try? JSONWriter.encode(stored)) ?? []
    }

    /// The entry a line holds, or nil when it is not one (torn or damaged).
    init?(line: some Collection<UInt8>) {
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
        case ("create", let name?, let items?, _, _): operation = .create(id: id, name: name, items: items)
        case ("rename", let name?, _, _, _): operation = .rename(id: id, to: name)
        case ("delete", _, _, _, _): operation = .delete(id: id)
        case ("add", _, _, let item?, let at?): operation = .add(id: id, item: item, at: at)
        case ("remove", _, _, _, let at?): operation = .remove(id: id, at: at)
        case ("replace", _, _, let item?, let at?): operation = .replace(id: id, at: at, with: item)
        default: return nil
        }
        let time = Timestamp(millisecondsSinceEpoch: milliseconds)
        return .change(ChangeRecord(revision: revision, time: time, origin: origin, operation: operation))
    }

    private static func note(_ fields: [String: JSONValue]) -> LogEntry? {
        guard let revision = fields.int("revision") else { return nil }
        switch fields["listd"]?.stringValue {
        case "fileShows": return fields["digest"]?.stringValue.map { .fileShows(digest: $0, revision: revision) }
        case "order": return fields.ints("ids").map { .order($0, revision: revision) }
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

    /// Every field any entry has; the names are short because there is one line per change.
    private struct StoredEntry: Encodable {
        var r: Revision?
        var t: Int64?
        var o: ChangeOrigin?
        var op: String?
        var id: ListID?
        var name: String?
        var items: [String]?
        var item: String?
        var at: Int?
        var listd: String?
        var digest: String?
        var revision: Revision?
        var ids: [ListID]?
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
            self = .file
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
        case .didRejectFileEdit, .didDenyChange: return nil
        }
    }
}
