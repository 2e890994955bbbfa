import ListModel

/// One edit a person made by saving the file, with the line it came from.
public struct FileEdit: Hashable, Sendable {
    public var edit: ListEdit
    /// Index in the document of the line that asks for it (the heading for list edits); -1 for a
    /// removal or a deletion, whose line is gone.
    public var line: Int
    /// Index of the section in the reading (to tie a created list to its heading).
    public var section: Int?
}

extension ListFileReading {
    /// The finest edits that turn `known` into what this reading says, in file order: per list,
    /// a create (with its items) or a rename, the moves of lines the person moved, then item adds,
    /// replaces and removes, each followed by the tick of its box when that changed (a box ticked
    /// or unticked is a check or an uncheck, never a replace); a list that is no longer in the
    /// file is deleted where it used to be.
    public func edits(from known: ListBook) -> [FileEdit] {
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
                continue
            }
            deleteLists(before: knownOrder[id] ?? 0)
            if old.name != section.name {
                edits.append(
                    FileEdit(edit: .renameList(.id(id), to: section.name), line: section.headingLine, section: index)
                )
            }
            let newItems = section.items.map(\.text)
            // A moved line is the same item in a new place: moved first, so what follows is only
            // what was added, removed or edited.
            let (moves, reordered) = ItemAlignment.moves(old: old.items, new: newItems)
            for move in moves {
                edits.append(
                    FileEdit(
                        edit: .moveItem(old.items[move.oldIndex], on: .id(id), after: move.after.map { old.items[$0] }),
                        line: section.items[move.newIndex].line,
                        section: index
                    )
                )
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
                        FileEdit(edit: .addItem(line.text, to: .id(id), at: position), line: line.line, section: index)
                    )
                    tick(line, wasChecked: false)
                    position += 1
                }
            }
        }
        deleteLists(before: Int.max)
        return edits
    }
}
