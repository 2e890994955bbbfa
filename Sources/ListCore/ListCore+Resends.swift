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
