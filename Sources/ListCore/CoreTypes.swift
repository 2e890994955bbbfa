import ListFileFormat
import ListModel
import ListRPC

/// Why an edit was not applied.
public enum EditFailure: Error, Sendable, Equatable {
    case denied(ListError)
    case fileInvalid(path: String, line: Int, byteOffset: Int)
    case deniedByDelegate([DelegateDenial], timedOut: [String])
    case storageFailed(String)
    /// The shared lists' server cannot be reached (`--share`): the sentence names it and why.
    case unavailable(String)
    case shuttingDown
}

/// A client's edit as the core is asked to decide it: what, on what condition, by whom; and, for
/// an edit made away from listd (an offline phone's queue), its own id and the lists it was made on.
public struct ClientEdit: Sendable {
    public var edit: ListEdit
    public var ifRevision: Revision? = nil
    public var origin: ChangeOrigin
    public var undoes: Revision? = nil
    /// The client's id for it: a resend is answered as the first was, and applied once.
    public var editId: String? = nil
    /// The change the kept history says carried `editId`: it was applied already.
    public var appliedAt: Revision? = nil
    /// The lists it was made on (`basedOn`): it is merged as a save of an old copy is
    /// (`SaveMerge`): an edit of an item someone else changed or removed since is not taken.
    public var base: SaveBase? = nil
    /// What the client may change (`hello {rights}`): an edit that needs more is denied, however
    /// it was planned (an undo's reversal too).
    public var rights: ClientRights = .all

    public init(edit: ListEdit, ifRevision: Revision? = nil, origin: ChangeOrigin, undoes: Revision? = nil, editId: String? = nil, appliedAt: Revision? = nil, base: SaveBase? = nil, rights: ClientRights = .all) {
        self.edit = edit
        self.ifRevision = ifRevision
        self.origin = origin
        self.undoes = undoes
        self.editId = editId
        self.appliedAt = appliedAt
        self.base = base
        self.rights = rights
    }
}

/// A confirmed edit: the list it left, and the items delegates kept from an edit of several items.
public struct EditOutcome: Sendable, Equatable {
    public var list: ShoppingList
    public var kept: [KeptItem] = []
    /// The revision of the change the edit made; nil when it changed nothing.
    public var revision: Revision?
    /// What the change did (none when it changed nothing).
    public var steps: [ListChange.Step] = []
}

/// Who is waiting for a delegates' verdict: a client's proposal, one item of a proposal that edits
/// several (`ListEdit.parts`), or one edit of a person's save.
public enum Asker: Hashable, Sendable {
    case proposal(Int)
    case proposalPart(Int, part: Int)
    case saveEdit(save: Int, index: Int)
}

/// What the delegates said about one question.
public struct DelegateVerdict: Sendable, Equatable {
    public var denials: [DelegateDenial] = []
    public var timedOut: [String] = []
    var denied = false
    /// Some delegate was asked (time passed, so a person may have saved again meanwhile).
    var consulted = false

    public static let allowed = DelegateVerdict()
}

/// What a read of the list file is checked against: the lists the file last showed (`known`),
/// the kept history (the lists at any revision a save's headings name) and the texts of the file
/// that were on disk lately (listd's and saves'), one of which a person's editor may hold.
public struct FileReadRequest: Sendable {
    public var known: ListBook
    public var history: ChangeHistory? = nil
    public var versions: [FileVersion] = []

    public init(known: ListBook, history: ChangeHistory? = nil, versions: [FileVersion] = []) {
        self.known = known
        self.history = history
        self.versions = versions
    }
}

/// A person's save as the file shell read it: its edits from the version the person's editor
/// read (`base`), computed off the owner's loop (a big save's diff never stalls it).
public struct SaveEdits: Sendable {
    public var base: SaveBase
    public var edits: [FileEdit]

    public init(base: SaveBase, edits: [FileEdit]) {
        self.base = base
        self.edits = edits
    }
}

/// The list file as the file shell read it.
public enum FileContent: Sendable {
    case missing
    /// Its bytes; `reading` is nil when they are not UTF-8 text. `known` is the lists the
    /// reading was tied to (the core asks again when its own view moved meanwhile); `edits`, the
    /// save's edits, when the shell computed them.
    case bytes([UInt8], reading: ListFileReading?, known: ListBook, edits: SaveEdits?)
}

extension FileContent {
    /// The file is there and holds nothing but white space (or nothing).
    var isBlank: Bool {
        guard case .bytes(let bytes, _, _, _) = self else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
    }
}

