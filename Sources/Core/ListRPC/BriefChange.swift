import ListModel

/// A list without its items: what a brief client (`hello {brief: true}`) gets in a confirm and
/// in every notification, so neither grows with the list.
public struct ListSummary: Codable, Sendable, Hashable {
    /// The list's id.
    public var id: ListID
    /// Its name.
    public var name: String
    /// The revision of its last change.
    public var revision: Revision
    /// When it last changed.
    public var edited: Timestamp

    /// A summary.
    public init(id: ListID, name: String, revision: Revision, edited: Timestamp) {
        self.id = id
        self.name = name
        self.revision = revision
        self.edited = edited
    }

    /// `list` without its items.
    public init(_ list: ShoppingList) {
        self.init(id: list.id, name: list.name, revision: list.revision, edited: list.edited)
    }
}

/// One step of a change as a brief subscriber hears it: with the item's place, so the list can
/// be followed exactly from the steps alone. `index` is where the item is after the step (for
/// `remove`, where it was); a `move` also says where it came `from`.
public struct BriefStep: Codable, Sendable, Hashable {
    /// The step's kind (`add`, `move`, …, as `ListChange.Step.Kind` names them).
    public var op: String
    /// The item it concerns.
    public var item: String?
    /// A replace's new text.
    public var with: String?
    /// A rename's old name (of the list or the section).
    public var from: String?
    /// A rename's new name.
    public var to: String?
    /// Where the item is after the step (for `remove`, where it was).
    public var index: Int?
    /// For a move: the place the item left.
    public var fromIndex: Int?
    /// The section an added or moved item is in ("" for none), or that a section step names.
    public var section: String?
    /// An item's amount (an add's, or a `quantity` step's; absent: none).
    public var quantity: String?

    /// A step, each field as the protocol names it.
    public init(
        op: String,
        item: String? = nil,
        with: String? = nil,
        from: String? = nil,
        to: String? = nil,
        index: Int? = nil,
        fromIndex: Int? = nil,
        section: String? = nil,
        quantity: String? = nil
    ) {
        self.op = op
        self.item = item
        self.with = with
        self.from = from
        self.to = to
        self.index = index
        self.fromIndex = fromIndex
        self.section = section
        self.quantity = quantity
    }

    /// The step a change's record describes (its positions come from the record).
    package init(_ record: ChangeRecord, step: ListChange.Step?) {
        switch (record.operation, step) {
        case (.add(_, let item, let at, _, _, let quantity), _):
            // Its section is named by `steps(_:_:in:)`, which has the list.
            self.init(op: "add", item: item, index: at, quantity: quantity)
        case (.remove(_, let at), .remove(let item)?):
            self.init(op: "remove", item: item, index: at)
        case (.replace(_, let at, let with), .replace(let item, _)?):
            self.init(op: "replace", item: item, with: with, index: at)
        case (.move(_, let from, let to, _), .move(let item, _, let section)?):
            self.init(op: "move", item: item, index: to, fromIndex: from, section: section)
        case (.addSection(_, let name, let at, _), _):
            self.init(op: "addSection", index: at, section: name)
        case (.renameSection(_, let at, let name), .renameSection(let old, _)?):
            self.init(op: "renameSection", from: old, to: name, index: at)
        case (.removeSection(_, let at), .removeSection(let name)?):
            self.init(op: "removeSection", index: at, section: name)
        case (.setQuantity(_, let at, let quantity), .quantity(let item, _)?):
            self.init(op: "quantity", item: item, index: at, quantity: quantity)
        case (.rename(_, let name), .rename(let old, _)?):
            self.init(op: "rename", from: old, to: name)
        case (.check(_, let at), .check(let item)?):
            self.init(op: "check", item: item, index: at)
        case (.uncheck(_, let at), .uncheck(let item)?):
            self.init(op: "uncheck", item: item, index: at)
        default:
            self.init(op: "none")
        }
    }

    /// Every step of a change as its record describes it, each with the place it has when the
    /// steps before it are done (so a brief subscriber follows them in order).
    /// `list`: the list after the change (its sections name the section an add went into).
    package static func steps(_ record: ChangeRecord, _ steps: [ListChange.Step], in list: ShoppingList) -> [BriefStep] {
        switch record.operation {
        case .removeItems(_, let placed):
            // Places before the change, ascending: each earlier removal moved the later ones up.
            return placed.enumerated().map { BriefStep(op: "remove", item: $1.text, index: $1.at - $0) }
        case .insertItems(_, let placed):
            return placed.flatMap { item in
                let add = BriefStep(op: "add", item: item.text, index: item.at, section: item.section ?? "", quantity: item.quantity)
                return item.checked ? [add, BriefStep(op: "check", item: item.text, index: item.at)] : [add]
            }
        case .restate(_, let from, let to, let section, _, _, _):
            // Each step at the place it has when the ones before it are done.
            return steps.map { step in
                switch step {
                case .addSection(let name): BriefStep(op: "addSection", index: section, section: name)
                case .check(let item): BriefStep(op: "check", item: item, index: from)
                case .uncheck(let item): BriefStep(op: "uncheck", item: item, index: from)
                case .move(let item, _, let name): BriefStep(op: "move", item: item, index: to, fromIndex: from, section: name)
                case .quantity(let item, let quantity): BriefStep(op: "quantity", item: item, index: to, quantity: quantity)
                default: BriefStep(op: "none")
                }
            }
        case .add(_, _, _, let section, let newSection, _):
            var add = BriefStep(record, step: steps.last)
            add.section = section.flatMap { list.sections.indices.contains($0) ? list.sections[$0].name : nil } ?? ""
            // A section it made comes first.
            guard let section, let newSection else { return [add] }
            return [BriefStep(op: "addSection", index: section, section: newSection), add]
        default:
            return [BriefStep(record, step: steps.first)]
        }
    }
}

