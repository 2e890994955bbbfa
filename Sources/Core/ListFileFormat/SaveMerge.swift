import ListModel

/// The three-way rule of a save made from an older copy: the person's edits (from the copy's
/// lists, `base`) are applied to the lists as they are now (`now`), and a change confirmed in
/// between is never undone. Where the person changed an item someone else also changed or removed
/// since, the change already made stands, and the person's edit is not taken: `conflict` says why,
/// in a sentence for the file and for `didRejectFileEdit`. Edits that only agree with what was done
/// meanwhile (both removed it, both ticked it) are no conflict.
package struct SaveMerge {
    package let base: ListBook
    package let now: ListBook
    package let baseKnown: Bool
    /// What the history did after the base (`SaveBase.since`): what was taken off is not brought
    /// back, and a tick changed since stands.
    package let since: ChangesSince
    /// What the edits were made on, as the sentences name it.
    package let madeOn: MadeOn

    /// A person's save of an old copy of the file, or a client's edit made on older lists (an
    /// offline phone's queue, `basedOn`).
    package enum MadeOn: Sendable {
        case fileCopy, olderLists

        var since: String {
            switch self {
            case .fileCopy: "after your copy of the file was read"
            case .olderLists: "after this edit was made"
            }
        }

        /// Why an edit of a copy nothing kept is close to is not taken, beginning with `what`
        /// (the edit, naming its item or list).
        func tooOld(what: String) -> String {
            switch self {
            case .fileCopy:
                "\(what): your copy of the file is not tied to a version listd wrote (its listd notes are missing, or older than the changes listd keeps), so only what it adds and ticks off was taken; change this again in the file as it is now."
            case .olderLists:
                "\(what): this edit was made on lists older than the changes listd keeps, so only adds and ticks are taken from it; make it again on the lists as they are now."
            }
        }
    }

    /// Per list: the list in both books, with its items by key (built once: a save of thousands
    /// of lines asks of each of them), nil when it is in one of them only.
    private var pairs: [ListID: ListPair?] = [:]

    fileprivate struct ListPair {
        var old: ShoppingList
        var new: ShoppingList
        /// Nothing changed since the copy: no conflict is possible.
        var same: Bool
        /// The items of `old` that `new` has under another text at the same place.
        var renamed: [String: String]?

        // Found by the lists' own lookups (an item's hash beside it): no index of every item's
        // folded key is built for a save of one line on a long list.
        func indexInOld(_ item: String) -> Int? { old.index(ofItem: item) }
        func indexInNew(_ item: String) -> Int? { new.index(ofItem: item) }
    }

    package init(
        base: ListBook,
        now: ListBook,
        baseKnown: Bool,
        since: ChangesSince = ChangesSince(),
        madeOn: MadeOn = .fileCopy
    ) {
        self.base = base
        self.now = now
        self.baseKnown = baseKnown
        self.since = since
        self.madeOn = madeOn
    }

    /// A save read against `base`.
    package init(_ base: SaveBase, now: ListBook) {
        self.init(base: base.book, now: now, baseKnown: base.takesEveryEdit, since: base.since)
        headingsAreTheCopys = base.kind == .revision
    }

    /// The copy's headings carry their lists' ids (its base is the revision it names): one
    /// without an id is a list the person typed, never a deleted list's heading brought back.
    private var headingsAreTheCopys = false

    private mutating func pair(_ reference: ListReference?) -> ListPair? {
        // A save names its lists by id; a client's edit may name one by its name (as it is now).
        guard let reference, let id = (try? now.list(reference))?.id ?? { if case .id(let id) = reference { id } else { nil } }()
        else { return nil }
        if let found = pairs[id] { return found }
        var found: ListPair?
        if let old = try? base.list(.id(id)), let new = try? now.list(.id(id)) {
            let same = old.items == new.items && old.checked == new.checked && old.quantities == new.quantities
                && old.sections == new.sections && old.name == new.name
            found = ListPair(old: old, new: new, same: same)
        }
        pairs[id] = .some(found)
        return found
    }

    /// What became of an edit someone else made meanwhile too.
    package enum AlreadyDone: Sendable, Equatable {
        /// Nothing to do, and nothing to report.
        case done
        /// Done, but for what the edit also says that was not (the amount or section an add
        /// gave): this instead.
        case doneBut(ListEdit)
        /// Done, with another amount or section: that stays, and this says so.
        case doneDifferently(String)
    }

    /// Whether `edit` was made meanwhile by someone else too: an item the copy did not have and
    /// the lists now have (both added it), or one the copy had and the lists no longer have (both
    /// took it off; not renamed). Nil: not done.
    package mutating func alreadyDone(_ edit: ListEdit) -> AlreadyDone? {
        switch edit {
        case .addItem(let item, let reference, _, let section, let quantity):
            guard let pair = pair(reference), !pair.same, pair.indexInOld(item) == nil, let index = pair.indexInNew(item) else {
                return nil
            }
            let list = pair.new
            let text = list.items[index]
            let current = (quantity: list.quantities[text], section: list.sectionName(list.section(ofItemAt: index)))
            // What the edit says that the item added meanwhile lacks is taken; what it says
            // otherwise than the item has is reported.
            var quantityToSet: String?
            var sectionToSet: String?
            if let quantity, quantity != current.quantity {
                guard current.quantity == nil else {
                    return .doneDifferently("“\(text)” was added to \(list.name) \(madeOn.since) with the amount \(current.quantity!), so that stays.")
                }
                quantityToSet = quantity
            }
            if let section, ListText.key(section) != ListText.key(current.section) {
                guard current.section.isEmpty else {
                    return .doneDifferently("“\(text)” was added to \(list.name) \(madeOn.since) under \(current.section), so it stays there.")
                }
                sectionToSet = section
            }
            switch (quantityToSet, sectionToSet) {
            case (nil, nil): return .done
            case (let quantity?, nil): return .doneBut(.setQuantity(text, on: .id(list.id), quantity: quantity))
            case (nil, let section?) where list.section(named: section) != nil:
                return .doneBut(.moveItemInto(text, on: .id(list.id), section: section, before: nil))
            case (let quantity, let section?):
                // Both, or a section the list does not have yet (an add makes it; a move into
                // it would be refused `sectionNotFound`): as one change, the item restated with
                // them.
                var placed = list.placed(at: index)
                if let quantity { placed.quantity = quantity }
                placed.section = section
                return .doneBut(.restoreItem(placed, on: .id(list.id)))
            }
        case .removeItem(let item, let reference):
            guard let pair = pair(reference), !pair.same, pair.indexInOld(item) != nil, pair.indexInNew(item) == nil,
                renamed(item, in: pair) == nil
            else { return nil }
            return .done
        case .addSection(let section, let reference, _), .restoreSection(let section, let reference, _, _):
            // Made meanwhile by someone else (the copy did not have it): the same section.
            guard let pair = pair(reference), !pair.same, pair.old.section(named: section) == nil, pair.new.section(named: section) != nil
            else { return nil }
            return .done
        default:
            return nil
        }
    }

    /// What `item` (on the base) is called now when someone renamed it since: from the history
    /// when it is known (every rename since, in order), else the diff's guess of what stands in
    /// its place.
    private mutating func renamed(_ item: String, in pair: ListPair) -> String? {
        if since.isKnown {
            guard let found = since.renamed(item, on: pair.new.id), pair.indexInNew(found.now) != nil else { return nil }
            return found.now
        }
        var pair = pair
        defer { pairs[pair.new.id] = pair }
        return pair.renamedItem(item)
    }

    /// Why an edit of an item the copy had and the lists no longer have is not taken (an item the
    /// copy did not have is the save's own: a line it added, then ticked).
    private mutating func gone(_ item: String, in pair: ListPair) -> String? {
        guard pair.indexInOld(item) != nil, pair.indexInNew(item) == nil else { return nil }
        let since = madeOn.since
        if let other = renamed(item, in: pair) {
            return "“\(item)” was changed to “\(other)” on \(pair.new.name) \(since), so your change of it was not taken."
        }
        return "“\(item)” was taken off \(pair.new.name) \(since), so your change of it was not taken."
    }

    /// Why `edit` is not taken, or nil when it may be applied (the rules still decide).
    package mutating func conflict(_ edit: ListEdit) -> String? {
        if let why = broughtBack(edit) { return why }
        if !baseKnown, !Self.isAdditive(edit) { return madeOn.tooOld(what: notTaken(edit)) }
        if !baseKnown, let why = standsElsewhere(edit) { return why }
        guard var pair = pair(edit.target), !pair.same else { return nil }
        defer { pairs[pair.new.id] = pair }
        let (old, new) = (pair.old, pair.new)
        let since = madeOn.since
        switch edit {
        case .removeItem(let item, _):
            guard let before = pair.indexInOld(item) else { return nil }
            if let index = pair.indexInNew(item) {
                guard let what = Self.changed(from: old, at: before, to: new, at: index) else { return nil }
                return "“\(item)” was \(what) on \(new.name) \(since), so it stays: remove it again if you still want it gone."
            }
            guard let other = renamed(item, in: pair) else { return nil }
            return "“\(item)” was changed to “\(other)” on \(new.name) \(since), so “\(other)” stays."
        case .replaceItem(let item, _, _):
            // Retyped: also when it was changed meanwhile (which line became which is the diff's
            // guess, and a guess must not carry a tick or an amount to another item).
            if let gone = gone(item, in: pair) { return gone }
            guard let before = pair.indexInOld(item), let index = pair.indexInNew(item),
                let what = Self.changed(from: old, at: before, to: new, at: index)
            else { return nil }
            return "“\(item)” was \(what) on \(new.name) \(since), so your change of it was not taken."
        case .checkItem(let item, _), .uncheckItem(let item, _):
            return gone(item, in: pair)
        case .setQuantity(let item, _, let quantity):
            if let gone = gone(item, in: pair) { return gone }
            guard let before = pair.indexInOld(item), let after = pair.indexInNew(item) else { return nil }
            let (was, current) = (old.quantities[old.items[before]], new.quantities[new.items[after]])
            guard was != current, current != quantity else { return nil }
            return "The amount of “\(item)” was \(current.map { "changed to \($0)" } ?? "taken off") \(since), so that stays."
        case .moveItem(let item, _, _, let section), .moveItemInto(let item, _, let section, _):
            if let gone = gone(item, in: pair) { return gone }
            guard let from = pair.indexInOld(item), let to = pair.indexInNew(item) else { return nil }
            let (was, current) = (old.sectionName(old.section(ofItemAt: from)), new.sectionName(new.section(ofItemAt: to)))
            guard was != current, current != (section ?? was) else { return nil }
            return "“\(item)” was moved \(current.isEmpty ? "out of its section" : "to \(current)") \(since), so it stays there."
        case .renameList(_, let name):
            guard new.name != old.name, new.name != name else { return nil }
            return "\(old.name) was renamed to \(new.name) \(since), so that name stays."
        case .deleteList:
            return "\(new.name) was changed \(since), so it was not deleted: delete it again if you still want it gone."
        default:
            return nil
        }
    }

    /// `edit` with the sections it names called what they are called now: a section renamed since
    /// the base is the same section (an add under `## Dairy` in a copy read before Dairy became
    /// Fridge goes into Fridge, not into a second Dairy).
    package func renamingSections(_ edit: ListEdit) -> ListEdit {
        guard !since.sectionRenames.isEmpty, let reference = edit.target, let list = try? now.list(reference) else { return edit }
        func current(_ section: String?) -> String? {
            guard let section, list.section(named: section) == nil, let renamed = since.sectionName(section, on: list.id),
                list.section(named: renamed) != nil
            else { return section }
            return renamed
        }
        switch edit {
        case .addItem(let item, let target, let at, let section, let quantity):
            return .addItem(item, to: target, at: at, section: current(section), quantity: quantity)
        case .moveItem(let item, let target, let after, let section):
            return .moveItem(item, on: target, after: after, section: current(section))
        case .moveItemInto(let item, let target, let section, let before):
            return .moveItemInto(item, on: target, section: current(section), before: before)
        default:
            return edit
        }
    }

    /// `edit` as made on the base: a clear takes off what was ticked then and still is, and
    /// keeps what was ticked since (the page showed "Clear 1 ticked"; eggs, ticked at home
    /// meanwhile, stays).
    package func narrowed(_ edit: ListEdit) -> ListEdit {
        // A clear that names what it clears (`only`) says it already.
        guard baseKnown, case .clearChecked(let reference, let keeping, nil) = edit, let list = try? now.list(reference) else {
            return edit
        }
        let tickedThen = Set(((try? base.list(.id(list.id)))?.checkedItems ?? []).map(ListText.key))
        let tickedSince = list.checkedItems.map(ListText.key).filter { !tickedThen.contains($0) }
        guard !tickedSince.isEmpty else { return edit }
        return .clearChecked(reference, keeping: keeping.union(tickedSince))
    }

    /// Why `edit` is not taken when it would bring back an item or a list the history took off or
    /// renamed after the base (a copy shows an item added and taken off since, or its base was
    /// found by content and predates that), or undo a tick changed since: nil when it would not.
    func broughtBack(_ edit: ListEdit) -> String? {
        guard !since.isEmpty else { return nil }
        switch edit {
        case .addItem(let item, let reference, _, _, _):
            guard let list = try? now.list(reference), (try? base.list(.id(list.id)))?.index(ofItem: item) == nil,
                list.index(ofItem: item) == nil
            else { return nil }
            guard let removal = since.removal(of: item, on: list.id) else {
                // A copy not tied to a version may show under this heading another list's
                // items, or a deleted list's: what was taken off anywhere is not brought back.
                // (A client's edit names its list by id: this is the file's doubt only.)
                guard !baseKnown, madeOn == .fileCopy, let elsewhere = since.removalElsewhere(of: item, besides: list.id) else { return nil }
                let from = elsewhere.list.flatMap { try? now.list(.id($0)).name } ?? elsewhere.name.map { "the list \($0), deleted" }
                let what = elsewhere.list == nil ? "went with \(from ?? "a deleted list")" : "was taken off \(from ?? "another list")"
                return "“\(elsewhere.change.text)” \(what) \(elsewhere.change.byWhomAndWhen); a copy of the file without listd's notes does not bring it back — add it again in the file as it is now if you want it."
            }
            let what =
                removal.renamedTo.map { "was changed to “\($0)” on \(list.name)" } ?? "was taken off \(list.name)"
            return "“\(removal.text)” \(what) \(removal.byWhomAndWhen); not brought back — add it again if you want it."
        case .createList(let name, let items, _):
            guard !headingsAreTheCopys, (try? now.list(.name(name))) == nil else { return nil }
            guard let removal = since.removal(ofList: name) else {
                // A copy not tied to a version showing, under a heading the person renamed, a list
                // deleted since (or items taken off): mostly what was taken off is not a new list.
                guard !baseKnown, madeOn == .fileCopy, !items.isEmpty else { return nil }
                let gone = items.compactMap { since.removalElsewhere(of: $0, besides: nil) }
                guard gone.count * 2 >= items.count, let first = gone.first else { return nil }
                let from = first.list == nil ? first.name.map { "went with \($0), deleted" } ?? "went with a deleted list" : "were taken off"
                return "The items under “\(name)” \(from) \(first.change.byWhomAndWhen); a copy of the file without listd's notes does not bring them back as a new list — type it again in the file as it is now if you want it."
            }
            let what = removal.renamedTo.map { "was renamed \($0)" } ?? "was deleted"
            return "\(removal.text) \(what) \(removal.byWhomAndWhen); not brought back — create it again if you want it."
        case .checkItem(let item, let reference), .uncheckItem(let item, let reference):
            let wanted: Bool
            if case .checkItem = edit { wanted = true } else { wanted = false }
            guard let list = try? now.list(reference), let index = list.index(ofItem: item) else { return nil }
            guard let tick = since.tick(of: item, on: list.id), tick.checked != wanted, list.isChecked(list.items[index]) != wanted else {
                // A copy not tied to a version whose heading is the name of a list deleted since,
                // over an item that went with it: its tick is that deleted list's (a copy older
                // than the deletion), not one of the list made since under its name.
                guard wanted, !baseKnown, madeOn == .fileCopy, !list.isChecked(list.items[index]),
                    let gone = since.itemsOfDeletedLists[ListText.key(item)], ListText.key(gone.list) == ListText.key(list.name)
                else { return nil }
                return "“\(list.items[index])” went with the list \(gone.list), deleted \(gone.change.byWhomAndWhen); a copy of the file without listd's notes does not tick it on the \(list.name) made since — tick it again in the file as it is now if you want it."
            }
            let what = tick.checked ? "ticked off" : "unticked"
            return "“\(list.items[index])” was \(what) on \(list.name) \(tick.change.byWhomAndWhen), \(madeOn.since), so that stays."
        default:
            return nil
        }
    }

    /// What was done to an item still on the list since `old`: its spelling, its tick, its
    /// amount, its section; nil when nothing.
    private static func changed(from old: ShoppingList, at before: Int, to new: ShoppingList, at index: Int) -> String? {
        let (was, current) = (old.items[before], new.items[index])
        if was != current { return "changed to “\(current)”" }
        if old.isChecked(was) != new.isChecked(current) { return new.isChecked(current) ? "ticked off" : "unticked" }
        if old.quantities[was] != new.quantities[current] {
            return new.quantities[current].map { "given the amount \($0)" } ?? "left without an amount"
        }
        let (from, to) = (old.sectionName(old.section(ofItemAt: before)), new.sectionName(new.section(ofItemAt: index)))
        if from != to { return to.isEmpty ? "moved out of \(from)" : "moved to \(to)" }
        return nil
    }
}

extension SaveMerge.ListPair {
    /// The text `new` has in place of `item` (edited in place since `old`), if any: the diff's
    /// guess, when the history is not there to say.
    mutating func renamedItem(_ item: String) -> String? {
        if renamed == nil {
            var map: [String: String] = [:]
            for step in ItemAlignment.align(old: old.items, new: new.items) {
                if case .replace(let was, let now) = step { map[ListText.key(old.items[was])] = new.items[now] }
            }
            renamed = map
        }
        return renamed?[ListText.key(item)]
    }
}
