// What the core asks delegates: who asks (`Asker`), what a question says of an edit, which
// delegates want it (`DelegateInterest`), and the verdict of all who were asked.
import ListFileFormat
import ListModel

/// Who is waiting for a delegates' verdict: a client's proposal, one item of a proposal that edits
/// several (`ListEdit.parts`), or one edit of a person's save.
package enum Asker: Hashable, Sendable {
    case proposal(Int)
    case proposalPart(Int, part: Int)
    case saveEdit(save: Int, index: Int)
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

/// What one registered delegate wants to be asked: the core asks only questions some delegate
/// wants (a quiet edit, or a save's every line, is decided without a round trip through the
/// shells).
package struct DelegateInterest: Sendable, Equatable {
    package var questions: Set<DelegateQuestion>
    /// nil: every list.
    package var lists: Set<ListID>?
    /// Name keys (from name references) that also match creates.
    package var listNames: Set<String>

    func wants(_ question: DelegateQuestion, list: ListID?, nameKey: String?) -> Bool {
        guard questions.contains(question) else { return false }
        guard let lists else { return true }
        if let list, lists.contains(list) { return true }
        if list == nil, let nameKey { return listNames.contains(nameKey) }
        return false
    }

    package init(questions: Set<DelegateQuestion>, lists: Set<ListID>? = nil, listNames: Set<String>) {
        self.questions = questions
        self.lists = lists
        self.listNames = listNames
    }
}

/// What the delegates said about one question.
package struct DelegateVerdict: Sendable, Equatable {
    package var denials: [DelegateDenial] = []
    package var timedOut: [String] = []
    var denied = false
    /// Some delegate was asked (time passed, so a person may have saved again meanwhile).
    var consulted = false

    package static let allowed = DelegateVerdict()
}
