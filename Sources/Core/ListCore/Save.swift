// A person's save being decided: its edits, each one's place in its list's queue, what was decided.
import ListFileFormat
import ListModel

/// A person's save being decided: its edits (from the lists the file showed before), each
/// waiting in its list's queue, and what was decided of each.
package struct Save: Sendable {
    enum Decision: Sendable {
        case allowed
        case refused(String)
        /// The rules denied it when it came up (asked again if they would not now).
        case broke
        /// It changes nothing.
        case unchanged
    }

    var id: Int
    var bytes: [UInt8]
    var reading: ListFileReading
    /// The lists the person's editor read (the version the save was made from), and how they
    /// were found (`SaveBase.Kind`).
    var base: SaveBase
    var edits: [FileEdit]
    /// The edits of each queue, in file order.
    var parts: [GateKey: [Int]]
    /// Each edit's queue (the key of its part): an answer finds its part without a search.
    var partOf: [Int: GateKey] = [:]
    /// Per part: how many of its edits, from the first, are decided (each is decided in order,
    /// so a part is never scanned again from its start: that made a long save quadratic).
    var decidedPrefix: [GateKey: Int] = [:]
    /// Per queue: the lists as they will be after the part's allowed edits so far.
    var partBooks: [GateKey: ListBook] = [:]
    var decisions: [Int: Decision] = [:]
    /// Time passed while it was decided: the file is read again before it is taken in.
    var waited = false
    var awaitingVerification = false
    /// Started again once already (an edit that broke a rule passed when taken in): never again.
    var restarted = false

    var isDecided: Bool { decisions.count == edits.count }

    /// The items (by key) whose addition to a list, or to a list the save creates, delegates
    /// refused. A line cut from one list and pasted under another is a removal and an addition:
    /// when the addition is refused, the removal is not made either, so the item the saved file
    /// still has is not lost.
    var itemsRefusedElsewhere: Set<String> {
        var keys: Set<String> = []
        for (index, fileEdit) in edits.enumerated() {
            guard case .refused = decisions[index] else { continue }
            switch fileEdit.edit {
            case .addItem(let item, _, _, _, _): keys.insert(ListText.key(item))
            case .createList(_, let items, _): keys.formUnion(items.map(ListText.key))
            default: break
            }
        }
        return keys
    }
}
