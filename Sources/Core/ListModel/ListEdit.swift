/// A proposed change to the lists, from any source: a client, the list file, or an undo.
package enum ListEdit: Hashable, Sendable {
    /// `quantities`: amounts of some of the items, by their text as given.
    case createList(name: String, items: [String], quantities: [String: String] = [:])
    case renameList(ListReference, to: String)
    case deleteList(ListReference)
    /// Appends, or inserts at `position` (clamped to the list's length) when given: the list
    /// file places items where the person typed them. An item that is there checked is
    /// unchecked instead (it is needed again).
    ///
    /// `section`: "" for none; a section the list lacks is made at its end in the same change;
    /// nil: the section the item was last in on this list (made again if it is gone), else none.
    /// The item goes at the end of its section, or at `position` kept within it.
    case addItem(String, to: ListReference, at: Int? = nil, section: String? = nil, quantity: String? = nil)
    case replaceItem(String, with: String, on: ListReference)
    case removeItem(String, from: ListReference)
    /// Puts an item right after another (at the top when `after` is nil): a line the person moved
    /// in the list file. When `after` is no longer on the list, nothing moves. It goes into
    /// `section` (the one its line is under in the file) when that section can hold it there,
    /// else into the section of the item it follows (none at the top).
    case moveItem(String, on: ListReference, after: String?, section: String? = nil)
    /// Puts an item into `section` ("" for none; nil: the one it is in, or `before`'s), right
    /// before `before` (an item of that section) or at the section's end.
    case moveItemInto(String, on: ListReference, section: String?, before: String?)
    /// An empty section, before the section `before` or at the end of the list.
    case addSection(String, on: ListReference, before: String?)
    case renameSection(String, on: ListReference, to: String)
    /// The section goes; its items join the section above it (or none).
    case removeSection(String, on: ListReference)
    /// A removed section back (an undone removal), before the section `before` or at the end:
    /// it takes back those of `items` that still end the section above it.
    case restoreSection(String, on: ListReference, before: String?, items: [String])
    /// An item's amount (`2 l`); nil clears it.
    case setQuantity(String, on: ListReference, quantity: String?)
    case checkItem(String, on: ListReference)
    case uncheckItem(String, on: ListReference)
    /// Takes every checked item off the list as one change, but those whose key
    /// (`ListText.key`) is in `keeping` (delegates refused to let them go, or they were ticked
    /// after the lists the clear was made on); with `only`, just the checked items whose keys it
    /// holds (what the client showed ticked when the person cleared).
    case clearChecked(ListReference, keeping: Set<String> = [], only: Set<String>? = nil)
    /// Puts items back where they were, as one change (an undone removal or clear); a place that
    /// is gone becomes the end of the list.
    case restoreItems([PlacedItem], to: ListReference)
    /// Takes several items off as one change (an undone `restoreItems`).
    case removeItems([String], from: ListReference)
    /// A deleted list back, with its id, items and checks (an undone delete).
    case restoreList(ShoppingList)
    /// An item back as `placed` says, as one change: its place (kept within its section, made
    /// again when it is gone), its box and its amount (an undone re-add of a checked item).
    case restoreItem(PlacedItem, on: ListReference)

    /// The list the edit targets, when it targets an existing one.
    package var target: ListReference? {
        switch self {
        case .createList, .restoreList: nil
        case .renameList(let list, _), .deleteList(let list),
            .replaceItem(_, _, let list), .removeItem(_, let list), .addItem(_, let list, _, _, _),
            .moveItem(_, let list, _, _), .checkItem(_, let list), .uncheckItem(_, let list),
            .clearChecked(let list, _, _), .restoreItems(_, let list), .removeItems(_, let list),
            .moveItemInto(_, let list, _, _), .addSection(_, let list, _), .renameSection(_, let list, _),
            .removeSection(_, let list), .setQuantity(_, let list, _), .restoreSection(_, let list, _, _),
            .restoreItem(_, let list):
            list
        }
    }
}
