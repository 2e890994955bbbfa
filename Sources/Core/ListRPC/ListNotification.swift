import ListModel

/// The notifications subscribers receive.
public enum ListEventName: String, Codable, Sendable, CaseIterable, Hashable {
    /// A list was created (or a deleted one brought back by `undo`).
    case didCreateShoppingList
    /// A list's items, ticks, amounts or sections changed.
    case didUpdateShoppingList
    /// A list was renamed.
    case didRenameShoppingList
    /// A list was deleted.
    case didDeleteShoppingList
    /// A save of the list file that listd could not take (wholly or in part).
    case didRejectFileEdit
    /// An edit that delegates refused (only for subscribers that ask for it by name).
    case didDenyChange
    /// The rules missed changed: a delegate went away or came back (only for subscribers that
    /// ask for it by name). Its params are `MissingDelegatesParams`.
    case didChangeDelegates

    /// What a subscription without `events` hears: everything but `didDenyChange` and
    /// `didChangeDelegates`.
    public static let defaultEvents: Set<ListEventName> = Set(allCases).subtracting([.didDenyChange, .didChangeDelegates])

    /// The notification a change of this kind is told by.
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
    /// The change's daemon-wide revision: one more than the change before.
    public var revision: Revision
    /// After the change; for a delete, the list's last state.
    public var list: ShoppingList
    /// Who made it: a client, or a person's save of the list file.
    public var origin: ChangeOrigin
    /// What it did, step by step (none for a create or a delete).
    public var changes: [ListChange.Step]
    /// The revision of the change this one undoes (`undo`), when it undoes one.
    public var undoes: Revision?

    /// The params that tell `change`.
    public init(_ change: ListChange) {
        self.revision = change.revision
        self.list = change.list
        self.origin = change.origin
        self.changes = change.steps
        self.undoes = change.undoes
    }
}

/// A change notification as a client receives it.
public struct ListEvent: Sendable, Hashable {
    /// Which notification it is.
    public var name: ListEventName
    /// What it says.
    public var params: ListChangeParams

    /// A change notification.
    public init(name: ListEventName, params: ListChangeParams) {
        self.name = name
        self.params = params
    }

    /// The change's revision: a follower resumes after the last one it saw.
    public var revision: Revision { params.revision }
    /// The list after the change (for a delete, its last state).
    public var list: ShoppingList { params.list }
    /// Who made the change.
    public var origin: ChangeOrigin { params.origin }
    /// The change's steps.
    public var changes: [ListChange.Step] { params.changes }
    /// The revision this change undid, when it was an `undo`.
    public var undoes: Revision? { params.undoes }
}


/// The params of `didChangeDelegates`: every delegate missed now (none: all are back).
public struct MissingDelegatesParams: Codable, Sendable, Hashable {
    /// Every delegate missed now, with since when and why.
    public var missingDelegates: [MissingDelegate]

    /// The delegates missed.
    public init(missingDelegates: [MissingDelegate]) {
        self.missingDelegates = missingDelegates
    }
}
