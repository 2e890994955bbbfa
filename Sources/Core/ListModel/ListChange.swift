/// What one applied edit did, as subscribers and the journal are told.
public struct ListChange: Hashable, Sendable {
    /// What happened to the list, as a whole.
    public enum Kind: String, Hashable, Sendable, CaseIterable, Codable {
        /// It was created (`didCreateShoppingList`).
        case created
        /// Its items, ticks, amounts or sections changed (`didUpdateShoppingList`).
        case updated
        /// It was renamed (`didRenameShoppingList`).
        case renamed
        /// It was deleted (`didDeleteShoppingList`).
        case deleted
    }

    /// One step inside a change.
    public enum Step: Hashable, Sendable {
        /// With the amount it was added with and the section it went into, when it has them.
        case add(item: String, quantity: String? = nil, section: String? = nil)
        /// The item's text was replaced (in its place, with its tick and amount).
        case replace(item: String, with: String)
        /// The item was taken off.
        case remove(item: String)
        /// The list was renamed.
        case rename(from: String, to: String)
        /// The item is now at `index` of the list's items, in `section` ("" for none).
        case move(item: String, to: Int, section: String = "")
        /// The item was ticked off (it stays on the list).
        case check(item: String)
        /// The item was unticked (also an `addItem` of a ticked item).
        case uncheck(item: String)
        /// A section was added (at the end, unless a move or an undo put it elsewhere).
        case addSection(section: String)
        /// A section was renamed.
        case renameSection(from: String, to: String)
        /// Its items joined the section above it (or none).
        case removeSection(section: String)
        /// The item's amount is now `quantity` (nil: none).
        case quantity(item: String, quantity: String?)
    }

    /// What happened to the list as a whole.
    public var kind: Kind
    /// The daemon-wide revision this change produced: exactly one more than the change before.
    public var revision: Revision
    /// The list after the change; for a delete, its last state.
    public var list: ShoppingList
    /// What it did, step by step.
    public var steps: [Step]
    /// Who made it.
    public var origin: ChangeOrigin
    /// The revision of the change this one undoes (`undo`), when it undoes one.
    public var undoes: Revision?

    /// A change, as listd made it.
    public init(
        kind: Kind,
        revision: Revision,
        list: ShoppingList,
        steps: [Step],
        origin: ChangeOrigin,
        undoes: Revision? = nil
    ) {
        self.kind = kind
        self.revision = revision
        self.list = list
        self.steps = steps
        self.origin = origin
        self.undoes = undoes
    }
}

extension ListChange {
    /// The same change with the list's items left out (its name, id, revision and time kept):
    /// what is kept of a change that must not hold the list's items (the next edit of the list
    /// would copy them), and what a brief subscriber is told.
    public var withoutItems: ListChange {
        var brief = self
        brief.list = list.withoutItems
        return brief
    }
}

extension ShoppingList {
    /// The list without its items (its name, id, revision and time kept): what is held of a list
    /// that must not share its items' storage with the working lists (the next edit of the list
    /// would copy them), and all a list's summary shows.
    public var withoutItems: ShoppingList {
        var brief = self
        brief.items = []
        brief.checked = []
        return brief
    }
}

