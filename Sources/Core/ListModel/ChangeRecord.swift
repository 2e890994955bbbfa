import HashTreeCollections

/// A change as listd keeps it in its history and its change log: what changed, not the whole
/// list after it. Redone on the lists of the revision before it (`ListBook.redo`), it gives back
/// the full `ListChange`, so its size depends on the change, never on the list's length.
package struct ChangeRecord: Hashable, Sendable {
    /// What the change did, with positions so that redoing it needs no search.
    package enum Operation: Hashable, Sendable {
        /// A new list, or a deleted one back (`checked`: its checked items, in list order; its
        /// sections and amounts).
        case create(
            id: ListID,
            name: String,
            items: [String],
            checked: [String] = [],
            sections: [ListSection] = [],
            quantities: [String: String] = [:]
        )
        case rename(id: ListID, to: String)
        case delete(id: ListID)
        /// Into `section` (nil: none), which `newSection` names when it is made by this change
        /// (at the end of the list), with its amount.
        case add(id: ListID, item: String, at: Int, section: Int? = nil, newSection: String? = nil, quantity: String? = nil)
        case remove(id: ListID, at: Int)
        case replace(id: ListID, at: Int, with: String)
        /// To `to` (its place afterwards), into `section` (nil: none).
        case move(id: ListID, from: Int, to: Int, section: Int? = nil)
        /// An empty section at `at` of the sections, or one taking the last `taking` items of
        /// the section before it.
        case addSection(id: ListID, name: String, at: Int, taking: Int = 0)
        case renameSection(id: ListID, at: Int, to: String)
        case removeSection(id: ListID, at: Int)
        case setQuantity(id: ListID, at: Int, quantity: String?)
        case check(id: ListID, at: Int)
        case uncheck(id: ListID, at: Int)
        /// Several items taken off as one change (`clearChecked`): their places before it, in
        /// ascending order, with their texts (the log says what went, not the list).
        case removeItems(id: ListID, [PlacedItem])
        /// Several items put back as one change (an undone clear): their places after it,
        /// ascending.
        case insertItems(id: ListID, [PlacedItem])
        /// One item given a new state as one change: moved from `from` to `to` (its place
        /// afterwards) into `section` (nil: none; `newSection` names it when this change makes
        /// it, at the end of the list), ticked or not, with its amount (nil: none). A checked
        /// item added again into a section or with an amount, and the undo of that.
        case restate(id: ListID, from: Int, to: Int, section: Int?, newSection: String?, checked: Bool, quantity: String?)

        package var listID: ListID {
            switch self {
            case .create(let id, _, _, _, _, _), .rename(let id, _), .delete(let id), .add(let id, _, _, _, _, _),
                .remove(let id, _), .replace(let id, _, _), .move(let id, _, _, _), .check(let id, _),
                .uncheck(let id, _), .removeItems(let id, _), .insertItems(let id, _),
                .addSection(let id, _, _, _), .renameSection(let id, _, _), .removeSection(let id, _),
                .setQuantity(let id, _, _), .restate(let id, _, _, _, _, _, _):
                id
            }
        }

        /// The create that makes `list` as it is: its items, checks, sections and amounts.
        static func create(of list: ShoppingList) -> Operation {
            .create(
                id: list.id,
                name: list.name,
                items: Array(list.items),
                checked: list.checkedItems,
                sections: list.sections,
                quantities: Dictionary(list.quantities)
            )
        }
    }


    package var revision: Revision
    /// When it was made (the list's `edited` after it).
    package var time: Timestamp
    package var origin: ChangeOrigin
    package var operation: Operation
    /// The change this one undoes, when it undoes one.
    package var undoes: Revision?
    /// The id its client gave the edit (an offline phone's queued edit): a resend of that id is
    /// recognised and not applied again.
    package var editId: String?

    package init(
        revision: Revision,
        time: Timestamp,
        origin: ChangeOrigin,
        operation: Operation,
        undoes: Revision? = nil,
        editId: String? = nil
    ) {
        self.revision = revision
        self.time = time
        self.origin = origin
        self.operation = operation
        self.undoes = undoes
        self.editId = editId
    }

    /// The record of `change`, which `ListBook.apply` returned; `before` is the changed list as
    /// it was before the change (nil for a create).
    package init(_ change: ListChange, before: ShoppingList?) {
        let list = change.list
        let operation: Operation
        switch (change.kind, change.steps.first) {
        case (.created, _):
            operation = .create(of: list)
        case (.deleted, _):
            operation = .delete(id: list.id)
        case (_, .add(let item, _, _)?):
            // Exact text: the step holds the item as stored.
            let at = list.items.firstIndex(of: item) ?? list.items.count
            operation = .add(id: list.id, item: item, at: at, section: list.section(ofItemAt: at), quantity: list.quantities[item])
        case (_, .replace(let item, let with)?):
            operation = .replace(id: list.id, at: before?.items.firstIndex(of: item) ?? -1, with: with)
        case (_, .remove(let item)?):
            operation = .remove(id: list.id, at: before?.items.firstIndex(of: item) ?? -1)
        case (_, .move(let item, let to, _)?):
            operation = .move(
                id: list.id,
                from: before?.items.firstIndex(of: item) ?? -1,
                to: to,
                section: list.section(ofItemAt: to)
            )
        case (_, .check(let item)?):
            operation = .check(id: list.id, at: list.items.firstIndex(of: item) ?? -1)
        case (_, .uncheck(let item)?):
            operation = .uncheck(id: list.id, at: list.items.firstIndex(of: item) ?? -1)
        case (_, .addSection(let name)?):
            let at = list.section(named: name) ?? list.sections.count
            let taking = list.sections.indices.contains(at) ? list.sections[at].count : 0
            operation = .addSection(id: list.id, name: name, at: at, taking: taking)
        case (_, .renameSection(let from, let to)?):
            operation = .renameSection(id: list.id, at: before?.section(named: from) ?? -1, to: to)
        case (_, .removeSection(let name)?):
            operation = .removeSection(id: list.id, at: before?.section(named: name) ?? -1)
        case (_, .quantity(let item, let quantity)?):
            operation = .setQuantity(id: list.id, at: list.items.firstIndex(of: item) ?? -1, quantity: quantity)
        case (_, .rename?), (_, nil):
            operation = .rename(id: list.id, to: list.name)
        }
        self.init(
            revision: change.revision,
            time: list.edited,
            origin: change.origin,
            operation: operation,
            undoes: change.undoes
        )
    }
}

