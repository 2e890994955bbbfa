// Where the texts a copy may have been read from disagree about what the person did: nothing guessed.
import ListModel

/// A copy of the list file names the revision it was read at, but a person's save taken in
/// from that revision stayed on disk with the same `rev=`: the copy may have been read from
/// listd's text of the revision or from any such save (one buffer saved again and again; another
/// person who read the file while it showed a save). The base `SaveBase.madeFrom` chooses is the
/// closest; where another of them shows an item, a tick, an amount, a list's name or the list
/// itself as the copy does while the lists now differ, the copy may have changed nothing there —
/// or the person may have put back what an earlier save did (their revert). That is not guessed:
/// the lists keep what they have, and the person is told, naming the item.
package struct SaveReadings {
    /// The lists the copy shows (the chosen base with the copy's edits), by list id.
    package let copy: ListBook
    let now: ListBook
    let others: [ListBook]
    /// The chosen text as written, when some of its edits were not taken (`SaveBase.asWritten`).
    let asWritten: ListBook?
    /// The lists of the chosen base (a list the copy makes takes the next id there, which may be
    /// another reading's list's).
    let chosenIDs: Set<ListID>
    /// The lists of the chosen base.
    let chosen: ListBook

    /// `chosen`: the base the save's `edits` were computed from; `others`: the lists of the
    /// other texts the copy may have been read from (`SaveBase.others`).
    /// The lists of listd's text of the copy's revision, when known: a list of a reading not
    /// among them was typed by a save from that revision.
    let revisionLists: Set<ListID>?

    package init(
        chosen: ListBook,
        edits: [FileEdit],
        others: [ListBook],
        asWritten: ListBook? = nil,
        revisionLists: Set<ListID>? = nil,
        now: ListBook,
        at time: Timestamp
    ) {
        var copy = chosen
        // Only when there is something to weigh it against: a long save's edits are not applied
        // twice for nothing.
        if !others.isEmpty || asWritten != nil {
            // An edit that fails in file order may pass once a later one is made (a list renamed
            // to the name of one the copy deleted further down): tried again once.
            var failed: [ListEdit] = []
            for fileEdit in edits where (try? copy.apply(fileEdit.edit, at: time, origin: .file(host: nil))) == nil {
                failed.append(fileEdit.edit)
            }
            for edit in failed { _ = try? copy.apply(edit, at: time, origin: .file(host: nil)) }
        }
        self.copy = copy
        chosenIDs = Set(chosen.lists.map(\.id))
        self.chosen = chosen
        self.revisionLists = revisionLists
        self.now = now
        self.others = others
        self.asWritten = asWritten
    }

    /// Nothing to weigh: the copy can have been read from one text only.
    package var isCertain: Bool { others.isEmpty && asWritten == nil }

    /// What one edit is about: one thing a list shows.
    enum Aspect: Hashable {
        case item(ListID, String)
        case tick(ListID, String)
        case amount(ListID, String)
        case name(ListID)
        case list(ListID)
        /// A list of this name (by key) is there: a heading the copy has and a reading lacks.
        case listNamed(String)
        /// The list has a section of this name (by key).
        case section(ListID, String)
        /// The section an item is in.
        case itemSection(ListID, String)
    }

    /// Why `edit` (one of the save's, from the chosen base) is not taken: another text the copy
    /// may have been read from shows that thing as the copy does, so the person may not have
    /// changed it, and the lists now show it otherwise. Nil when it follows from every reading,
    /// or the lists show it as the copy does already.
    package func doubt(_ edit: ListEdit) -> String? {
        if let renamed = listRenamedInAnotherReading(edit) {
            return "“\(renamed.new)” is not made: it may be \(renamed.old) renamed (a save made from the same version shows \(renamed.old) with these items); rename \(renamed.old) in the file as it is now if you meant to, or type the new list again."
        }
        if case .createList(let name, let items, _) = edit, let gone = listDeletedSinceInAReading(named: name, items: items) {
            let which = ListText.key(gone) == ListText.key(name) ? "a list \(gone)" : "a list \(gone) (this heading over its items may be it renamed)"
            return "“\(name)” is not made: a save made from the same version made \(which), deleted since, and your copy may have been read after that save; type the heading again, under this name or another, if you want it."
        }
        if let tied = listNewInAnotherReading(edit) {
            let after = ListText.key(tied.heading) == ListText.key(tied.list) ? "these lines change that list" : "this heading is \(tied.list) renamed"
            // An edit of an item under it names the item.
            let subject = Self.item(of: edit).map { "“\($0)” under “\(tied.heading)”" } ?? "“\(tied.heading)”"
            return "\(subject) is not taken: your copy of the file may have been read before or after a save made from the same version that typed \(tied.list); read after it, \(after), read before it, they are a new list. Change \(tied.list) in the file as it is now, or type the new list again under a name of its own, if you meant to."
        }
        for aspect in aspects(of: edit) where value(aspect, in: now) != copyValue(aspect) {
            if others.contains(where: { value(aspect, in: $0) == copyValue(aspect) }) {
                return sentence(aspect)
            }
        }
        return nil
    }

    /// A new list the chosen reading makes over any of the items of a list the buffer typed in
    /// an earlier save (one reading shows it, another lacks it) that the lists still have under
    /// another name and the copy shows nowhere else: in the reading that shows it, the heading
    /// may be that list renamed, its lines retyped (the buffer that made it renaming it in a
    /// later save) — or that list taken out and another typed. Neither is certain: said. Its
    /// name then and the new one.
    func listRenamedInAnotherReading(_ edit: ListEdit) -> (old: String, new: String)? {
        guard case .createList(let name, let items, _) = edit, !items.isEmpty else { return nil }
        let keys = Set(items.map(ListText.key))
        func shared(_ list: ShoppingList) -> Int { list.items.filter { keys.contains(ListText.key($0)) }.count }
        for other in others {
            for list in other.lists where !chosenIDs.contains(list.id) && ListText.key(list.name) != ListText.key(name) {
                guard let standing = try? now.list(.id(list.id)) else { continue }
                if shared(list) > 0 { return (standing.name, name) }
            }
        }
        for list in chosen.lists where (try? copy.list(.id(list.id))) == nil && ListText.key(list.name) != ListText.key(name) && revisionLists?.contains(list.id) != true {
            guard others.contains(where: { (try? $0.list(.id(list.id))) == nil }), let standing = try? now.list(.id(list.id)) else { continue }
            if shared(list) > 0 { return (standing.name, name) }
        }
        return nil
    }

    /// An edit of a list a save from the same version made (listd's text of the version lacks
    /// it, so does another reading: read so, the copy's heading is a new list) when the copy's heading is
    /// not plainly that save's: under another name (tied by its items), or showing fewer than
    /// half of its lines as that save's text does (another person who typed a list of the same
    /// name; a buffer saving its own list again keeps most of it). Neither reading is certain:
    /// nothing under the heading is done. The copy's heading and the list's name now.
    func listNewInAnotherReading(_ edit: ListEdit) -> (heading: String, list: String)? {
        guard let reference = edit.target, let id = listID(reference), chosenIDs.contains(id),
            let shown = try? copy.list(.id(id)), let standing = try? now.list(.id(id)).name,
            let made = try? chosen.list(.id(id)), revisionLists?.contains(id) != true,
            others.contains(where: { (try? $0.list(.id(id))) == nil })
        else { return nil }
        if ListText.key(shown.name) != ListText.key(standing) { return (shown.name, standing) }
        // A line is as the save showed it when its item is there, in the same section.
        let kept = shown.items.indices.filter { index in
            guard let was = made.index(ofItem: shown.items[index]) else { return false }
            return made.sectionName(made.section(ofItemAt: was)) == shown.sectionName(shown.section(ofItemAt: index))
        }
        return kept.count * 2 < shown.items.count ? (shown.name, standing) : nil
    }

    /// A list a save from the copy's version made (listd's text of the version lacks it) that is
    /// deleted now, when the lists have none of the heading's name: the copy's heading may be it,
    /// typed in that save and never given listd's note, under its name or renamed since in the
    /// buffer (over at least half of its items) — made again, it would bring back a deleted list.
    /// Its name.
    func listDeletedSinceInAReading(named name: String, items: [String] = []) -> String? {
        guard (try? now.list(.name(name))) == nil else { return nil }
        let keys = Set(items.map(ListText.key))
        for book in [chosen] + others {
            for list in book.lists where revisionLists?.contains(list.id) != true && (try? now.list(.id(list.id))) == nil && list.id < now.nextID {
                let shared = list.items.filter { keys.contains(ListText.key($0)) }.count
                // By its items only when listd's text of the version is known to lack it.
                let renamed = revisionLists != nil && shared > 0 && shared * 2 >= items.count
                if ListText.key(list.name) == ListText.key(name) || renamed { return list.name }
            }
        }
        return nil
    }

    /// The item an edit is about, if it is about one.
    static func item(of edit: ListEdit) -> String? {
        switch edit {
        case .addItem(let item, _, _, _, _), .removeItem(let item, _), .checkItem(let item, _), .uncheckItem(let item, _),
            .setQuantity(let item, _, _), .moveItem(let item, _, _, _), .moveItemInto(let item, _, _, _), .replaceItem(let item, _, _):
            item
        default: nil
        }
    }

    /// The edits another reading would make that the chosen one does not, on things the lists
    /// now show otherwise than the copy: each with why it is not made (said, never done).
    package func unmade(by reading: ListFileReading, besides edits: [FileEdit]) -> [(FileEdit, String)] {
        var covered = Set(edits.flatMap { aspects(of: $0.edit) })
        var found: [(FileEdit, String)] = []
        for other in others + (asWritten.map { [$0] } ?? []) {
            for fileEdit in reading.edits(from: other) {
                for aspect in aspects(of: fileEdit.edit) where !covered.contains(aspect) {
                    guard value(aspect, in: now) != copyValue(aspect) else { continue }
                    covered.insert(aspect)
                    found.append((fileEdit, sentence(aspect)))
                }
            }
        }
        return found
    }

    func aspects(of edit: ListEdit) -> [Aspect] {
        if case .createList(let name, _, _) = edit { return [.listNamed(ListText.key(name))] }
        guard let reference = edit.target, let id = listID(reference) else { return [] }
        switch edit {
        case .addSection(let section, _, _), .restoreSection(let section, _, _, _), .removeSection(let section, _):
            return [.section(id, ListText.key(section))]
        case .renameSection(let section, _, let name): return [.section(id, ListText.key(section)), .section(id, ListText.key(name))]
        case .moveItem(let item, _, _, .some), .moveItemInto(let item, _, .some, _): return [.itemSection(id, ListText.key(item))]
        case .addItem(let item, _, _, _, _), .removeItem(let item, _): return [.item(id, ListText.key(item))]
        case .replaceItem(let item, let text, _): return [.item(id, ListText.key(item)), .item(id, ListText.key(text))]
        case .checkItem(let item, _), .uncheckItem(let item, _): return [.tick(id, ListText.key(item))]
        case .setQuantity(let item, _, _): return [.amount(id, ListText.key(item))]
        case .renameList: return [.name(id)]
        case .deleteList: return [.list(id)]
        default: return []
        }
    }

    private func listID(_ reference: ListReference) -> ListID? {
        switch reference {
        case .id(let id): id
        case .name: (try? copy.list(reference).id) ?? (try? now.list(reference).id)
        }
    }

    /// What the copy shows of `aspect`. A list the copy made takes the next id of the chosen base,
    /// which may be another reading's list's (the list the buffer typed in its first save, whose
    /// block the copy took out): that list, deleted or renamed by id, is not the copy's new one.
    /// (An item's aspect names the list by the copy's own reference: it stays the copy's.)
    func copyValue(_ aspect: Aspect) -> String? {
        switch aspect {
        case .list(let id), .name(let id): chosenIDs.contains(id) ? value(aspect, in: copy) : nil
        default: value(aspect, in: copy)
        }
    }

    /// What `book` shows of `aspect` (nil: nothing, the item or the list is not there).
    func value(_ aspect: Aspect, in book: ListBook) -> String? {
        switch aspect {
        case .list(let id): return (try? book.list(.id(id))) == nil ? nil : "there"
        case .name(let id): return try? book.list(.id(id)).name
        case .listNamed(let key): return (try? book.list(.name(key))) == nil ? nil : "there"
        case .section(let id, let key):
            guard let list = try? book.list(.id(id)) else { return nil }
            return list.sections.contains { ListText.key($0.name) == key } ? "there" : nil
        case .itemSection(let id, let key):
            guard let list = try? book.list(.id(id)), let index = list.index(ofItem: key) else { return nil }
            return list.sectionName(list.section(ofItemAt: index))
        case .item(let id, let key), .tick(let id, let key), .amount(let id, let key):
            guard let list = try? book.list(.id(id)), let index = list.index(ofItem: key) else { return nil }
            let item = list.items[index]
            switch aspect {
            case .tick: return list.isChecked(item) ? "ticked" : "unticked"
            case .amount: return list.quantities[item] ?? ""
            default: return "there"
            }
        }
    }

    /// The sentence said of an aspect kept as the lists now show it.
    func sentence(_ aspect: Aspect) -> String {
        let why =
            "your copy of the file may have been read before or after a save made from the same version, and they differ here; change it again in the file as it is now if you meant to."
        func listName(_ id: ListID) -> String { (try? now.list(.id(id)).name) ?? (try? copy.list(.id(id)).name) ?? "the list" }
        func item(_ id: ListID, _ key: String) -> String {
            for book in [now, copy] + others {
                if let list = try? book.list(.id(id)), let index = list.index(ofItem: key) { return list.items[index] }
            }
            return key
        }
        switch aspect {
        case .tick(let id, let key) where value(.item(id, key), in: now) == nil, .amount(let id, let key) where value(.item(id, key), in: now) == nil:
            // Its tick or amount differs, but the item is not on the list now at all.
            return "“\(item(id, key))” stays off \(listName(id)): \(why)"
        case .item(let id, let key):
            let state = value(aspect, in: now) == nil ? "stays off \(listName(id))" : "stays on \(listName(id))"
            return "“\(item(id, key))” \(state): \(why)"
        case .tick(let id, let key):
            return "“\(item(id, key))” stays \(value(aspect, in: now) == "ticked" ? "ticked off" : "unticked"): \(why)"
        case .amount(let id, let key):
            let amount = value(aspect, in: now).flatMap { $0.isEmpty ? nil : $0 }
            return "“\(item(id, key))” stays \(amount.map { "at \($0)" } ?? "without an amount"): \(why)"
        case .name(let id) where value(.list(id), in: now) == nil:
            return "“\(listName(id))” stays deleted: \(why)"
        case .name(let id):
            return "The list stays named “\(listName(id))”: \(why)"
        case .list(let id):
            return value(aspect, in: now) == nil ? "“\(listName(id))” stays deleted: \(why)" : "“\(listName(id))” is kept: \(why)"
        case .listNamed(let key):
            let name = (try? copy.list(.name(key)).name) ?? key
            return value(aspect, in: now) == nil ? "“\(name)” is not made: \(why)" : "“\(name)” is kept: \(why)"
        case .section(let id, let key):
            let name = (try? now.list(.id(id)))?.sections.first { ListText.key($0.name) == key }?.name ?? key
            return "The section “\(name)” \(value(aspect, in: now) == nil ? "stays off" : "stays on") \(listName(id)): \(why)"
        case .itemSection(let id, let key):
            let section = value(aspect, in: now) ?? ""
            return "“\(item(id, key))” stays \(section.isEmpty ? "in no section" : "under \(section)"): \(why)"
        }
    }
}
