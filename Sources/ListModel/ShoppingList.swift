/// A list's stable identity: assigned once, never reused, kept across restarts.
public typealias ListID = Int

/// A position in the daemon-wide sequence of applied changes.
public typealias Revision = Int

/// One shopping list as clients and the file see it.
public struct ShoppingList: Hashable, Sendable, Codable {
    public var id: ListID
    public var name: String
    /// When the list last changed.
    public var edited: Timestamp
    /// The revision of the list's last change.
    public var revision: Revision
    public var items: [String]

    public init(id: ListID, name: String, edited: Timestamp, revision: Revision, items: [String]) {
        self.id = id
        self.name = name
        self.edited = edited
        self.revision = revision
        self.items = items
    }

    /// Index of the item equal to `text` under `ListText.key`.
    public func index(ofItem text: String) -> Int? {
        let key = ListText.key(text)
        return items.firstIndex { ListText.hasKey($0, key) }
    }
}