/// Why a record cannot be redone: the log does not follow from the lists it was applied to.
package struct RedoError: Error, Hashable, Sendable, CustomStringConvertible {
    package var revision: Revision
    package var reason: String

    package init(revision: Revision, reason: String) {
        self.revision = revision
        self.reason = reason
    }

    package var description: String { "change \(revision) does not follow from the lists before it: \(reason)" }
}

extension ListBook {
    /// Redoes a change read back from listd's history: no rule is checked again (it was checked
    /// when the change was made), but a record that does not fit the lists is refused.
    /// - Returns: the change as `apply` returned it then.
    @discardableResult
    package mutating func redo(_ record: ChangeRecord) throws(RedoError) -> ListChange {
        func fail(_ reason: String) -> RedoError { RedoError(revision: record.revision, reason: reason) }
        guard record.revision == revision + 1 else {
            throw fail("it follows revision \(record.revision - 1), the lists are at \(revision)")
        }
        let id = record.operation.listID
        let index = lists.firstIndex { $0.id == id }
        if case .create(_, let name, let items, let checked, let sections, let quantities) = record.operation {
            guard index == nil else { throw fail("list \(id) exists already") }
            guard sections.reduce(0, { $0 + $1.count }) <= items.count else { throw fail("its sections hold more items than it has") }
            let list = ShoppingList(
                id: id,
                name: name,
                edited: record.time,
                revision: record.revision,
                items: items,
                checked: TreeSet(checked).intersection(items),
                sections: sections,
                quantities: quantities.isEmpty ? [:] : TreeDictionary(quantities.filter { Set(items).contains($0.key) })
            )
            lists.append(list)
            revision = record.revision
            nextID = Swift.max(nextID, id + 1)
            return ListChange(
                kind: .created,
                revision: revision,
                list: list,
                steps: [],
                origin: record.origin,
                undoes: record.undoes
            )
        }
        guard let index else { throw fail("there is no list \(id)") }
        if case .delete = record.operation {
            let removed = lists.remove(at: index)
            revision = record.revision
            return ListChange(
                kind: .deleted,
                revision: revision,
                list: removed,
                steps: [],
                origin: record.origin,
                undoes: record.undoes
            )
        }
        // In place: a copy of the list would copy its items for every record redone.
        let kind: ListChange.Kind
        let steps: [ListChange.Step]
        let count = lists[index].items.count
        switch record.operation {
        case .rename(_, let name):
            kind = .renamed
            steps = [.rename(from: lists[index].name, to: name)]
            lists[index].name = name
        case .add(_, let item, let at, let section, let newSection, let quantity):
            kind = .updated
            var made: [ListChange.Step] = []
            if let newSection {
                guard section == lists[index].sections.count else { throw fail("a new section is not the last one") }
                lists[index].insertSection(newSection, at: lists[index].sections.count)
                made = [.addSection(section: newSection)]
            }
            guard section.map({ lists[index].sections.indices.contains($0) }) ?? true else {
                throw fail("there is no section \(section ?? -1)")
            }
            let range = lists[index].range(ofSection: section)
            guard (range.lowerBound...range.upperBound).contains(at) else {
                throw fail("position \(at) is outside its section of \(lists[index].name)")
            }
            lists[index].insertItem(item, at: at, section: section)
            if let quantity { lists[index].quantities[item] = quantity }
            steps = made + [.add(item: item, quantity: quantity, section: section.map { lists[index].sections[$0].name })]
        case .remove(_, let at):
            guard (0..<count).contains(at) else { throw fail("position \(at) is outside \(lists[index].name)") }
            kind = .updated
            steps = [.remove(item: lists[index].removeItem(at: at))]
        case .replace(_, let at, let with):
            guard (0..<count).contains(at) else { throw fail("position \(at) is outside \(lists[index].name)") }
            kind = .updated
            steps = [.replace(item: lists[index].items[at], with: with)]
            lists[index].replaceItem(at: at, with: with)
        case .move(_, let from, let to, let section):
            guard (0..<count).contains(from), (0..<count).contains(to),
                section.map({ lists[index].sections.indices.contains($0) }) ?? true
            else {
                throw fail("a move from \(from) to \(to) is outside \(lists[index].name)")
            }
            kind = .updated
            let item = lists[index].items[from]
            lists[index].moveItem(from: from, to: to, section: section)
            steps = [.move(item: item, to: to, section: lists[index].sectionName(section))]
        case .check(_, let at), .uncheck(_, let at):
            guard (0..<count).contains(at) else { throw fail("position \(at) is outside \(lists[index].name)") }
            kind = .updated
            let item = lists[index].items[at]
            if case .check = record.operation {
                lists[index].checked.insert(item)
                steps = [.check(item: item)]
            } else {
                lists[index].checked.remove(item)
                steps = [.uncheck(item: item)]
            }
        case .removeItems(_, let placed):
            kind = .updated
            for item in placed.reversed() {
                guard (0..<lists[index].items.count).contains(item.at) else {
                    throw fail("position \(item.at) is outside \(lists[index].name)")
                }
                lists[index].removeItem(at: item.at)
            }
            steps = placed.map { .remove(item: $0.text) }
        case .insertItems(_, let placed):
            kind = .updated
            for item in placed {
                let section = item.section.flatMap { lists[index].section(named: $0) }
                let range = lists[index].range(ofSection: section)
                guard (range.lowerBound...range.upperBound).contains(item.at) else {
                    throw fail("position \(item.at) is outside its section of \(lists[index].name)")
                }
                lists[index].insertItem(item.text, at: item.at, section: section)
                if item.checked { lists[index].checked.insert(item.text) }
                if let quantity = item.quantity { lists[index].quantities[item.text] = quantity }
            }
            steps = placed.flatMap { $0.checked ? [.add(item: $0.text), .check(item: $0.text)] : [.add(item: $0.text)] }
        case .addSection(_, let name, let at, let taking):
            guard (0...lists[index].sections.count).contains(at), taking >= 0,
                taking <= (at > 0 ? lists[index].sections[at - 1].count : lists[index].unsectionedCount)
            else {
                throw fail("section place \(at) is outside \(lists[index].name)")
            }
            kind = .updated
            lists[index].insertSection(name, at: at, taking: taking)
            steps = [.addSection(section: name)]
        case .renameSection(_, let at, let name):
            guard lists[index].sections.indices.contains(at) else { throw fail("there is no section \(at)") }
            kind = .updated
            steps = [.renameSection(from: lists[index].sections[at].name, to: name)]
            lists[index].renameSection(at: at, to: name)
        case .removeSection(_, let at):
            guard lists[index].sections.indices.contains(at) else { throw fail("there is no section \(at)") }
            kind = .updated
            steps = [.removeSection(section: lists[index].sections[at].name)]
            lists[index].removeSection(at: at)
        case .setQuantity(_, let at, let quantity):
            guard (0..<count).contains(at) else { throw fail("position \(at) is outside \(lists[index].name)") }
            kind = .updated
            let item = lists[index].items[at]
            lists[index].quantities[item] = quantity
            steps = [.quantity(item: item, quantity: quantity)]
        case .restate(_, let from, let to, let section, let newSection, let checked, let quantity):
            guard (0..<count).contains(from), (0..<count).contains(to) else {
                throw fail("a move from \(from) to \(to) is outside \(lists[index].name)")
            }
            if newSection != nil {
                guard section == lists[index].sections.count else { throw fail("a new section is not the last one") }
            } else {
                guard section.map({ lists[index].sections.indices.contains($0) }) ?? true else {
                    throw fail("there is no section \(section ?? -1)")
                }
            }
            kind = .updated
            steps = lists[index].restate(from: from, to: to, section: section, newSection: newSection, checked: checked, quantity: quantity)
        case .create, .delete:
            preconditionFailure("handled above")
        }
        lists[index].revision = record.revision
        lists[index].edited = record.time
        revision = record.revision
        let list = lists[index]
        return ListChange(
            kind: kind,
            revision: revision,
            list: list,
            steps: steps,
            origin: record.origin,
            undoes: record.undoes
        )
    }
}
