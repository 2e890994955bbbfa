// What a copy not tied to a version listd wrote may do (add and tick), and what is said of the rest.
import ListModel

extension SaveMerge {
    /// A save's edits as a copy too old to tell may make them: a line retyped in place is taken as
    /// the line added (what stood there may be something it never saw, and stays); a new `##` of a
    /// list that is there (`now`) is added empty: the lines under it that the list has are moves,
    /// which such a copy does not make (said, naming each), and those it lacks are added under it.
    package static func additionsOnly(_ edits: [FileEdit], of reading: ListFileReading, now: ListBook) -> [FileEdit] {
        edits.flatMap { fileEdit -> [FileEdit] in
            if case .restoreSection(let name, .id(let id), let before, let items) = fileEdit.edit, let list = try? now.list(.id(id)) {
                let lines = fileEdit.section.map { reading.sections[$0].items } ?? []
                let moves = items.filter { list.index(ofItem: $0) != nil }.map { item in
                    FileEdit(
                        edit: .moveItemInto(item, on: .id(id), section: name, before: nil),
                        line: lines.first { ListText.key($0.text) == ListText.key(item) }?.line ?? fileEdit.line,
                        section: fileEdit.section
                    )
                }
                return [FileEdit(edit: .addSection(name, on: .id(id), before: before), line: fileEdit.line, section: fileEdit.section)] + moves
            }
            return retypeSplit(fileEdit, of: reading) ?? [fileEdit]
        }
    }

    /// A retyped line (`replaceItem`) as its two halves, each decided on its own: the old text
    /// taken off (a removal: its line is gone), and the new text added with its box, amount and
    /// section as the line shows them (a retype kept them). Nil for any other edit.
    package static func retypeSplit(_ fileEdit: FileEdit, of reading: ListFileReading) -> [FileEdit]? {
        guard case .replaceItem(let item, let text, let reference) = fileEdit.edit else { return nil }
        let heading = fileEdit.section.map { reading.sections[$0] }
        let line = heading?.items.first { $0.line == fileEdit.line }
        // Under the `##` the line is under: the new text goes where the person typed it.
        let under = line?.section.flatMap { heading?.sectionLines[$0].name }
        var halves = [
            FileEdit(edit: .removeItem(item, from: reference), line: -1, section: fileEdit.section),
            FileEdit(edit: .addItem(text, to: reference, section: under, quantity: line?.quantity), line: fileEdit.line, section: fileEdit.section),
        ]
        if line?.checked == true {
            halves.append(FileEdit(edit: .checkItem(text, on: reference), line: fileEdit.line, section: fileEdit.section))
        }
        return halves
    }

    /// An edit that cannot undo anything done meanwhile, whatever the copy it came from.
    package static func isAdditive(_ edit: ListEdit) -> Bool {
        switch edit {
        case .createList, .addItem, .checkItem, .addSection, .restoreSection: true
        default: false
        }
    }


    /// A copy not tied to a version (`baseKnown` false) never brings into a list an item that
    /// stands on another (its heading may be another list's, or the item was moved since): why
    /// an add of one, or a new list of only such items, is not taken.
    func standsElsewhere(_ edit: ListEdit) -> String? {
        func elsewhere(_ item: String, besides id: ListID?) -> ShoppingList? {
            now.lists.first { $0.id != id && $0.index(ofItem: item) != nil }
        }
        let why =
            "a copy of the file without listd's notes does not bring items from one list to another; add it here in the file as it is now if you want it on both."
        switch edit {
        case .addItem(let item, let reference, _, _, _):
            guard let list = try? now.list(reference), list.index(ofItem: item) == nil, let other = elsewhere(item, besides: list.id)
            else { return nil }
            return "“\(item)” is on \(other.name): \(why)"
        case .createList(let name, let items, _):
            guard !items.isEmpty, (try? now.list(.name(name))) == nil, let other = elsewhere(items[0], besides: nil),
                items.allSatisfy({ elsewhere($0, besides: nil) != nil })
            else { return nil }
            return "The items under “\(name)” are on \(other.name) already: \(why)"
        default:
            return nil
        }
    }


    /// What an edit not taken would have done, naming its item or list (the start of a sentence).
    func notTaken(_ edit: ListEdit) -> String {
        func listName(_ reference: ListReference) -> String {
            switch reference {
            case .id(let id): (try? now.list(.id(id)).name) ?? (try? base.list(.id(id)).name) ?? "the list"
            case .name(let name): name
            }
        }
        return switch edit {
        case .removeItem(let item, _): "“\(item)” was not taken off"
        case .removeItems(let items, _): items.map { "“\($0)”" }.joined(separator: ", ") + " were not taken off"
        case .replaceItem(let item, let text, _): "“\(item)” was not changed to “\(text)”"
        case .uncheckItem(let item, _): "“\(item)” was not unticked"
        case .setQuantity(let item, _, let quantity):
            quantity.map { "“\(item)” was not given the amount \($0)" } ?? "“\(item)” was not left without an amount"
        case .moveItem(let item, _, _, _), .moveItemInto(let item, _, _, _): "“\(item)” was not moved"
        case .renameList(let list, let name): "“\(listName(list))” was not renamed “\(name)”"
        case .deleteList(let list): "“\(listName(list))” was not deleted"
        case .renameSection(let section, _, let name): "The section “\(section)” was not renamed “\(name)”"
        case .removeSection(let section, _): "The section “\(section)” was not removed"
        case .clearChecked(let list, _, _): "The ticked items of “\(listName(list))” were not cleared"
        default: "This change was not made"
        }
    }
}
