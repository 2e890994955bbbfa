// A PUT or DELETE as the edits listd is sent, in order: what the client changed of the item
// (its text, its tick, its amount, its section), found by comparing its task with the one
// listd-web holds. A new task is an add, also when its SUMMARY is an item already there: listd
// confirms it, and the task is merged into the item (its tick and amount), never a second item.
import ListModel

public enum PlannedEdit: Sendable, Equatable {
    /// An add that confirms an item there unticked (`ifAbsent`); nil section: where the
    /// household keeps it.
    case add(item: String, section: String?, quantity: String?)
    case replace(item: String, with: String)
    case check(String)
    case uncheck(String)
    case setQuantity(item: String, quantity: String?)
    case move(item: String, section: String)
    case remove(String)
}

public enum TaskWritePlan {
    public static func edits(for write: TaskWrite) -> [PlannedEdit] {
        switch write.kind {
        case .delete:
            guard let existing = write.existing else { return [] }
            return [.remove(existing.item.text)]
        case .put(let task):
            guard let target = write.existing else {
                // A new task is always an add, even when listd-web's book has its item: the add
                // confirms the item is there (unticked), puts it back when ticked, and makes it
                // when it was removed meanwhile. Left to the book, an app's new task merged into
                // an item listd no longer has would be answered 201 and lost.
                var edits: [PlannedEdit] = [.add(item: task.summary, section: task.section, quantity: task.quantity)]
                if task.completed { edits.append(.check(task.summary)) }
                if let merging = write.merging {
                    // A merge keeps the item's amount and section unless the new task gives them
                    // (an add of an item there changes neither).
                    if let quantity = task.quantity, quantity != merging.item.quantity {
                        edits.append(.setQuantity(item: task.summary, quantity: quantity))
                    }
                    if let section = task.section, ListText.key(section) != ListText.key(merging.item.section) {
                        edits.append(.move(item: task.summary, section: section))
                    }
                }
                return edits
            }
            var edits: [PlannedEdit] = []
            var name = target.item.text
            if task.summary != name {
                edits.append(.replace(item: name, with: task.summary))
                name = task.summary
            }
            if task.completed != target.item.checked { edits.append(task.completed ? .check(name) : .uncheck(name)) }
            if task.quantity != target.item.quantity {
                edits.append(.setQuantity(item: name, quantity: task.quantity))
            }
            // A task without CATEGORIES leaves the item's section as it is: most task apps
            // neither show nor keep categories.
            if let section = task.section, ListText.key(section) != ListText.key(target.item.section) {
                edits.append(.move(item: name, section: section))
            }
            return edits
        }
    }

    /// Whether the task stored after a PUT is the one the app sent, in all it would write back:
    /// its title, tick and amount. When it is not — merged into an item with an amount of its
    /// own, its title's case kept as the list has it — the answer carries no ETag (RFC 4791
    /// §5.3.4), so the app fetches the task before its next write instead of writing back, under
    /// a current ETag, what it sent over what the server kept.
    public static func storedAsSent(_ task: ClientTask, _ stored: TaskItem) -> Bool {
        stored.text == task.summary && stored.checked == task.completed && stored.quantity == task.quantity
    }
}
