import ListModel

/// The notifications subscribers receive.
public enum ListEventName: String, Codable, Sendable, CaseIterable, Hashable {
    case didCreateShoppingList
    case didUpdateShoppingList
    case didRenameShoppingList
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
    /// The revision of the change this one undoes (`undo`), when it undoes one.
    public var undoes: Revision?

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
    public var undoes: Revision? { params.undoes }
}

/// The params of `didRejectFileEdit`: what in a person's save of the list file was not taken.
public struct FileRejectionParams: Codable, Sendable, Hashable {
    public struct RejectedLine: Codable, Sendable, Hashable {
        /// 1-based line number in the file as the person saved it.
        public var line: Int
        /// The line as the person typed it.
        public var text: String
        /// A stable word: `itemExists`, `invalidItem`, `listExists`, `itemOutsideList`, …
        public var reason: String
        public var message: String

        public init(line: Int, text: String, reason: String, message: String) {
            self.line = line
            self.text = text
            self.reason = reason
            self.message = message
        }
    }

    /// `linesNotTaken` (some lines broke a rule; the rest was applied) or `fileInvalid` (the file
    /// is not UTF-8 text; nothing was applied and listd will not write it until it is fixed).
    public var reason: String
    public var message: String
    public var lines: [RejectedLine]
    /// For `fileInvalid`: the offset of the first byte that is not UTF-8.
    public var byteOffset: Int?

    public init(reason: String, message: String, lines: [RejectedLine], byteOffset: Int? = nil) {
        self.reason = reason
        self.message = message
        self.lines = lines
        self.byteOffset = byteOffset
    }
}

/// The params of `didChangeDelegates`: every delegate missed now (none: all are back).
public struct MissingDelegatesParams: Codable, Sendable, Hashable {
    public var missingDelegates: [MissingDelegate]

    public init(missingDelegates: [MissingDelegate]) {
        self.missingDelegates = missingDelegates
    }
}