extension ListChange.Step: Codable {
    private enum CodingKeys: String, CodingKey { case op, item, with, from, to, index, section, quantity }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .op) {
        case "add":
            self = .add(
                item: try container.decode(String.self, forKey: .item),
                quantity: try container.decodeIfPresent(String.self, forKey: .quantity),
                section: try container.decodeIfPresent(String.self, forKey: .section)
            )
        case "remove": self = .remove(item: try container.decode(String.self, forKey: .item))
        case "replace":
            self = .replace(
                item: try container.decode(String.self, forKey: .item),
                with: try container.decode(String.self, forKey: .with)
            )
        case "rename":
            self = .rename(
                from: try container.decode(String.self, forKey: .from),
                to: try container.decode(String.self, forKey: .to)
            )
        case "move":
            self = .move(
                item: try container.decode(String.self, forKey: .item),
                to: try container.decode(Int.self, forKey: .index),
                section: try container.decodeIfPresent(String.self, forKey: .section) ?? ""
            )
        case "check": self = .check(item: try container.decode(String.self, forKey: .item))
        case "uncheck": self = .uncheck(item: try container.decode(String.self, forKey: .item))
        case "addSection": self = .addSection(section: try container.decode(String.self, forKey: .section))
        case "renameSection":
            self = .renameSection(
                from: try container.decode(String.self, forKey: .from),
                to: try container.decode(String.self, forKey: .to)
            )
        case "removeSection": self = .removeSection(section: try container.decode(String.self, forKey: .section))
        case "quantity":
            self = .quantity(
                item: try container.decode(String.self, forKey: .item),
                quantity: try container.decodeIfPresent(String.self, forKey: .quantity)
            )
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .op,
                in: container,
                debugDescription: "unknown change “\(other)”"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .add(let item, let quantity, let section):
            try container.encode("add", forKey: .op)
            try container.encode(item, forKey: .item)
            try container.encodeIfPresent(quantity, forKey: .quantity)
            try container.encodeIfPresent(section, forKey: .section)
        case .remove(let item):
            try container.encode("remove", forKey: .op)
            try container.encode(item, forKey: .item)
        case .replace(let item, let with):
            try container.encode("replace", forKey: .op)
            try container.encode(item, forKey: .item)
            try container.encode(with, forKey: .with)
        case .rename(let from, let to):
            try container.encode("rename", forKey: .op)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
        case .move(let item, let index, let section):
            try container.encode("move", forKey: .op)
            try container.encode(item, forKey: .item)
            try container.encode(section, forKey: .section)
            try container.encode(index, forKey: .index)
        case .check(let item):
            try container.encode("check", forKey: .op)
            try container.encode(item, forKey: .item)
        case .uncheck(let item):
            try container.encode("uncheck", forKey: .op)
            try container.encode(item, forKey: .item)
        case .addSection(let section):
            try container.encode("addSection", forKey: .op)
            try container.encode(section, forKey: .section)
        case .renameSection(let from, let to):
            try container.encode("renameSection", forKey: .op)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
        case .removeSection(let section):
            try container.encode("removeSection", forKey: .op)
            try container.encode(section, forKey: .section)
        case .quantity(let item, let quantity):
            try container.encode("quantity", forKey: .op)
            try container.encode(item, forKey: .item)
            try container.encode(quantity, forKey: .quantity)
        }
    }
}

extension ListChange.Step: CustomStringConvertible {
    /// `added “milk”`, `checked “milk”`, `moved “milk” to place 3`: what a person reads.
    public var description: String {
        switch self {
        case .add(let item, let quantity, let section):
            "added “\(item)”" + (quantity.map { " (\($0))" } ?? "") + (section.map { " under \($0)" } ?? "")
        case .remove(let item): "removed “\(item)”"
        case .replace(let item, let with): "replaced “\(item)” with “\(with)”"
        case .rename(let from, _): "renamed from \(from)"
        case .move(let item, let index, ""): "moved “\(item)” to place \(index + 1)"
        case .move(let item, _, let section): "moved “\(item)” to \(section)"
        case .check(let item): "checked “\(item)”"
        case .uncheck(let item): "unchecked “\(item)”"
        case .addSection(let section): "added the section \(section)"
        case .renameSection(let from, let to): "renamed the section \(from) to \(to)"
        case .removeSection(let section): "removed the section \(section)"
        case .quantity(let item, let quantity?): "set “\(item)” to \(quantity)"
        case .quantity(let item, nil): "cleared the amount of “\(item)”"
        }
    }
}

extension ListChange.Step {
    /// A step's kind, as the protocol names it (`op`), for a subscriber that wants some only.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// `Step.add`.
        case add
        /// `Step.replace`.
        case replace
        /// `Step.remove`.
        case remove
        /// `Step.rename`.
        case rename
        /// `Step.move`.
        case move
        /// `Step.check`.
        case check
        /// `Step.uncheck`.
        case uncheck
        /// `Step.addSection`.
        case addSection
        /// `Step.renameSection`.
        case renameSection
        /// `Step.removeSection`.
        case removeSection
        /// `Step.quantity`.
        case quantity
    }

    /// This step's kind.
    public var kind: Kind {
        switch self {
        case .add: .add
        case .replace: .replace
        case .remove: .remove
        case .rename: .rename
        case .move: .move
        case .check: .check
        case .uncheck: .uncheck
        case .addSection: .addSection
        case .renameSection: .renameSection
        case .removeSection: .removeSection
        case .quantity: .quantity
        }
    }
}
