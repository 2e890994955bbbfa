// A client's edit as the core receives it (`ClientEdit`), the queue it waits in and how it is
// split for delegates, and how it ends (`EditOutcome`, `EditFailure`).
import ListFileFormat
import ListModel

/// A client's edit as the core is asked to decide it: what, on what condition, by whom; and, for
/// an edit made away from listd (an offline phone's queue), its own id and the lists it was made on.
package struct ClientEdit: Sendable {
    package var edit: ListEdit
    package var ifRevision: Revision? = nil
    package var origin: ChangeOrigin
    package var undoes: Revision? = nil
    /// The client's id for it: a resend is answered as the first was, and applied once.
    package var editId: String? = nil
    /// The change the kept history says carried `editId`: it was applied already.
    package var appliedAt: Revision? = nil
    /// The lists it was made on (`basedOn`): it is merged as a save of an old copy is
    /// (`SaveMerge`): an edit of an item someone else changed or removed since is not taken.
    package var base: SaveBase? = nil
    /// What the client may change (`hello {rights}`): an edit that needs more is denied, however
    /// it was planned (an undo's reversal too).
    package var rights: ClientRights = .all
    /// An add that is confirmed, changing nothing, when what it adds is there already (an item
    /// on the list unticked, a list of that name): automation's "make sure milk is on it".
    package var ifAbsent = false
    /// Its confirm shows the list's summary, not its items (a brief connection's edit): the
    /// outcome holds the list without them. A confirm waits for its batch to be durable, and one
    /// holding the whole list would make the next edit of that list in the pass copy its items.
    package var summaryOnly = false

    package init(edit: ListEdit, ifRevision: Revision? = nil, origin: ChangeOrigin, undoes: Revision? = nil, editId: String? = nil, appliedAt: Revision? = nil, base: SaveBase? = nil, rights: ClientRights = .all, ifAbsent: Bool = false, summaryOnly: Bool = false) {
        self.edit = edit
        self.ifRevision = ifRevision
        self.origin = origin
        self.undoes = undoes
        self.editId = editId
        self.appliedAt = appliedAt
        self.base = base
        self.rights = rights
        self.ifAbsent = ifAbsent
        self.summaryOnly = summaryOnly
    }

    /// `list` as this edit's confirm holds it (`summaryOnly`).
    package func shown(_ list: ShoppingList) -> ShoppingList {
        summaryOnly ? list.withoutItems : list
    }
}

/// A confirmed edit: the list it left, and the items delegates kept from an edit of several items.
package struct EditOutcome: Sendable, Equatable {
    package var list: ShoppingList
    package var kept: [KeptItem] = []
    /// The revision of the change the edit made; nil when it changed nothing.
    package var revision: Revision?
    /// What the change did (none when it changed nothing).
    package var steps: [ListChange.Step] = []
    /// A resend of an `editId` applied before: `revision` is that change's, nothing was done now.
    package var resent = false
}

/// Why an edit was not applied.
package enum EditFailure: Error, Sendable, Equatable {
    case denied(ListError)
    case fileInvalid(path: String, line: Int, byteOffset: Int)
    case deniedByDelegate([DelegateDenial], timedOut: [String])
    case storageFailed(String)
    /// The shared lists' server cannot be reached (`--share`): the sentence names it and why.
    case unavailable(String)
    /// Whether the change was made is not known (a shared store's COMMIT went unanswered, and the
    /// server was not reached again within `inDoubtAnswerBound`, or listd stopped first).
    case outcomeUnknown(String)
    case shuttingDown
}

extension ListEdit {
    /// The queue this edit waits in behind earlier edits of the same list: one per list, and a
    /// create queues on the name it would take. nil when the list does not exist.
    func gateKey(in book: ListBook) -> GateKey? {
        if case .createList(let name, _, _) = self { return .name(ListText.key(name)) }
        if case .restoreList(let list) = self { return .name(ListText.key(list.name)) }
        guard let target, let id = book.id(of: target) else { return nil }
        return .list(id)
    }
}

/// Which queue an edit waits in (`ListCore.queues`): its list's, or, for a list still to be
/// made, its name's (by `ListText.key`). A value, not a string made and hashed for every edit.
package enum GateKey: Hashable, Comparable {
    case list(ListID)
    case name(String)

    /// The order a save's parts join their queues in: as the keys read (`list:12` before
    /// `list:2`, lists before names), the order they had as strings.
    package static func < (left: GateKey, right: GateKey) -> Bool { left.text < right.text }

    private var text: String {
        switch self {
        case .list(let id): "list:\(id)"
        case .name(let key): "name:\(key)"
        }
    }
}

extension ListEdit {
    /// An edit of several items as one edit per item, as delegates are asked about it (each
    /// `shouldRemove` or `shouldAdd`); nil for an edit of one thing.
    func parts(on book: ListBook) -> [ListEdit]? {
        switch self {
        case .clearChecked(let reference, let keeping, let only):
            guard let list = try? book.list(reference) else { return [] }
            return list.checkedItems.filter { !keeping.contains(ListText.key($0)) && only?.contains(ListText.key($0)) ?? true }
                .map { .removeItem($0, from: reference) }
        case .removeItems(let items, let reference):
            return items.map { .removeItem($0, from: reference) }
        case .restoreItems(let placed, let reference):
            return placed.map { .addItem($0.text, to: reference) }
        default:
            return nil
        }
    }

    /// This edit of several items without the items delegates refused (their keys).
    func leavingOut(_ refused: Set<String>) -> ListEdit {
        guard !refused.isEmpty else { return self }
        switch self {
        case .clearChecked(let reference, let keeping, let only):
            return .clearChecked(reference, keeping: keeping.union(refused), only: only)
        case .removeItems(let items, let reference):
            return .removeItems(items.filter { !refused.contains(ListText.key($0)) }, from: reference)
        case .restoreItems(let placed, let reference):
            return .restoreItems(placed.filter { !refused.contains(ListText.key($0.text)) }, to: reference)
        default:
            return self
        }
    }
}
