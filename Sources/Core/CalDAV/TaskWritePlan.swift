// A PUT or DELETE as the edits listd is sent, in order: what the client changed of the item
// (its text, its tick, its amount, its section), found by comparing its task with the one
// listd-web holds. A new task is an add; a task whose SUMMARY is an item already there is merged
// into it (its tick and amount), never a second item.
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
            guard let target = write.existing ?? write.merging else {
                var edits: [PlannedEdit] = [.add(item: task.summary, section: task.section, quantity: task.quantity)]
                if task.completed { edits.append(.check(task.summary)) }
                return edits
            }
            var edits: [PlannedEdit] = []
            var name = target.item.text
            if write.merging == nil, task.summary != name {
                edits.append(.replace(item: name, with: task.summary))
                name = task.summary
            }
            if task.completed != target.item.checked { edits.append(task.completed ? .check(name) : .uncheck(name)) }
            // A merge keeps the item's amount unless the new task gives one.
            if task.quantity != target.item.quantity, write.merging == nil || task.quantity != nil {
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
}