/// A rewrite of the list file the core asked for, rendered by the file shell.
public struct RenderedFile: Sendable {
    public var bytes: [UInt8]
    public var reading: ListFileReading
    /// The lists it shows.
    public var book: ListBook

    public init(bytes: [UInt8], reading: ListFileReading, book: ListBook) {
        self.bytes = bytes
        self.reading = reading
        self.book = book
    }
}

/// What the journal is told (`JournalEntries` writes it).
public enum JournalEntry: Sendable {
    case applied(ListChange)
    /// Applied on another machine sharing the lists (`--share`), taken in here.
    case remote(ListChange, machine: String)
    /// Denied by a rule; `list` is the list the edit was about, when it exists.
    case denied(ListError, edit: ListEdit, origin: ChangeOrigin, list: ShoppingList?)
    case deniedByDelegates(DelegateQuestion, verdict: DelegateVerdict, origin: ChangeOrigin, list: ShoppingList?)
    case fileRejected(FileRejectionParams)
    case fileEmptied(path: String, deleted: Bool)
    case storageFailed(DaemonError, edits: Int)
    case fileWriteFailed(DaemonError)
    case fileWrittenAgain(path: String)
    /// A person's save settled (at debug level: how long it took, for the quiet period).
    case fileSettled(events: Int, span: Duration)
}

/// What the core asks its shells to do, in order (`ListCore.handle` returns them). "Feed" names
/// the `CoreEvent` the shell delivers when it is done.
public enum CoreAction: Sendable {
    /// Delegate shell: send the question to its delegate and start its timer (which feeds
    /// `delegateReplied(id, .timedOut)`); its answer feeds `delegateReplied`.
    case putQuestion(DelegatePanel.Put)
    /// Delegate shell: the question ended before its timer fired: cancel it.
    case endQuestion(String)
    /// Delegate shell: this delegate is no longer asked; tell it so, and the journal.
    case dropDelegate(DelegatePanel.Seat)
    /// Persistence: make these durable with one flush, then feed `appended` or `appendFailed`.
    case append([LogEntry])
    /// Subscription hub: these changes are durable; the committed lists are now `book`.
    case publish([ListChange], records: [ChangeRecord], book: ListBook)
    /// A client's proposal is decided.
    case reply(Int, Result<EditOutcome, EditFailure>)
    /// `didDenyChange` subscribers hear of a proposal delegates refused.
    case announceDenial(DeniedChangeParams)
    /// `didRejectFileEdit` subscribers hear what of a save was not taken.
    case announceRejection(FileRejectionParams)
    case journal(JournalEntry)
    /// File shell: read the list file (no save is under way: the core asks only once one has
    /// settled), tie it to the lists the request names and find the version it was made from,
    /// then feed `fileRead`.
    case readFile(FileReadRequest)
    /// File shell: render `book` onto `reading` (marking `rejected` lines, writing `notes` under
    /// their lists' headings), then feed `fileRendered`.
    case renderFile(book: ListBook, reading: ListFileReading?, rejected: [Int: String], notes: [ListID: [String]])
    /// File shell: replace the list file by `file` unless it no longer holds `expecting`, then
    /// feed `fileReplaced`.
    case replaceFile(RenderedFile, expecting: [UInt8]?)
    /// Feed `writeDue` after this long.
    case scheduleWrite(after: Duration)
    /// Feed `fileRecheckDue` after this long (an emptied file is given time to be filled).
    case recheckFile(after: Duration)
    /// Feed `settleCheckDue` after this long (a save is over once the file is left alone).
    case checkSettled(after: Duration)
    /// Shared lists: fetch what other machines committed, take it in, then feed `fetched`
    /// (or `fetchFailed`): client edits the rules denied wait for it (`heldForCatchUp`).
    case catchUp
    /// Shared lists: what a fetch brought was overtaken (this listd appended meanwhile): fetch
    /// again, for the same edits (`catchingUp`) as the one before.
    case fetchAgain(catchingUp: Bool)
    /// The lists, the subscribers or the file's state changed (a status line is due).
    case statusChanged
}

/// How a write of the list file ended.
public enum FileReplaceOutcome: Sendable {
    case written
    /// A person saved meanwhile: nothing was written; their save is read next.
    case changedWhileWriting
    case failed(DaemonError)
}

