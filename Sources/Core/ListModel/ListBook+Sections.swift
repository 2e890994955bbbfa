// The edits of sections and amounts (issue 30), decided as `ListBook.apply` decides every edit:
// the rules, then one change with its record. Sections themselves are `ListSection.swift`.
extension ListBook {
    mutating func moveItem(
        _ rawItem: String,
        on reference: ListReference,
        into rawSection: String?,
        before rawBefore: String?,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let list = lists[index]
        let position = try list.position(ofItem: rawItem)
        try check(ifRevision, against: list)
        var section = list.section(ofItemAt: position)
        if let rawSection {
            section = ListText.trimmed(rawSection).isEmpty ? nil : try existingSection(rawSection, of: list)
        }
        var anchor: Int?
        if let rawBefore {
            guard let found = list.index(ofItem: rawBefore) else {
                throw .itemNotFound(item: ListText.trimmed(rawBefore), list: list.name)
            }
            if rawSection == nil { section = list.section(ofItemAt: found) }
            guard list.section(ofItemAt: found) == section else {
                throw .itemNotFound(item: list.items[found], list: "\(list.name), under \(list.sectionName(section).isEmpty ? "no section" : list.sectionName(section))")
            }
            if found == position { return nil }
            anchor = found
        }
        // Its place once taken off: before the anchor, or at the end of the section.
        let range = list.range(ofSection: section)
        let end = section == list.section(ofItemAt: position) ? range.upperBound - 1 : (position < range.lowerBound ? range.upperBound - 1 : range.upperBound)
        let destination = anchor.map { $0 > position ? $0 - 1 : $0 } ?? end
        if destination == position, section == list.section(ofItemAt: position) { return nil }
        let item = list.items[position]
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [.move(item: item, to: destination, section: list.sectionName(section))],
            operation: .move(id: list.id, from: position, to: destination, section: section)
        ) { $0.moveItem(from: position, to: destination, section: section) }
    }

    mutating func addSection(
        _ rawName: String,
        on reference: ListReference,
        before rawBefore: String?,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let list = lists[index]
        let name = try validSection(rawName)
        try check(ifRevision, against: list)
        if let existing = list.section(named: name) {
            throw .sectionExists(section: list.sections[existing].name, list: list.name)
        }
        let at = try rawBefore.map { raw throws(ListError) in try existingSection(raw, of: list) } ?? list.sections.count
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [.addSection(section: name)],
            operation: .addSection(id: list.id, name: name, at: at)
        ) { $0.insertSection(name, at: at) }
    }

    mutating func restoreSection(
        _ rawName: String,
        on reference: ListReference,
        before rawBefore: String?,
        items: [String],
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let list = lists[index]
        let name = try validSection(rawName)
        try check(ifRevision, against: list)
        if let existing = list.section(named: name) {
            throw .sectionExists(section: list.sections[existing].name, list: list.name)
        }
        let at = rawBefore.flatMap { list.section(named: $0) } ?? list.sections.count
        // Its items, as long as they still end the section above (nothing else moves).
        let keys = Set(items.map(ListText.key))
        let above = list.range(ofSection: at > 0 ? at - 1 : nil)
        let taking = above.reversed().prefix { keys.contains(ListText.key(list.items[$0])) }.count
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [.addSection(section: name)],
            operation: .addSection(id: list.id, name: name, at: at, taking: taking)
        ) { $0.insertSection(name, at: at, taking: taking) }
    }

    mutating func renameSection(
        _ rawName: String,
        on reference: ListReference,
        to rawNew: String,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let list = lists[index]
        let at = try existingSection(rawName, of: list)
        let name = try validSection(rawNew)
        try check(ifRevision, against: list)
        if let other = list.section(named: name), other != at {
            throw .sectionExists(section: list.sections[other].name, list: list.name)
        }
        let old = list.sections[at].name
        if old == name { return nil }
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [.renameSection(from: old, to: name)],
            operation: .renameSection(id: list.id, at: at, to: name)
        ) { $0.renameSection(at: at, to: name) }
    }

    mutating func removeSection(
        _ rawName: String,
        on reference: ListReference,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let list = lists[index]
        let at = try existingSection(rawName, of: list)
        try check(ifRevision, against: list)
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [.removeSection(section: list.sections[at].name)],
            operation: .removeSection(id: list.id, at: at)
        ) { $0.removeSection(at: at) }
    }

    mutating func setQuantity(
        _ rawItem: String,
        on reference: ListReference,
        to rawQuantity: String?,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let position = try lists[index].position(ofItem: rawItem)
        let quantity = try rawQuantity.map { raw throws(ListError) in try validQuantity(raw) }
        try check(ifRevision, against: lists[index])
        let item = lists[index].items[position]
        if lists[index].quantities[item] == quantity { return nil }
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [.quantity(item: item, quantity: quantity)],
            operation: .setQuantity(id: lists[index].id, at: position, quantity: quantity)
        ) { $0.quantities[item] = quantity }
    }

    /// Where an added item goes: its section (the one named, else where the person typed it,
    /// else where it was last), the section's name when the add makes it, and its index.
    func placement(
        of item: String,
        in list: ShoppingList,
        at insertionIndex: Int?,
        section rawSection: String?
    ) throws(ListError) -> (section: Int?, newSection: String?, at: Int) {
        var section: Int?
        var newSection: String?
        let wanted: String? =
            if let rawSection { rawSection }
            else if let insertionIndex {
                insertionIndex > 0 ? list.sectionName(list.section(ofItemAt: min(insertionIndex, list.items.count) - 1)) : ""
            } else { list.rememberedSection(of: item) }
        if let wanted { (section, newSection) = try sectionPlace(wanted, in: list) }
        let range = newSection == nil ? list.range(ofSection: section) : list.items.count..<list.items.count
        return (section, newSection, min(max(insertionIndex ?? range.upperBound, range.lowerBound), range.upperBound))
    }
}

