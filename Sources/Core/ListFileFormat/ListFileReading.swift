import ListModel

/// What a list file says, checked against the list rules: the lists it holds (each tied to a
/// list id where one can be found) and every line that could not be taken.
package struct ListFileReading: Sendable {
    package struct Section: Hashable, Sendable {
        /// Index of the heading in `document.lines`.
        package var headingLine: Int
        package var name: String
        /// The list this section is; nil for a list the file adds.
        package var id: ListID?
        /// The items taken, with their line indexes.
        package var items: [ItemLine]
        /// Its `## ` sections taken, in file order.
        package var sectionLines: [SectionLine] = []
        /// `##` lines repeating a section above them (`## Dairy` typed again): the same section,
        /// whose items join it; listd's next write drops them.
        package var repeatedSectionLines: [SectionLine] = []
    }

    /// A `## Name` line of a list: a section of it.
    package struct SectionLine: Hashable, Sendable {
        package var line: Int
        package var name: String
    }

    package struct ItemLine: Hashable, Sendable {
        package var line: Int
        package var text: String
        /// Its box is ticked (`- [x] text`).
        package var checked: Bool = false
        /// The section it is under (an index into its list's `sectionLines`); nil: none.
        package var section: Int? = nil
        /// Its amount (`- milk (2 l)`).
        package var quantity: String? = nil
    }

    package var document: ListDocument
    package var sections: [Section]
    /// Lines not taken, in line order.
    package var diagnostics: [ListFileDiagnostic]
    /// The revision of the lists when listd last wrote the file this text was made from (the
    /// `rev=` of its headings; the highest, should they differ); nil when no heading says.
    package var shownRevision: Revision?

    /// Reads `document`.
    ///
    /// - Parameter known: the lists listd holds. A heading is tied to a known list by the id in
    ///   its listd comment, else by its name; a heading that matches nothing is a new list.
    ///   Without `known` (first start), the ids in the comments are taken as they are.
    package init(_ document: ListDocument, known: ListBook?) {
        self.document = document
        var diagnostics: [ListFileDiagnostic] = []
        var sections: [Section] = []
        var usedNames: [String: String] = [:]
        // The current section's items by key: a duplicate is found without scanning them all.
        var itemsByKey: [String: String] = [:]
        // Room for every line at once: no rehash of a long list's keys as it grows.
        itemsByKey.reserveCapacity(document.lines.count)
        var rejectedHeading: Int?
        // A `##` line of the current list not taken: its items are not taken either.
        var rejectedSection: Int?
        var sectionKeys: Set<String> = []
        // A heading, taken or not, came before: `-sunscreen` is then meant as an item.
        var headingSeen = false
        // The section the next item is in (an index into the current list's `sectionLines`).
        var currentSection: Int?
        // Identity beats position: a heading carrying a known list's id is that list wherever it
        // is, so a `# Name` typed above it (or below) is the duplicate, never the list.
        let knownIDs = known.map { Set($0.lists.map(\.id)) }
        var carriers: [String: (line: Int, name: String)] = [:]  // name key → the first heading with an id
        for (index, line) in document.lines.enumerated() {
            guard case .heading(let heading) = line, let id = heading.id, knownIDs?.contains(id) ?? true,
                case .success(let name) = ListText.validated(heading.name)
            else { continue }
            if carriers[ListText.key(name)] == nil { carriers[ListText.key(name)] = (index, name) }
        }
        var namedBefore = NamedBeforeAmounts(known)
        var shownRevision: Revision?

        for (index, line) in document.lines.enumerated() {
            switch line {
            case .heading(let heading):
                headingSeen = true
                if let revision = heading.revision { shownRevision = max(shownRevision ?? revision, revision) }
                switch ListText.validated(heading.name) {
                case .failure(let violation):
                    diagnostics.append(
                        .init(line: index + 1, text: line.raw, problem: .rule(.invalidName(heading.name, violation)))
                    )
                    rejectedHeading = index
                case .success(let name):
                    let key = ListText.key(name)
                    if let existing = usedNames[key] ?? carriers[key].flatMap({ $0.line == index ? nil : $0.name }) {
                        // A heading of a known list retyped to a name another has: that list
                        // is named, so the note says whose rename was not taken.
                        let renaming = heading.id.flatMap { try? known?.list(.id($0)) }.flatMap {
                            ListText.key($0.name) == key ? nil : $0.name
                        }
                        diagnostics.append(
                            .init(line: index + 1, text: line.raw, problem: .rule(.listExists(name: existing, renaming: renaming)))
                        )
                        rejectedHeading = index
                    } else {
                        usedNames[ListText.key(name)] = name
                        sections.append(Section(headingLine: index, name: name, id: heading.id, items: []))
                        itemsByKey.removeAll(keepingCapacity: true)
                        rejectedHeading = nil
                        rejectedSection = nil
                        sectionKeys = []
                        currentSection = nil
                    }
                }
            case .section(let heading):
                // Under a list not taken it is marked with its items (a rewrite, which turns that
                // heading into a comment, would put it under the list above); before any list it
                // is the person's line, left alone.
                if let heading = rejectedHeading {
                    diagnostics.append(
                        .init(line: index + 1, text: line.raw, problem: .underRejectedHeading(headingLine: heading + 1))
                    )
                    continue
                }
                guard !sections.isEmpty else { continue }
                switch ListText.validated(heading.name) {
                case .failure(let violation):
                    diagnostics.append(
                        .init(line: index + 1, text: line.raw, problem: .rule(.invalidSection(heading.name, violation)))
                    )
                    rejectedSection = index
                case .success(let name):
                    if !sectionKeys.insert(ListText.key(name)).inserted {
                        // Typed again: the same section (its items join it), never a second one
                        // that takes the items of the first.
                        currentSection = sections[sections.count - 1].sectionLines.firstIndex {
                            ListText.key($0.name) == ListText.key(name)
                        }
                        sections[sections.count - 1].repeatedSectionLines.append(SectionLine(line: index, name: name))
                    } else {
                        sections[sections.count - 1].sectionLines.append(SectionLine(line: index, name: name))
                        currentSection = sections[sections.count - 1].sectionLines.count - 1
                    }
                    rejectedSection = nil
                }
            case .item(let item):
                if let heading = rejectedHeading ?? rejectedSection {
                    diagnostics.append(
                        .init(line: index + 1, text: line.raw, problem: .underRejectedHeading(headingLine: heading + 1))
                    )
                    continue
                }
                guard !sections.isEmpty else {
                    diagnostics.append(.init(line: index + 1, text: line.raw, problem: .itemOutsideList))
                    continue
                }
                let listName = sections[sections.count - 1].name
                var (itemText, quantity) = ItemAmount.split(item.text)
                if itemText != ListText.trimmed(item.text), let id = sections[sections.count - 1].id,
                    namedBefore.keeps(ListText.trimmed(item.text), on: id)
                {
                    (itemText, quantity) = (ListText.trimmed(item.text), nil)
                }
                switch ListText.validated(itemText) {
                case .failure(let violation):
                    diagnostics.append(
                        .init(line: index + 1, text: line.raw, problem: .rule(.invalidItem(itemText, violation)))
                    )
                case .success(let text):
                    let key = ListText.key(text)
                    if let existing = itemsByKey[key] {
                        diagnostics.append(
                            .init(
                                line: index + 1,
                                text: line.raw,
                                problem: .rule(.itemExists(item: existing, list: listName))
                            )
                        )
                    } else {
                        itemsByKey[key] = text
                        sections[sections.count - 1].items.append(
                            ItemLine(line: index, text: text, checked: item.checked, section: currentSection, quantity: quantity)
                        )
                    }
                }
            case .text(let text):
                // `-sunscreen`: an item meant, the space after the bullet forgotten. Said, not
                // silently kept as a note (only under a heading: notes above the first are the
                // person's; under one not taken it is marked all the same, so that a rewrite,
                // which turns that heading into a comment, finds nothing new to mark).
                if headingSeen, let item = Self.itemWithoutSpace(text) {
                    diagnostics.append(.init(line: index + 1, text: text, problem: .bulletWithoutSpace(item)))
                }
            case .legacyHeader:
                continue
            }
        }

        // Tie sections to lists: ids first, then names, each list at most once. A heading that
        // carries an id listd gave to a list deleted since (ids are never given twice) is that
        // list, gone: it keeps the id, and is never tied to another list by its name or items.
        var claimed: Set<ListID> = []
        for index in sections.indices {
            guard let id = sections[index].id, knownIDs?.contains(id) ?? true, claimed.insert(id).inserted else {
                if let id = sections[index].id, let known, id < known.nextID, knownIDs?.contains(id) == false { continue }
                sections[index].id = nil
                continue
            }
        }
        if let known {
            for index in sections.indices where sections[index].id == nil {
                let key = ListText.key(sections[index].name)
                if let list = known.lists.first(where: { !claimed.contains($0.id) && ListText.key($0.name) == key }) {
                    sections[index].id = list.id
                    claimed.insert(list.id)
                }
            }
        }
        // A line that reads as an item with an amount but is, whole, the text of an item its
        // list has (`batteries (4)` written by a listd from before amounts) is that item.
        if let known {
            for index in sections.indices {
                guard let id = sections[index].id, let list = try? known.list(.id(id)),
                    sections[index].items.contains(where: { $0.quantity != nil })
                else { continue }
                let texts = Set(list.items)
                for (number, item) in sections[index].items.enumerated() where item.quantity != nil {
                    guard case .item(let line) = document.lines[item.line] else { continue }
                    let whole = ListText.trimmed(line.text)
                    if texts.contains(whole) {
                        sections[index].items[number].text = whole
                        sections[index].items[number].quantity = nil
                    }
                }
            }
        }
        // A section typed again under another spelling (`## dairy` above `## Dairy`) keeps the
        // list's own: the repeat is not a rename.
        if let known {
            for index in sections.indices where !sections[index].repeatedSectionLines.isEmpty {
                guard let id = sections[index].id, let list = try? known.list(.id(id)) else { continue }
                for (number, heading) in sections[index].sectionLines.enumerated() {
                    guard let found = list.section(named: heading.name), list.sections[found].name != heading.name,
                        sections[index].repeatedSectionLines.contains(where: { $0.name == list.sections[found].name })
                    else { continue }
                    sections[index].sectionLines[number].name = list.sections[found].name
                }
            }
        }
        self.sections = sections
        self.diagnostics = diagnostics
        self.shownRevision = shownRevision
    }

    /// The item a line like `-sunscreen` was meant to be: a dash right before a letter.
    static func itemWithoutSpace(_ line: String) -> String? {
        let body = line.drop { $0 == " " || $0 == "\t" }
        guard body.first == "-", let next = body.dropFirst().first, next.isLetter else { return nil }
        return String(body.dropFirst())
    }

    /// The numbers a file written by an earlier listd carries in its first comment.
    var legacyHeader: [String: String] {
        for line in document.lines {
            if case .legacyHeader(let fields) = line { return fields }
        }
        return [:]
    }

    /// The lists of a file read on a first start (no state to compare with): sections without an
    /// id get fresh ones, and this reading's sections are updated to them.
    package mutating func book(at time: Timestamp) -> ListBook {
        let header = legacyHeader
        let revision = header["revision"].flatMap { Int($0) } ?? 0
        var nextID = max(header["next-id"].flatMap { Int($0) } ?? 1, (sections.compactMap(\.id).max() ?? 0) + 1)
        var lists: [ShoppingList] = []
        for index in sections.indices {
            if sections[index].id == nil {
                sections[index].id = nextID
                nextID += 1
            }
            var edited = time
            var listRevision = revision
            if case .heading(let heading) = document.lines[sections[index].headingLine], let metadata = heading.metadata
            {
                edited = metadata["edited"].flatMap { Timestamp(rfc3339: $0) } ?? time
                listRevision = min(metadata["revision"].flatMap { Int($0) } ?? revision, revision)
            }
            lists.append(
                ShoppingList(
                    id: sections[index].id!,
                    name: sections[index].name,
                    edited: edited,
                    revision: listRevision,
                    items: sections[index].items.map(\.text),
                    checked: .init(sections[index].items.lazy.filter(\.checked).map(\.text)),
                    sections: sections[index].listSections,
                    quantities: .init(sections[index].quantities)
                )
            )
        }
        return ListBook(lists: lists, revision: revision, nextID: nextID)
    }
}

