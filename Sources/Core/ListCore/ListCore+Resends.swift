// Edits made away from listd (an offline phone's queue): a resend of an edit's id gets the first
// one's answer, and an edit made on older lists (`basedOn`) is merged as a save of an old copy is.
import ListFileFormat
import ListModel

extension ListCore {
    /// The reply to `id` is going out: the resends of its edit get the same one.
    mutating func replied(to id: Int) -> [Int] {
        guard !editsUnderWay.isEmpty else { return [] }
        if let editId = editsUnderWay.first(where: { $0.value == id })?.key { editsUnderWay[editId] = nil }
        return resends.removeValue(forKey: id) ?? []
    }

    /// What the lists it was made on say of an edit made on older lists: done already (nothing
    /// to apply), or not taken (someone else changed or removed the item since), or nil: decided
    /// by the rules as any edit is.
    ///
    /// Static, given the lists: called on `self` from the core's mutating methods, it made Swift
    /// copy the whole core (every field retained and released) for each edit.
    static func merged(_ proposal: Proposal, on working: ListBook) -> Result<Void, ListError>? {
        if proposal.request.ifAbsent, proposal.edit.holdsAlready(in: working, ifRevision: proposal.ifRevision) {
            return .success(())
        }
        guard let base = proposal.base else { return nil }
        var merge = SaveMerge(base: base.book, now: working, baseKnown: base.known, since: base.since, madeOn: .olderLists)
        switch merge.alreadyDone(proposal.edit) {
        case .done?: return .success(())
        case .doneDifferently(let why)?: return .failure(.changedMeanwhile(why: why))
        case .doneBut?: return nil  // `ListCore.advance` made it the rest already
        case nil: return merge.conflict(proposal.edit).map { .failure(.changedMeanwhile(why: $0)) }
        }
    }
}

extension ListEdit {
    /// Whether this add's effect holds already in `book` (its item on the list unticked, or a
    /// list of its name), so that an `ifAbsent` add is confirmed changing nothing. An item there
    /// ticked is not: the add unticks it. A stale `ifRevision` is not passed over: the rules deny.
    func holdsAlready(in book: ListBook, ifRevision: Revision?) -> Bool {
        switch self {
        case .addItem(let item, let reference, _, _, _):
            guard let list = try? book.list(reference), ifRevision == nil || ifRevision == list.revision,
                let position = try? list.position(ofItem: item)
            else { return false }
            return !list.isChecked(list.items[position])
        case .createList(let name, _, _):
            return ifRevision == nil && (try? book.list(.name(name))) != nil
        default:
            return false
        }
    }
}
