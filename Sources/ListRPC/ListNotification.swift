import ListModel

/// The notifications subscribers receive.
public enum ListEventName: String, Codable, Sendable, CaseIterable, Hashable {
    case didCreateShoppingList
    case didUpdateShoppingList
    case didRenameShoppingList
    case didDeleteShoppingList

    public init(_ kind: ListChange.Kind) {
        switch kind {
        case .created: self = .didCreateShoppingList
        case .updated: self = .didUpdateShoppingList
        case .renamed: self = .didRenameShoppingList
        case .deleted: self = .didDeleteShoppingList
        }
    }
}

/// The params of every change notification.
public struct ListChangeParams: Codable, Sendable, Hashable {
    public var revision: Revision
    /// After the change; for a delete, the list's last state.
    public var list: ShoppingList
    public var origin: ChangeOrigin
    public var changes: [ListChange.Step]

    public init(_ change: ListChange) {
        self.revision = change.revision
        self.list = change.list
        self.origin = change.origin
        self.changes = change.steps
    }
}

/// A change notification as a client receives it.
public struct ListEvent: Sendable, Hashable {
    public var name: ListEventName
    public var params: ListChangeParams

    public init(name: ListEventName, params: ListChangeParams) {
        self.name = name
        self.params = params
    }

    public var revision: Revision { params.revision }
    public var list: ShoppingList { params.list }
    public var origin: ChangeOrigin { params.origin }
    public var changes: [ListChange.Step] { params.changes }
}
