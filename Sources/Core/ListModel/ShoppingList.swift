import HashTreeCollections

/// A list's stable identity: assigned once, never reused, kept across restarts.
public typealias ListID = Int

/// A position in the daemon-wide sequence of applied changes.
public typealias Revision = Int

/// One shopping list as clients and the file see it.
public struct ShoppingList: Hashable, Sendable {
    /// The list's id: never reused, kept across restarts.
    public var id: ListID
    /// Its name, unique among lists.
    public var name: String
    /// When the list last changed.
    public var edited: Timestamp
    /// The revision of the list's last change.
    public var revision: Revision
    /// Every item, checked or not, in list order (in chunks that copies of the list share:
    /// `ItemList`).
    public var items: ItemList
    /// The items ticked off, by their exact text (always some of `items`): a set, so that a
    /// check or a lookup never scans the list. `checkedItems` gives them in list order.
    package var checked: TreeSet<String>
    /// The sections, in order; their items are the last ones of `items` (see `ListSection`).
    public var sections: [ListSection]
    /// How much of an item to buy (`2 l`), by the item's exact text; most items have none.
    public var quantities: TreeDictionary<String, String>
    /// The section each item taken off was last in, by name, keyed by `ListText.key`: an item
    /// added again without a section goes back there. listd's own, not the protocol's.
    package var lastSections: TreeDictionary<String, String>

    package init(
        id: ListID,
        name: String,
        edited: Timestamp,
        revision: Revision,
        items: some Sequence<String>,
        checked: TreeSet<String> = [],
        sections: [ListSection] = [],
        quantities: TreeDictionary<String, String> = [:],
        lastSections: TreeDictionary<String, String> = [:]
    ) {
        self.id = id
        self.name = name
        self.edited = edited
        self.revision = revision
        switch items {
        case let list as ItemList: self.items = list
        case let array as [String]: self.items = ItemList(array)
        default: self.items = ItemList(items)
        }
        self.checked = checked
        self.sections = sections
        self.quantities = quantities
        self.lastSections = lastSections
    }

    /// A list as a client makes one (a preview, a test): its items, those of them ticked off,
    /// and their amounts, by item.
    public init(
        id: ListID,
        name: String,
        edited: Timestamp,
        revision: Revision,
        items: [String],
        checkedItems: [String],
        quantities: [String: String] = [:]
    ) {
        self.init(
            id: id,
            name: name,
            edited: edited,
            revision: revision,
            items: items,
            checked: TreeSet(checkedItems),
            quantities: TreeDictionary(uniqueKeysWithValues: quantities.map { ($0.key, $0.value) })
        )
    }

    /// Index of the item equal to `text` under `ListText.key`.
    public func index(ofItem text: String) -> Int? {
        // Items are unique by key, so the item written exactly as given is the one: found by
        // comparing bytes, a few times faster over a long list than folding each item's case.
        if let exact = items.firstIndex(of: text) { return exact }
        let key = ListText.key(text)
        return items.firstIndex { ListText.hasKey($0, key) }
    }

    /// Index of the item `rawItem` names (as `index(ofItem:)`), or `itemNotFound`. A person
    /// naming an item with its amount (`eggs (12)`, `6 eggs`) means the item, whatever its amount
    /// now (`withAmount`); an undo names the exact item it gives back.
    public func position(ofItem rawItem: String, withAmount: Bool = true) throws(ListError) -> Int {
        if let position = index(ofItem: rawItem) { return position }
        if withAmount {
            let named = ItemAmount.split(rawItem)
            if named.quantity != nil, let position = index(ofItem: named.text) { return position }
        }
        throw .itemNotFound(item: ListText.trimmed(rawItem), list: name)
    }

    /// The checked items in list order (what the protocol's `checked` says).
    public var checkedItems: [String] {
        checked.isEmpty ? [] : Array(items.lazy.filter(checked.contains))
    }

    /// Whether the item with this exact text is checked.
    public func isChecked(_ item: String) -> Bool {
        !checked.isEmpty && checked.contains(item)
    }
}

/// The protocol's `List` (and the snapshot's lists): `sections` as `[{"name", "items"}]` and
/// `quantities` by item. What each item was last in (`lastSections`) is listd's own: the
/// snapshot keeps it beside the lists.
extension ShoppingList: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, name, edited, revision, items, checked, sections, quantities
    }

    private struct SectionEntry: Codable {
        var name: String
        var items: [String]
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ListID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        edited = try container.decode(Timestamp.self, forKey: .edited)
        revision = try container.decode(Revision.self, forKey: .revision)
        items = try container.decode(ItemList.self, forKey: .items)
        // Absent from what listd wrote before items could be checked, or had sections and amounts.
        let checkedItems = try container.decodeIfPresent([String].self, forKey: .checked) ?? []
        checked = TreeSet(checkedItems).intersection(items)
        let entries = try container.decodeIfPresent([SectionEntry].self, forKey: .sections) ?? []
        sections = entries.map { ListSection($0.name, count: $0.items.count) }
        // The sections' items are the list's last ones, in order.
        let sectioned = entries.flatMap(\.items)
        guard sectioned.count <= items.count, items.suffix(sectioned.count).elementsEqual(sectioned) else {
            throw DecodingError.dataCorruptedError(
                forKey: .sections,
                in: container,
                debugDescription: "the sections' items are not the list's last items, in order"
            )
        }
        let amounts = try container.decodeIfPresent(TreeDictionary<String, String>.self, forKey: .quantities) ?? [:]
        let listed = amounts.isEmpty ? [] : Set(items)
        quantities = amounts.filter { listed.contains($0.key) }
        lastSections = [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(edited, forKey: .edited)
        try container.encode(revision, forKey: .revision)
        try container.encode(items, forKey: .items)
        try container.encode(checkedItems, forKey: .checked)
        try container.encode(sectionsWithItems.map { SectionEntry(name: $0.name, items: Array($0.items)) }, forKey: .sections)
        try container.encode(quantities, forKey: .quantities)
    }
}

/// An item with its place in a list and whether it is checked: what a change that takes several
/// items off (or puts them back) records of each, so that it can be redone and undone.
package struct PlacedItem: Hashable, Sendable {
    public var text: String
    /// Its index in the list (before a removal, after an insertion).
    public var at: Int
    public var checked: Bool
    /// The section it was in, by name (nil: none), and its amount.
    public var section: String?
    public var quantity: String?

    public init(_ text: String, at: Int, checked: Bool, section: String? = nil, quantity: String? = nil) {
        self.text = text
        self.at = at
        self.checked = checked
        self.section = section
        self.quantity = quantity
    }
}

extension Dictionary {
    /// A hash tree's pairs as a plain dictionary: for what is written out whole (a record of a
    /// created list, the snapshot), where nothing shares it.
    public init(_ tree: TreeDictionary<Key, Value>) {
        self.init(uniqueKeysWithValues: tree.lazy.map { ($0.key, $0.value) })
    }
}