extension ListEdit {
    /// The queue this edit waits in behind earlier edits of the same list: one per list, and a
    /// create queues on the name it would take. nil when the list does not exist.
    func gateKey(in book: ListBook) -> String? {
        if case .createList(let name, _, _) = self { return "name:\(ListText.key(name))" }
        if case .restoreList(let list) = self { return "name:\(ListText.key(list.name))" }
        guard let target, let list = try? book.list(target) else { return nil }
        return "list:\(list.id)"
    }
}

extension ListEdit {
    /// The name a create or a rename gives (what a delegate of lists by name is asked about).
    var proposedName: String? {
        switch self {
        case .createList(let name, _, _), .renameList(_, let name): ListText.trimmed(name)
        case .restoreList(let list): list.name
        default: nil
        }
    }
}

extension DelegateQuestionParams {
    /// The question an edit raises about `list` (as it will be when the edit is applied).
    init(_ edit: ListEdit, list: ShoppingList?, origin: ChangeOrigin, revision: Revision) {
        self.init(list: list, name: nil, item: nil, with: nil, items: nil, origin: origin, revision: revision)
        switch edit {
        case .createList(let name, let items, _):
            self.name = ListText.trimmed(name)
            self.items = items.map(ListText.trimmed)
        case .renameList(_, let name):
            self.name = ListText.trimmed(name)
        case .deleteList:
            break
        case .restoreList(let restored):
            self.name = restored.name
            self.items = Array(restored.items)
        case .addItem(let item, _, _, let section, let quantity):
            self.item = ListText.trimmed(item)
            self.section = section.map(ListText.trimmed)
            self.quantity = quantity.map(ListText.trimmed)
        case .restoreItem(let placed, _):
            // Put back as it was: asked as a move into its section, with its box and amount.
            self.item = placed.text
            self.section = placed.section ?? ""
            self.quantity = placed.quantity
        case .moveItemInto(let item, _, let section, let before):
            self.item = ListText.trimmed(item)
            self.section = section.map(ListText.trimmed)
            self.with = before.map(ListText.trimmed)
        case .setQuantity(let item, _, let quantity):
            self.item = ListText.trimmed(item)
            self.quantity = quantity.map(ListText.trimmed)
        case .moveItem(let item, _, let after, let section):
            // A line moved in the file, asked as a client's move is: the section it goes into
            // ("" none), and in `with` the item it goes before.
            self.item = ListText.trimmed(item)
            if let list {
                let key = ListText.key(item)
                let others = list.items.filter { ListText.key($0) != key }
                let next = after.map { after in others.firstIndex { ListText.key($0) == ListText.key(after) }.map { $0 + 1 } ?? others.count } ?? 0
                self.with = others.indices.contains(next) ? others[next] : nil
                self.section = section.map(ListText.trimmed) ?? list.index(ofItem: item).map { list.sectionName(list.section(ofItemAt: $0)) }
            } else {
                self.section = section.map(ListText.trimmed)
            }
        case .removeItem(let item, _), .checkItem(let item, _), .uncheckItem(let item, _):
            self.item = ListText.trimmed(item)
        case .addSection(let section, _, _), .restoreSection(let section, _, _, _):
            self.op = "add"
            self.section = ListText.trimmed(section)
        case .removeSection(let section, _):
            self.op = "remove"
            self.section = ListText.trimmed(section)
        case .renameSection(let section, _, let to):
            self.op = "rename"
            self.section = ListText.trimmed(section)
            self.to = ListText.trimmed(to)
        case .replaceItem(let item, let with, _):
            self.item = ListText.trimmed(item)
            self.with = ListText.trimmed(with)
        case .clearChecked, .restoreItems, .removeItems:
            break  // asked item by item (`ListEdit.parts`)
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

/// What one registered delegate wants to be asked: the core asks only questions some delegate
/// wants (a quiet edit, or a save's every line, is decided without a round trip through the
/// shells).
public struct DelegateInterest: Sendable, Equatable {
    public var questions: Set<DelegateQuestion>
    /// nil: every list.
    public var lists: Set<ListID>?
    /// Name keys (from name references) that also match creates.
    public var listNames: Set<String>

    func wants(_ question: DelegateQuestion, list: ListID?, nameKey: String?) -> Bool {
        guard questions.contains(question) else { return false }
        guard let lists else { return true }
        if let list, lists.contains(list) { return true }
        if list == nil, let nameKey { return listNames.contains(nameKey) }
        return false
    }

    public init(questions: Set<DelegateQuestion>, lists: Set<ListID>? = nil, listNames: Set<String>) {
        self.questions = questions
        self.lists = lists
        self.listNames = listNames
    }
}

