// The edits of a list's items — add, replace, remove, move, and items put back — decided as
// `ListBook.applyRecorded` decides every edit: the rules, then one change with its record.
// Moves into a section and amounts are `ListBook+Sections.swift`; checks `ListBook+Checks.swift`.
extension ListBook {
    /// An item added (or, when it is there ticked off, needed again).
    mutating func addItem(
        _ rawItem: String,
        to reference: ListReference,
        at insertionIndex: Int?,
        section rawSection: String?,
        quantity rawQuantity: String?,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let item = try validItem(rawItem)
        let quantity = try rawQuantity.map { raw throws(ListError) in try validQuantity(raw) }
        try check(ifRevision, against: lists[index])
        if hasItem(withKey: ListText.key(item), at: index), let existing = lists[index].index(ofItem: item) {
            let list = lists[index]
            let text = list.items[existing]
            guard list.isChecked(text) else {
                throw .itemExists(
                    item: text,
                    list: list.name,
                    section: list.section(ofItemAt: existing).map { list.sections[$0].name },
                    quantity: quantity,
                    has: list.quantities[text]
                )
            }
            // Ticked off and added again: it is needed again; into the section and with the
            // amount the add names, when it names them, in the same change.
            if rawSection != nil || quantity != nil {
                return try restateItem(
                    at: existing,
                    ofListAt: index,
                    section: rawSection,
                    checked: false,
                    quantity: quantity ?? list.quantities[text],
                    time: time,
                    origin: origin
                )
            }
            return commit(
                .updated,
                at: index,
                time: time,
                origin: origin,
                steps: [.uncheck(item: text)],
                operation: .uncheck(id: lists[index].id, at: existing)
            ) {
                $0.checked.remove(text)
            }
        }
        // Decided on the list passed borrowed, so that no copy of it outlives the decision: one
        // held across the insertion below would make it copy every item (a 10,000-line paste
        // became quadratic).
        // An add that names no section and no place, of an item this list does not remember: the
        // aisle the household gave it on another list.
        let learned =
            rawSection == nil && insertionIndex == nil && lists[index].rememberedSection(of: item) == nil
            ? householdSection(of: item, besides: index) : nil
        let (section, newSection, at) = try placement(of: item, in: lists[index], at: insertionIndex, section: rawSection ?? learned)
        let before = lists[index].revision
        defer { updateItemKeys(at: index, from: before, removing: nil, adding: item) }
        let steps: [ListChange.Step] =
            (newSection.map { [.addSection(section: $0)] } ?? [])
            + [.add(item: item, quantity: quantity, section: section.map { newSection ?? lists[index].sections[$0].name })]
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: steps,
            operation: .add(id: lists[index].id, item: item, at: at, section: section, newSection: newSection, quantity: quantity)
        ) {
            if let newSection { $0.insertSection(newSection, at: $0.sections.count) }
            $0.insertItem(item, at: at, section: section)
            if let quantity { $0.quantities[item] = quantity }
        }
    }

    mutating func replaceItem(
        _ rawItem: String,
        with rawReplacement: String,
        on reference: ListReference,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        // No copy of the list: it would make the change below copy the items.
        let position = try lists[index].position(ofItem: rawItem)
        let replacement = try validItem(rawReplacement)
        try check(ifRevision, against: lists[index])
        if let clash = lists[index].index(ofItem: replacement), clash != position {
            throw .itemExists(item: lists[index].items[clash], list: lists[index].name)
        }
        let old = lists[index].items[position]
        if old == replacement { return nil }
        let before = lists[index].revision
        defer { updateItemKeys(at: index, from: before, removing: old, adding: replacement) }
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [.replace(item: old, with: replacement)],
            operation: .replace(id: lists[index].id, at: position, with: replacement)
        ) {
            $0.replaceItem(at: position, with: replacement)
        }
    }

    mutating func removeItem(
        _ rawItem: String,
        from reference: ListReference,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        // No copy of the list: it would make the change below copy the items.
        let position = try lists[index].position(ofItem: rawItem)
        try check(ifRevision, against: lists[index])
        let old = lists[index].items[position]
        let before = lists[index].revision
        defer { updateItemKeys(at: index, from: before, removing: old, adding: nil) }
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [.remove(item: old)],
            operation: .remove(id: lists[index].id, at: position)
        ) {
            $0.removeItem(at: position)
        }
    }

    /// An item moved to right after another (to the top when nil), into the section wanted when
    /// that lies between its new neighbours' sections.
    mutating func moveItem(
        _ rawItem: String,
        on reference: ListReference,
        after rawAnchor: String?,
        section wanted: String?,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let list = lists[index]
        let position = try list.position(ofItem: rawItem)
        try check(ifRevision, against: lists[index])
        /// Where the item was put cannot hold it now (what was around it changed meanwhile: its
        /// anchor gone, an item added after it): when it was moved into another section, it goes
        /// to the start of that section, so the move into it is made; else it stays.
        func intoWantedSection() throws(ListError) -> Applied? {
            guard let wanted else { return nil }
            let name = ListText.trimmed(wanted)
            let target = name.isEmpty ? nil : list.section(named: name)
            guard name.isEmpty || target != nil, target != list.section(ofItemAt: position) else { return nil }
            let range = list.range(ofSection: target)
            let first = range.first { $0 != position }.map { list.items[$0] }
            return try moveItem(rawItem, on: reference, into: name, before: first, ifRevision: ifRevision, at: time, origin: origin)
        }
        var anchor: Int?
        if let rawAnchor {
            // Gone meanwhile (a three-way merge with a client's removal): the item stays, unless
            // it was moved into another section.
            guard let found = list.index(ofItem: rawAnchor), found != position else { return try intoWantedSection() }
            anchor = found
        }
        var items = list.items
        let destination = ItemAlignment.move(&items, from: position, toFollow: anchor)
        // Into the section wanted when it lies between the sections of the items around its
        // new place (empty sections between them included), else into the section of the
        // item it now follows (none at the top).
        var section = anchor.flatMap { list.section(ofItemAt: $0) }
        if let wanted {
            let target = ListText.trimmed(wanted).isEmpty ? nil : list.section(named: wanted)
            let following = destination + 1 < items.count ? list.index(ofItem: items[destination + 1]) : nil
            let low = section ?? -1
            let high = following.map { list.section(ofItemAt: $0) ?? -1 } ?? Int.max
            if ListText.trimmed(wanted).isEmpty || target != nil, low <= (target ?? -1), (target ?? -1) <= high {
                section = target
            } else if target != nil || ListText.trimmed(wanted).isEmpty, target != list.section(ofItemAt: position) {
                return try intoWantedSection()
            } else if target != nil || ListText.trimmed(wanted).isEmpty {
                // Moved within its own section to after an item before it (first in it, as the
                // copy showed it), with items added before the section meanwhile: it goes first
                // in its section, never out of it.
                let range = list.range(ofSection: target)
                guard (anchor ?? -1) < range.lowerBound, let first = range.first, first != position else { return nil }
                return try moveItem(rawItem, on: reference, into: ListText.trimmed(wanted), before: list.items[first], ifRevision: ifRevision, at: time, origin: origin)
            }
        }
        if destination == position, section == list.section(ofItemAt: position) { return nil }
        let step = ListChange.Step.move(item: list.items[position], to: destination, section: list.sectionName(section))
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: [step],
            operation: .move(id: list.id, from: position, to: destination, section: section)
        ) { $0.moveItem(from: position, to: destination, section: section) }
    }

    /// An item given back the state it had (an undone change): place, section, box and amount.
    mutating func restoreItem(
        _ placed: PlacedItem,
        on reference: ListReference,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        let position = try lists[index].position(ofItem: placed.text, withAmount: false)
        try check(ifRevision, against: lists[index])
        return try restateItem(
            at: position,
            ofListAt: index,
            section: placed.section ?? "",
            at: placed.at,
            checked: placed.checked,
            quantity: placed.quantity,
            time: time,
            origin: origin
        )
    }

    /// Several items taken off as one change.
    mutating func removeItems(
        _ rawItems: [String],
        from reference: ListReference,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        try check(ifRevision, against: lists[index])
        let list = lists[index]
        var positions: Set<Int> = []
        for rawItem in rawItems {
            guard let at = list.index(ofItem: rawItem) else {
                throw .itemNotFound(item: ListText.trimmed(rawItem), list: list.name)
            }
            positions.insert(at)
        }
        let removed = positions.sorted().map { list.placed(at: $0) }
        return try removeAll(removed, at: index, time: time, origin: origin)
    }

    /// Several items put back as one change (an undone clear), each into its section and place
    /// when they are still there.
    mutating func restoreItems(
        _ placed: [PlacedItem],
        to reference: ListReference,
        ifRevision: Revision?,
        at time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        let index = try position(of: reference)
        try check(ifRevision, against: lists[index])
        var keys: Set<String> = []
        var restored: [PlacedItem] = []
        var count = lists[index].items.count
        var list = lists[index]
        for item in placed.sorted(by: { $0.at < $1.at }) {
            let text = try validItem(item.text)
            if let existing = list.index(ofItem: text) {
                throw .itemExists(item: list.items[existing], list: list.name)
            }
            guard keys.insert(ListText.key(text)).inserted else {
                throw .itemExists(item: text, list: list.name)
            }
            // Into its section while it is there (else in none), at its place when that is
            // still within the section (else the nearest end).
            let at = min(max(item.at, 0), count)
            let section = item.section.flatMap { list.section(named: $0) }
            let range = list.range(ofSection: section)
            let place = min(max(at, range.lowerBound), range.upperBound)
            let resolved = PlacedItem(
                text,
                at: place,
                checked: item.checked,
                section: section.map { list.sections[$0].name },
                quantity: item.quantity
            )
            list.insertItem(text, at: place, section: section)
            if item.checked { list.checked.insert(text) }
            if let quantity = item.quantity { list.quantities[text] = quantity }
            restored.append(resolved)
            count += 1
        }
        if restored.isEmpty { return nil }
        let steps = restored.flatMap { item -> [ListChange.Step] in
            item.checked ? [.add(item: item.text), .check(item: item.text)] : [.add(item: item.text)]
        }
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: steps,
            operation: .insertItems(id: lists[index].id, restored)
        ) { [list] in $0 = list }
    }

    /// Takes `placed` (ascending places on the list at `index`) off as one change; nil when
    /// there is nothing to take.
    mutating func removeAll(
        _ placed: [PlacedItem],
        at index: Int,
        time: Timestamp,
        origin: ChangeOrigin
    ) throws(ListError) -> Applied? {
        if placed.isEmpty { return nil }
        return commit(
            .updated,
            at: index,
            time: time,
            origin: origin,
            steps: placed.map { .remove(item: $0.text) },
            operation: .removeItems(id: lists[index].id, placed)
        ) {
            for item in placed.reversed() { $0.removeItem(at: item.at) }
        }
    }
}
