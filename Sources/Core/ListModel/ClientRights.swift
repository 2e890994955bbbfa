// What a client may change. A client that declares less (listd-web's pages: items only) is
// held to it wherever an edit is decided, so no method, undo or batch can widen it.

/// The kinds of change a client may make. Reading and subscribing need none.
public struct ClientRights: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Add, remove, rename, tick, untick, move and set the amount of items; clear ticked ones.
    public static let items = ClientRights(rawValue: 1 << 0)
    /// Add, rename and remove sections.
    public static let sections = ClientRights(rawValue: 1 << 1)
    /// Create, rename and delete lists.
    public static let lists = ClientRights(rawValue: 1 << 2)
    /// Register as a delegate (be asked before others' edits).
    public static let delegate = ClientRights(rawValue: 1 << 3)

    /// What a client has until it declares less.
    public static let all: ClientRights = [.items, .sections, .lists, .delegate]

    /// Each right by the name a client gives it (`hello {rights: [...]}`).
    public static let names: [(name: String, right: ClientRights)] = [
        ("items", .items), ("sections", .sections), ("lists", .lists), ("delegate", .delegate),
    ]

    /// The rights these names give, or the first name that is not a right's.
    public static func named(_ names: [String]) -> Result<ClientRights, UnknownRight> {
        var rights: ClientRights = []
        for name in names {
            guard let right = Self.names.first(where: { $0.name == name })?.right else { return .failure(UnknownRight(name: name)) }
            rights.insert(right)
        }
        return .success(rights)
    }

    /// A right name `hello {rights}` does not know.
    public struct UnknownRight: Error, Hashable, Sendable {
        /// The name as given.
        public let name: String
    }

    /// The names of these rights, in `names`' order.
    public var nameList: [String] { Self.names.filter { contains($0.right) }.map(\.name) }

    /// What a person reads for one right: "create, rename or delete lists" and the like.
    var changeWord: String { changeWords.joined(separator: " or ") }

    var changeWords: [String] {
        Self.names.filter { contains($0.right) }.map { name, _ in
            switch name {
            case "items": "change items"
            case "sections": "change sections"
            case "lists": "create, rename or delete lists"
            default: "act as a delegate"
            }
        }
    }
}

extension ListEdit {
    /// The right a client needs to make this edit, whoever planned it (an undo plans the edit
    /// that reverses a change, so undoing a list's creation needs `.lists`).
    public var neededRight: ClientRights {
        switch self {
        case .createList, .renameList, .deleteList, .restoreList: .lists
        case .addSection, .renameSection, .removeSection, .restoreSection: .sections
        case .addItem, .replaceItem, .removeItem, .moveItem, .moveItemInto, .setQuantity, .checkItem, .uncheckItem,
            .clearChecked, .restoreItems, .removeItems, .restoreItem:
            .items
        }
    }
}
