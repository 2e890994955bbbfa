// The tests' shorthand for a client's edit: an edit and its origin, without the rest of what a
// client may say of it (`ClientEdit`). Kept here: the product proposes `ClientEdit`s only.
import ListModel

@testable import ListCore

extension ListCore {
    /// A client proposes `edit`; `id` names it in the `reply`. Delivered as the owner delivers it.
    mutating func propose(
        _ id: Int,
        _ edit: ListEdit,
        ifRevision: Revision? = nil,
        origin: ChangeOrigin,
        undoes: Revision? = nil,
        at time: Timestamp
    ) -> [CoreAction] {
        feed(.proposed(id, ClientEdit(edit: edit, ifRevision: ifRevision, origin: origin, undoes: undoes)), at: time)
    }
}