extension BriefStep {
    /// The step as a whole notification names it (without the places), for a reader that prints
    /// it; nil for a step listd does not send.
    public var step: ListChange.Step? {
        switch op {
        case "add": item.map { .add(item: $0, quantity: quantity, section: section.flatMap { $0.isEmpty ? nil : $0 }) }
        case "remove": item.map { .remove(item: $0) }
        case "replace": item.flatMap { item in with.map { .replace(item: item, with: $0) } }
        case "rename": from.flatMap { from in to.map { .rename(from: from, to: $0) } }
        case "move": item.flatMap { item in index.map { .move(item: item, to: $0, section: section ?? "") } }
        case "check": item.map { .check(item: $0) }
        case "uncheck": item.map { .uncheck(item: $0) }
        case "addSection": section.map { .addSection(section: $0) }
        case "renameSection": from.flatMap { from in to.map { .renameSection(from: from, to: $0) } }
        case "removeSection": section.map { .removeSection(section: $0) }
        case "quantity": item.map { .quantity(item: $0, quantity: quantity) }
        default: nil
        }
    }
}

/// The params of a change notification to a brief subscriber: the list without its items; the
/// steps with their places; for a created list, the items it was created with.
public struct BriefChangeParams: Codable, Sendable, Hashable {
    /// The change's daemon-wide revision.
    public var revision: Revision
    /// The list after the change, without its items.
    public var list: ListSummary
    /// Who made the change.
    public var origin: ChangeOrigin
    /// Its steps, each with the item's place.
    public var changes: [BriefStep]
    /// Only for `didCreateShoppingList`: the new list's items, in order, and the checked ones
    /// (a deleted list put back by an undo has its checks).
    public var items: [String]?
    /// Only for `didCreateShoppingList`: the items ticked off.
    public var checked: [String]?
    /// Only for `didCreateShoppingList`, when the list has them: its sections with their items,
    /// and its items' amounts.
    public var sections: [BriefSection]?
    /// Only for `didCreateShoppingList`: its items' amounts, by item.
    public var quantities: [String: String]?
    /// The change this one undoes, when it undoes one.
    public var undoes: Revision?

    /// The params, each as the protocol names it.
    public init(
        revision: Revision,
        list: ListSummary,
        origin: ChangeOrigin,
        changes: [BriefStep],
        items: [String]?,
        checked: [String]? = nil,
        sections: [BriefSection]? = nil,
        quantities: [String: String]? = nil,
        undoes: Revision? = nil
    ) {
        self.revision = revision
        self.list = list
        self.origin = origin
        self.changes = changes
        self.items = items
        self.checked = checked
        self.sections = sections
        self.quantities = quantities
        self.undoes = undoes
    }

    /// `change` (its list's items are not needed) as its `record` describes it.
    package init(_ change: ListChange, record: ChangeRecord) {
        var items: [String]?
        var checked: [String]?
        var sections: [BriefSection]?
        var quantities: [String: String]?
        var steps: [BriefStep] = []
        switch record.operation {
        case .create(_, _, let created, let ticked, let parts, let amounts):
            items = created
            checked = ticked
            if !parts.isEmpty {
                // The sections' items are the list's last ones, in order.
                var start = created.count - parts.reduce(0) { $0 + $1.count }
                sections = parts.map { part in
                    defer { start += part.count }
                    return BriefSection(name: part.name, items: Array(created[max(start, 0)..<min(start + part.count, created.count)]))
                }
            }
            quantities = amounts.isEmpty ? nil : amounts
        case .delete: break
        default: steps = BriefStep.steps(record, change.steps, in: change.list)
        }
        self.init(
            revision: change.revision,
            list: ListSummary(change.list),
            origin: change.origin,
            changes: steps,
            items: items,
            checked: checked,
            sections: sections,
            quantities: quantities,
            undoes: change.undoes
        )
    }
}

/// A section of a list a brief `didCreateShoppingList` makes: its name and items, in order.
public struct BriefSection: Codable, Sendable, Hashable {
    /// The section's name.
    public var name: String
    /// Its items, in order.
    public var items: [String]

    /// A section.
    public init(name: String, items: [String]) {
        self.name = name
        self.items = items
    }
}

/// A question to a brief delegate (`hello {brief: true}`): every field of the default form, with
/// the list without its items, so no question grows with the list (a save of 10,000 lines asks
/// 10,000 of them).
public typealias BriefQuestionParams = QuestionParams<ListSummary>

extension QuestionParams where ListForm == ListSummary {
    /// `question` with its list's summary.
    public init(_ question: DelegateQuestionParams) {
        self = question.withList(ListSummary.init)
    }
}