extension ListBook {
    /// The section `item` has on another list than the one at `index` — or had, when it was
    /// taken off it — by name, from the most recently changed list that says: aisles are learned
    /// per household, so "milk" under Dairy on Groceries goes under Dairy on Weekend too.
    mutating func householdSection(of item: String, besides index: Int) -> String? {
        let key = ListText.key(item)
        let others = lists.indices.filter { $0 != index && !lists[$0].sections.isEmpty }
        for other in others.sorted(by: { lists[$0].revision > lists[$1].revision }) {
            if hasItem(withKey: key, at: other), let at = lists[other].index(ofItem: item) {
                if let section = lists[other].section(ofItemAt: at) { return lists[other].sections[section].name }
                continue
            }
            if let remembered = lists[other].rememberedSection(of: item) { return remembered }
        }
        return nil
    }

    /// The item at `position` of the list at `index`, as one change: into `rawSection` (nil: the
    /// one it is in; "": none; one the list lacks is made at its end), at `wanted` kept within it
    /// (nil: where it is when it stays in its section, else the section's end), ticked or not,
    /// with `quantity` (nil: none). Nil when that is how it is already.
    mutating func restateItem(
        at position: Int,
        ofListAt index: Int,
        section rawSection: String?,
        at wanted: Int? = nil,
        checked: Bool,
        quantity: String?,
        time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let list = lists[index]
        let current = list.section(ofItemAt: position)
        var section = current
        var newSection: String?
        if let rawSection { (section, newSection) = try sectionPlace(rawSection, in: list) }
        var to = position
        if section != current || wanted != nil {
            // The section's places once the item is taken off (those after it move up).
            let range = newSection == nil ? list.range(ofSection: section) : list.items.count..<list.items.count
            let lower = range.lowerBound > position ? range.lowerBound - 1 : range.lowerBound
            let upper = range.upperBound > position ? range.upperBound - 1 : range.upperBound
            to = min(max(wanted ?? upper, lower), upper)
        }
        let item = list.items[position]
        if to == position, section == current, newSection == nil, list.isChecked(item) == checked,
            list.quantities[item] == quantity
        {
            return nil
        }
        revision += 1
        let steps = lists[index].restate(
            from: position,
            to: to,
            section: section,
            newSection: newSection,
            checked: checked,
            quantity: quantity
        )
        lists[index].revision = revision
        lists[index].edited = time
        let operation = ChangeRecord.Operation.restate(
            id: list.id,
            from: position,
            to: to,
            section: section,
            newSection: newSection,
            checked: checked,
            quantity: quantity
        )
        return (
            ListChange(kind: .updated, revision: revision, list: lists[index], steps: steps, origin: origin),
            ChangeRecord(revision: revision, time: time, origin: origin, operation: operation)
        )
    }
}

/// The section `name` names in `list` ("": none), or the one an item put there makes at the end
/// of the list (`newSection`) when the list lacks it.
func sectionPlace(_ name: String, in list: ShoppingList) throws(ListError) -> (section: Int?, newSection: String?) {
    guard !ListText.trimmed(name).isEmpty else { return (nil, nil) }
    let valid = try validSection(name)
    if let found = list.section(named: valid) { return (found, nil) }
    return (list.sections.count, valid)
}

/// `text` as a section name, or `invalidSection`.
func validSection(_ text: String) throws(ListError) -> String {
    switch ListText.validated(text) {
    case .success(let name): name
    case .failure(let violation): throw .invalidSection(text, violation)
    }
}

/// `text` as an amount, or `invalidQuantity`.
func validQuantity(_ text: String) throws(ListError) -> String {
    switch ListText.validatedQuantity(text) {
    case .success(let quantity): quantity
    case .failure(let violation): throw .invalidQuantity(text, violation)
    }
}

/// The section of `list` that `name` names, or `sectionNotFound`.
private func existingSection(_ name: String, of list: ShoppingList) throws(ListError) -> Int {
    guard let found = list.section(named: name) else { throw .sectionNotFound(section: ListText.trimmed(name), list: list.name) }
    return found
}
