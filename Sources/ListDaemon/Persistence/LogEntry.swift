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
            case .create(let id, let name, let items): (stored.op, stored.id, stored.name, stored.items) = ("create", id, name, items)
            case .rename(let id, let name): (stored.op, stored.id, stored.name) = ("rename", id, name)
            case .delete(let id): (stored.op, stored.id) = ("delete", id)
            case .add(let id, let item, let at): (stored.op, stored.id, stored.item, stored.at) = ("add", id, item, at)
            case .remove(let id, let at): (stored.op, stored.id, stored.at) = ("remove", id, at)
            case .replace(let id, let at, let with): (stored.op, stored.id, stored.at, stored.item) = ("replace", id, at, with)
            }
        case .fileShows(let digest, let revision):
            (stored.listd, stored.digest, stored.revision) = ("fileShows", digest, revision)
        case .order(let ids, let revision):
            (stored.listd, stored.ids, stored.revision) = ("order", ids, revision)
        case .fullChange(let change):
            // Never written; kept encodable so an old log's line round-trips in tests.
            return (try? RPCEncoding.requestBytes(id: nil, method: ListEventName(change.kind).rawValue, params: ListChangeParams(change))) ?? []
        }
        return (try? JSONWriter.encode(stored)) ?? []
    }

    /// The entry a line holds, or nil when it is not one (torn or damaged).
    init?(line: some Collection<UInt8>) {
        guard let stored = try? RPCEncoding.decode(StoredEntry.self, fromJSON: line) else { return nil }
        if let entry = stored.entry { self = entry } else { return nil }
    }

    /// Every field any entry has; the names are short because there is one line per change.
    private struct StoredEntry: Codable {
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
        // An older log's change line.
        var method: String?
        var params: ListChangeParams?

        var entry: LogEntry? {
            if let r, let t, let o, let op, let id {
                let operation: ChangeRecord.Operation
                switch (op, name, items, item, at) {
                case ("create", let name?, let items?, _, _): operation = .create(id: id, name: name, items: items)
                case ("rename", let name?, _, _, _): operation = .rename(id: id, to: name)
                case ("delete", _, _, _, _): operation = .delete(id: id)
                case ("add", _, _, let item?, let at?): operation = .add(id: id, item: item, at: at)
                case ("remove", _, _, _, let at?): operation = .remove(id: id, at: at)
                case ("replace", _, _, let item?, let at?): operation = .replace(id: id, at: at, with: item)
                default: return nil
                }
                return .change(ChangeRecord(revision: r, time: Timestamp(millisecondsSinceEpoch: t), origin: o, operation: operation))
            }
            if let method, let params, let event = ListEventName(rawValue: method), let kind = ListChange.Kind(event) {
                return .fullChange(ListChange(kind: kind, revision: params.revision, list: params.list, steps: params.changes, origin: params.origin))
            }
            switch (listd, revision) {
            case ("fileShows", let revision?): return digest.map { .fileShows(digest: $0, revision: revision) }
            case ("order", let revision?): return ids.map { .order($0, revision: revision) }
            default: return nil
            }
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
