// The tests' shorthand for a client's edit on the owner: an edit and its origin, without the rest
// of what a client may say of it (`ClientEdit`). Kept here: the product proposes `ClientEdit`s only.
import ListModel

@testable import ListCore
@testable import ListDaemon

extension ListOwner {
    /// Proposes `edit` on the owner's loop; `decided` runs there once it is decided.
    func propose(
        _ edit: ListEdit,
        origin: ChangeOrigin,
        decided: @escaping (Result<EditOutcome, EditFailure>) -> Void
    ) {
        propose(ClientEdit(edit: edit, origin: origin), decided: decided)
    }
}
