// Items listd keeps under a text that now reads as having an amount: named before amounts were
// read before or after an item (`6 eggs`, `milk (organic)`). A line of the list file showing
// that whole text is that item, so that a file written then reads as the lists it showed.
import ListModel

struct NamedBeforeAmounts {
    private struct KeptName: Hashable {
        var list: ListID
        var key: String
    }

    private let known: ListBook?
    /// Found when first asked: only a line that reads with an amount or an escape asks, and most
    /// files have none.
    private var kept: Set<KeptName>?

    init(_ known: ListBook?) {
        self.known = known
    }

    /// Whether list `list` keeps an item whose whole text is `text` and reads otherwise.
    mutating func keeps(_ text: String, on list: ListID) -> Bool {
        guard let known else { return false }
        if kept == nil {
            var found: Set<KeptName> = []
            for shopping in known.lists {
                for item in shopping.items where ItemAmount.read(item).text != item {
                    found.insert(KeptName(list: shopping.id, key: ListText.key(item)))
                }
            }
            kept = found
        }
        return kept?.contains(KeptName(list: list, key: ListText.key(text))) ?? false
    }
}