extension ListFileReading.Section {
    /// Its sections as the model keeps them: each with how many of the items are in it.
    package var listSections: [ListSection] {
        var sections = sectionLines.map { ListSection($0.name) }
        for item in items { if let section = item.section { sections[section].count += 1 } }
        return sections
    }

    /// The items' amounts, by item.
    package var quantities: [String: String] {
        var quantities: [String: String] = [:]
        for item in items { if let quantity = item.quantity { quantities[item.text] = quantity } }
        return quantities
    }

    /// The name of the section the item line is under ("" for none).
    func sectionName(of item: ListFileReading.ItemLine) -> String {
        item.section.map { sectionLines[$0].name } ?? ""
    }
}

/// One line of the list file that was not taken, and why.
package struct ListFileDiagnostic: Hashable, Sendable {
    package enum Problem: Hashable, Sendable {
        /// The line breaks a list rule (duplicate, empty, too long, control character).
        case rule(ListError)
        /// An item line before the first `# heading`: it belongs to no list.
        case itemOutsideList
        /// An item under a heading that was not taken (1-based line of that heading).
        case underRejectedHeading(headingLine: Int)
        /// The change the line asks for was denied when applied.
        case denied(ListError)
        /// Delegates refused the change the line asks for (the message says who and why).
        case deniedByDelegates(String)
        /// `-sunscreen`: an item without the space after its bullet.
        case bulletWithoutSpace(String)
        /// A save made from an older copy changes what someone else changed since (`SaveMerge`):
        /// their change stands, and the message says what it was.
        case conflict(String)
    }

    /// 1-based line number.
    package var line: Int
    /// The line as the person wrote it.
    package var text: String
    package var problem: Problem

    package init(line: Int, text: String, problem: Problem) {
        self.line = line
        self.text = text
        self.problem = problem
    }

    package var reason: String {
        switch problem {
        case .rule(let error), .denied(let error): error.reason
        case .itemOutsideList: "itemOutsideList"
        case .underRejectedHeading: "listRejected"
        case .deniedByDelegates: "deniedByDelegate"
        case .bulletWithoutSpace: "bulletWithoutSpace"
        case .conflict: "changedMeanwhile"
        }
    }

    /// Without the line number: what the file's annotation says.
    package var explanation: String {
        switch problem {
        case .rule(let error), .denied(let error): error.message
        case .itemOutsideList: "An item before the first # heading is on no list."
        case .underRejectedHeading(let heading):
            "The heading on line \(heading) was not taken, so neither are its items."
        case .deniedByDelegates(let message), .conflict(let message): message
        case .bulletWithoutSpace(let item):
            "An item needs a space after its dash: write “- \(item)” to add it."
        }
    }

    /// `line 4: …`; a note about a whole list (line 0) names no line.
    package var message: String { line > 0 ? "line \(line): \(explanation)" : explanation }
}
