/// A proposed change to the lists, from any source: a client, or (later) the list file.
public enum ListEdit: Hashable, Sendable {
    case createList(name: String, items: [String])
    case renameList(ListReference, to: String)
    case deleteList(ListReference)
    /// Appends, or inserts at `position` (clamped to the list's length) when given: the list
    /// file places items where the person typed them.
    case addItem(String, to: ListReference, at: Int? = nil)
    case replaceItem(String, with: String, on: ListReference)
    case removeItem(String, from: ListReference)
    /// Puts an item right after another (at the top when `after` is nil): a line the person moved
    /// in the list file. When `after` is no longer on the list, nothing moves.
    case moveItem(String, on: ListReference, after: String?)

    /// The list the edit targets, when it targets an existing one.
    public var target: ListReference? {
        switch self {
        case .createList: nil
        case .renameList(let list, _), .deleteList(let list),
            .replaceItem(_, _, let list), .removeItem(_, let list), .addItem(_, let list, _),
            .moveItem(_, let list, _):
            list
        }
    }
}
