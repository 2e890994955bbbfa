import ListModel

/// One edit a person made by saving the file, with the line it came from.
package struct FileEdit: Hashable, Sendable {
    package var edit: ListEdit
    /// Index in the document of the line that asks for it (the heading for list edits); -1 for a
    /// removal or a deletion, whose line is gone.
    package var line: Int
    /// Index of the section in the reading (to tie a created list to its heading).
    package var section: Int?

    package init(edit: ListEdit, line: Int, section: Int?) {
        self.edit = edit
        self.line = line
        self.section = section
    }
}

extension ListFileReading {
    /// The finest edits that turn `known` into what this reading says, in file order: per list,
    /// a create (with its items) or a rename, the moves of lines the person moved, then item adds,
    /// replaces and removes, each followed by the tick of its box when that changed (a box ticked
    /// or unticked is a check or an uncheck, never a replace); a list that is no longer in the
    /// file is deleted where it used to be.
    package func edits(from known: ListBook) -> [FileEdit] {
        var edits: [FileEdit] = []
        let present = Set(sections.compactMap(\.id))
        let knownOrder = Dictionary(
            known.lists.enumerated().map { ($1.id, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        var deletions = known.lists.enumerated().filter { !present.contains($0.element.id) }.map {
            (position: $0.offset, list: $0.element)
        }

        func deleteLists(before position: Int) {
            while let first = deletions.first, first.position < position {
                // The line the list's heading was on is gone; report against the line where it stood.
                edits.append(FileEdit(edit: .deleteList(.id(first.list.id)), line: -1, section: nil))
                deletions.removeFirst()
            }
        }

        for (index, section) in sections.enumerated() {
            guard let id = section.id, let old = try? known.list(.id(id)) else {
                edits.append(
                    FileEdit(
                        edit: .createList(name: section.name, items: section.items.map(\.text)),
                        line: section.headingLine,
                        section: index
                    )
                )
                for line in section.items where line.checked {
                    edits.append(
                        FileEdit(edit: .checkItem(line.text, on: .name(section.name)), line: line.line, section: index)
                    )
                }
                // Its sections, each taking its items (the last first: each takes the items that
                // end the part above it), then the amounts.
                for (number, heading) in section.sectionLines.enumerated().reversed() {
                    edits.append(
                        FileEdit(
                            edit: .restoreSection(
                                heading.name,
                                on: .name(section.name),
                                before: section.sectionLines.indices.contains(number + 1) ? section.sectionLines[number + 1].name : nil,
                                items: section.items.filter { $0.section == number }.map(\.text)
                            ),
                            line: heading.line,
                            section: index
                        )
                    )
                }
                for line in section.items {
                    guard let quantity = line.quantity else { continue }
                    edits.append(
                        FileEdit(edit: .setQuantity(line.text, on: .name(section.name), quantity: quantity), line: line.line, section: index)
                    )
                }
                continue
            }
            deleteLists(before: knownOrder[id] ?? 0)
            if old.name != section.name {
                edits.append(
                    FileEdit(edit: .renameList(.id(id), to: section.name), line: section.headingLine, section: index)
                )
            }
            // Sections renamed, removed and added (none of which moves an item in the list's order).
            let structure = sectionEdits(of: section, at: index, from: old)
            edits += structure
            let newItems = section.items.map(\.text)
            // A moved line is the same item in a new place: moved first, so what follows is only
            // what was added, removed or edited. A line now under another section is moved, in
            // one change with its new section.
            let (moves, reordered) = ItemAlignment.moves(
                old: Array(old.items),
                new: newItems,
                mustMove: itemsChangingSection(section, from: old, after: structure.map(\.edit), in: known)
            )
            for move in moves {
                let line = section.items[move.newIndex]
                edits.append(
                    FileEdit(
                        edit: .moveItem(
                            old.items[move.oldIndex],
                            on: .id(id),
                            after: move.after.map { old.items[$0] },
                            section: section.sectionName(of: line)
                        ),
                        line: line.line,
                        section: index
                    )
                )
            }
            // A new amount typed, changed or deleted: one `quantity` change.
            func amount(_ line: ItemLine, was: String?) {
                guard line.quantity != was else { return }
                edits.append(FileEdit(edit: .setQuantity(line.text, on: .id(id), quantity: line.quantity), line: line.line, section: index))
            }
            // A check or an uncheck when the line's box says otherwise than the list.
            func tick(_ line: ItemLine, wasChecked: Bool) {
                guard line.checked != wasChecked else { return }
                let edit: ListEdit =
                    line.checked ? .checkItem(line.text, on: .id(id)) : .uncheckItem(line.text, on: .id(id))
                edits.append(FileEdit(edit: edit, line: line.line, section: index))
            }
            var position = 0
            for step in ItemAlignment.align(old: reordered, new: newItems) {
                switch step {
                case .keep(let oldIndex, let newIndex):
                    let line = section.items[newIndex]
                    if reordered[oldIndex] != line.text {
                        // Same item, new spelling.
                        edits.append(
                            FileEdit(
                                edit: .replaceItem(reordered[oldIndex], with: line.text, on: .id(id)),
                                line: line.line,
                                section: index
                            )
                        )
                    }
                    tick(line, wasChecked: old.isChecked(reordered[oldIndex]))
                    amount(line, was: old.quantities[reordered[oldIndex]])
                    position += 1
                case .replace(let oldIndex, let newIndex):
                    let line = section.items[newIndex]
                    edits.append(
                        FileEdit(
                            edit: .replaceItem(reordered[oldIndex], with: line.text, on: .id(id)),
                            line: line.line,
                            section: index
                        )
                    )
                    tick(line, wasChecked: old.isChecked(reordered[oldIndex]))
                    amount(line, was: old.quantities[reordered[oldIndex]])
                    position += 1
                case .remove(let oldIndex):
                    // Its line is gone: a removal refused leaves the item in the file again, and
                    // marks no line (the heading is not what was refused).
                    edits.append(
                        FileEdit(
                            edit: .removeItem(reordered[oldIndex], from: .id(id)),
                            line: -1,
                            section: index
                        )
                    )
                case .insert(let newIndex):
                    let line = section.items[newIndex]
                    edits.append(
                        FileEdit(
                            edit: .addItem(
                                line.text,
                                to: .id(id),
                                at: position,
                                section: section.sectionLines.isEmpty ? nil : section.sectionName(of: line),
                                quantity: line.quantity
                            ),
                            line: line.line,
                            section: index
                        )
                    )
                    tick(line, wasChecked: false)
                    position += 1
                }
            }
            edits += sectionMoves(of: section, at: index, after: edits.map(\.edit), from: old, in: known)
        }
        deleteLists(before: Int.max)
        return edits
    }
}

extension ListFileReading {
    /// The `##` lines' changes from `old`: a section whose name is still there is the same one; a
    /// new name over the items of a section that is gone is a rename (one change); what is left
    /// is removed (its items join the part above, as the file shows) or added (taking the items
    /// that end the part above, the ones the file shows under it). Sections whose order the
    /// person changed are removed and added again.
    func sectionEdits(of section: Section, at index: Int, from old: ShoppingList) -> [FileEdit] {
        let id = old.id
        let new = section.sectionLines
        var pairs: [Int: Int] = [:]  // new section → old section
        var taken: Set<Int> = []
        for (number, heading) in new.enumerated() {
            if let found = old.section(named: heading.name), !taken.contains(found) {
                pairs[number] = found
                taken.insert(found)
            }
        }
        // A renamed heading keeps some of its items.
        let oldKeys = old.sections.indices.map { Set(old.items[old.range(ofSection: $0)].map(ListText.key)) }
        for number in new.indices where pairs[number] == nil {
            let keys = Set(section.items.filter { $0.section == number }.map { ListText.key($0.text) })
            let best = old.sections.indices.filter { !taken.contains($0) }
                .map { ($0, oldKeys[$0].intersection(keys).count) }
                .max { $0.1 < $1.1 }
            if let (found, shared) = best, shared > 0 {
                pairs[number] = found
                taken.insert(found)
            }
        }
        // An emptied or retyped heading between the same neighbours is renamed too.
        let unpairedNew = new.indices.filter { pairs[$0] == nil }
        let unpairedOld = old.sections.indices.filter { !taken.contains($0) }
        if unpairedNew.count == unpairedOld.count {
            for (number, found) in zip(unpairedNew, unpairedOld) {
                pairs[number] = found
                taken.insert(found)
            }
        }
        // Kept in their order: the longest run of old places in increasing order.
        let ordered = new.indices.filter { pairs[$0] != nil }
        let keep = Set(ItemAlignment.longestIncreasingSubsequence(ordered.map { pairs[$0]! }).map { ordered[$0] })
        for number in ordered where !keep.contains(number) { pairs[number] = nil }

        var edits: [FileEdit] = []
        for number in new.indices.sorted() {
            guard let found = pairs[number], old.sections[found].name != new[number].name else { continue }
            edits.append(
                FileEdit(edit: .renameSection(old.sections[found].name, on: .id(id), to: new[number].name), line: new[number].line, section: index)
            )
        }
        let kept = Set(pairs.values)
        for found in old.sections.indices.reversed() where !kept.contains(found) {
            edits.append(FileEdit(edit: .removeSection(old.sections[found].name, on: .id(id)), line: -1, section: index))
        }
        for number in new.indices.reversed() where pairs[number] == nil {
            edits.append(
                FileEdit(
                    edit: .restoreSection(
                        new[number].name,
                        on: .id(id),
                        before: new.indices.contains(number + 1) ? new[number + 1].name : nil,
                        items: section.items.filter { $0.section == number }.map(\.text)
                    ),
                    line: new[number].line,
                    section: index
                )
            )
        }
        return edits
    }

    /// Indexes into `old.items` of the items the file shows under another section than they are
    /// in once the section edits `structure` are made.
    func itemsChangingSection(_ section: Section, from old: ShoppingList, after structure: [ListEdit], in known: ListBook) -> Set<Int> {
        guard !section.sectionLines.isEmpty || !old.sections.isEmpty else { return [] }
        var scratch = ListBook(lists: [old], revision: known.revision, nextID: known.nextID)
        for edit in structure { _ = try? scratch.apply(edit, at: Timestamp(millisecondsSinceEpoch: 0), origin: .file) }
        guard let list = try? scratch.list(.id(old.id)) else { return [] }
        var wanted: [String: String] = [:]
        for line in section.items { wanted[ListText.key(line.text)] = section.sectionName(of: line) }
        var changing: Set<Int> = []
        for (at, item) in list.items.enumerated() {
            if let name = wanted[ListText.key(item)], name != list.sectionName(list.section(ofItemAt: at)) { changing.insert(at) }
        }
        return changing
    }

    /// The items still under another section than the file shows once `edits` are made: each
    /// moved there, before the item that follows it there (the last first, so that item is in
    /// place already).
    func sectionMoves(of section: Section, at index: Int, after edits: [ListEdit], from old: ShoppingList, in known: ListBook) -> [FileEdit] {
        guard !section.sectionLines.isEmpty || !old.sections.isEmpty else { return [] }
        var scratch = ListBook(lists: [old], revision: known.revision, nextID: known.nextID)
        for edit in edits where edit.target == .id(old.id) {
            _ = try? scratch.apply(edit, at: Timestamp(millisecondsSinceEpoch: 0), origin: .file)
        }
        guard let list = try? scratch.list(.id(old.id)) else { return [] }
        // Each item's section by key, found again only after a move (one pass over the items).
        func sections(of list: ShoppingList) -> [String: String] {
            var names: [String: String] = [:]
            names.reserveCapacity(list.items.count)
            for target in [nil] + list.sections.indices.map(Optional.some) {
                let name = list.sectionName(target)
                for item in list.items[list.range(ofSection: target)] { names[ListText.key(item)] = name }
            }
            return names
        }
        var current = sections(of: list)
        var moves: [FileEdit] = []
        for (number, line) in section.items.enumerated().reversed() {
            let wanted = section.sectionName(of: line)
            guard let now = current[ListText.key(line.text)], now != wanted else { continue }
            let next = section.items.indices.contains(number + 1) && section.items[number + 1].section == line.section
                ? section.items[number + 1].text : nil
            let edit = ListEdit.moveItemInto(line.text, on: .id(old.id), section: wanted, before: next)
            moves.append(FileEdit(edit: edit, line: line.line, section: index))
            _ = try? scratch.apply(edit, at: Timestamp(millisecondsSinceEpoch: 0), origin: .file)
            if let updated = try? scratch.list(.id(old.id)) { current = sections(of: updated) }
        }
        return moves
    }
}
