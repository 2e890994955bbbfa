/// Sections within a list (an aisle, a shop): where each item is, and the few mutations that move
/// items between them, shared by `ListBook.apply` and `ListBook.redo` so both keep the same shape.
///
/// A list's items stay one array in list order: the items in no section first, then each
/// section's items in section order. A section is a name and how many items follow its heading,
/// so every lookup is a walk over the sections (a few dozen), never over the items.

/// A section of a list: `## Dairy` in the list file.
public struct ListSection: Hashable, Sendable, Codable {
    /// Its name, as written after `## `.
    public var name: String
    /// How many of the list's items are in it (they follow the items of the sections before).
    public var count: Int

    /// A section with `count` items.
    public init(_ name: String, count: Int = 0) {
        self.name = name
        self.count = count
    }
}

extension ShoppingList {
    /// How many items are in no section (the first ones).
    public var unsectionedCount: Int {
        sections.isEmpty ? items.count : items.count - sections.reduce(0) { $0 + $1.count }
    }

    /// The places in `items` of section `section`'s items (nil: the items in no section).
    public func range(ofSection section: Int?) -> Range<Int> {
        var start = unsectionedCount
        guard let section else { return 0..<start }
        for index in 0..<section { start += sections[index].count }
        return start..<(start + sections[section].count)
    }

    /// The section of the item at `index` (nil: in no section).
    public func section(ofItemAt index: Int) -> Int? {
        var end = unsectionedCount
        if index < end { return nil }
        for (section, entry) in sections.enumerated() {
            end += entry.count
            if index < end { return section }
        }
        return sections.indices.last
    }

    /// The section whose name equals `name` under `ListText.key`.
    public func section(named name: String) -> Int? {
        let key = ListText.key(name)
        return sections.firstIndex { ListText.hasKey($0.name, key) }
    }

    /// The name of section `section` ("" for none): what the protocol and the journal say.
    public func sectionName(_ section: Int?) -> String {
        section.map { sections[$0].name } ?? ""
    }

    /// Puts `item` at `index` of `items`, into `section` (`index` must be within its range,
    /// ends included).
    mutating func insertItem(_ item: String, at index: Int, section: Int?) {
        items.insert(item, at: index)
        if let section { sections[section].count += 1 }
    }

    /// Takes the item at `index` off, with its box and amount; its section is remembered.
    @discardableResult
    mutating func removeItem(at index: Int) -> String {
        let section = section(ofItemAt: index)
        let item = items.remove(at: index)
        if let section { sections[section].count -= 1 }
        checked.remove(item)
        quantities.removeValue(forKey: item)
        remember(item, in: section)
        return item
    }

    /// Moves the item at `from` to `to` (its index afterwards), into `section`.
    mutating func moveItem(from: Int, to: Int, section: Int?) {
        let old = self.section(ofItemAt: from)
        let item = items.remove(at: from)
        if let old { sections[old].count -= 1 }
        items.insert(item, at: to)
        if let section { sections[section].count += 1 }
    }

    /// Gives the item at `from` its place `to` (afterwards) in `section` (made at the end, as
    /// `newSection`, first), its box and its amount; returns the steps that describe what
    /// changed, in the order a reader applies them.
    mutating func restate(
        from: Int,
        to: Int,
        section: Int?,
        newSection: String?,
        checked: Bool,
        quantity: String?
    ) -> [ListChange.Step] {
        let item = items[from]
        var steps: [ListChange.Step] = []
        if let newSection {
            insertSection(newSection, at: sections.count)
            steps.append(.addSection(section: newSection))
        }
        if isChecked(item) != checked {
            if checked { self.checked.insert(item) } else { self.checked.remove(item) }
            steps.append(checked ? .check(item: item) : .uncheck(item: item))
        }
        if from != to || self.section(ofItemAt: from) != section {
            moveItem(from: from, to: to, section: section)
            steps.append(.move(item: item, to: to, section: sectionName(section)))
        }
        if quantities[item] != quantity {
            quantities[item] = quantity
            steps.append(.quantity(item: item, quantity: quantity))
        }
        return steps
    }

    /// Gives the item at `index` a new text; its box and amount follow it.
    mutating func replaceItem(at index: Int, with text: String) {
        let old = items[index]
        items[index] = text
        if checked.remove(old) != nil { checked.insert(text) }
        if let quantity = quantities.removeValue(forKey: old) { quantities[text] = quantity }
    }

    /// A new section `name` at `index` of `sections`, taking the last `taking` items of the
    /// section before it (or of the items in no section): a heading typed above them.
    mutating func insertSection(_ name: String, at index: Int, taking: Int = 0) {
        if taking > 0, index > 0 { sections[index - 1].count -= taking }
        sections.insert(ListSection(name, count: taking), at: index)
    }

    /// Section `index` goes; its items join the section before it (or none), as deleting its
    /// heading in the file does. Returns how many items it had.
    @discardableResult
    mutating func removeSection(at index: Int) -> Int {
        let removed = sections.remove(at: index)
        if index > 0 { sections[index - 1].count += removed.count }
        return removed.count
    }

    /// Renames section `index`; what is remembered of it follows.
    mutating func renameSection(at index: Int, to name: String) {
        let old = sections[index].name
        sections[index].name = name
        if !lastSections.isEmpty {
            for (key, section) in lastSections where section == old { lastSections[key] = name }
        }
    }

    /// Remembers that `item` was last in `section` (forgets it when in none).
    mutating func remember(_ item: String, in section: Int?) {
        if let section {
            lastSections[ListText.key(item)] = sections[section].name
        } else if !lastSections.isEmpty {
            lastSections.removeValue(forKey: ListText.key(item))
        }
    }

    /// The section `item` was last in on this list, by name, when it still exists.
    public func rememberedSection(of item: String) -> String? {
        lastSections.isEmpty ? nil : lastSections[ListText.key(item)]
    }

    /// The item at `index` as a change that takes it off records it: with its box, section and
    /// amount, so that an undo puts it back as it was.
    package func placed(at index: Int) -> PlacedItem {
        let item = items[index]
        return PlacedItem(
            item,
            at: index,
            checked: isChecked(item),
            section: section(ofItemAt: index).map { sections[$0].name },
            quantity: quantities.isEmpty ? nil : quantities[item]
        )
    }

    /// The sections with their items, in order: what the protocol's `sections` says.
    public var sectionsWithItems: [(name: String, items: Slice<ItemList>)] {
        var start = unsectionedCount
        return sections.map { section in
            defer { start += section.count }
            return (section.name, items[start..<(start + section.count)])
        }
    }
}
