import ListModel

/// Writes lists into the person's file, changing as few lines as possible.
package enum ListFileWriter {
    /// The file's new text: `book` laid onto `reading`'s document.
    ///
    /// - Lines that are not headings or items stay as they are, where they are.
    /// - A heading or item whose meaning did not change keeps its exact text (bullet, box or none,
    ///   spacing); an item line listd writes has a box (`- [ ] milk`, `- [x] milk`).
    /// - Items listd added go after their neighbour; lists listd created go at the end.
    /// - Lines in `rejected` (index → why) become a `<!-- listd: not taken … -->` comment that
    ///   keeps what the person wrote.
    /// - `notes` (per list, comments already written out) go right under the list's heading: what
    ///   a save asked of the list that was not done and has no line of its own (a removal).
    ///
    /// - Parameters:
    ///   - reading: the document last read or written, with its sections tied to list ids; nil
    ///     for a new file.
    ///   - tag: the name this listd gives itself in its notes (`of=`, `ListDocument.noteTag`);
    ///     nil writes notes without it.
    package static func text(
        for book: ListBook,
        onto reading: ListFileReading?,
        rejected: [Int: String] = [:],
        notes: [ListID: [String]] = [:],
        tag: String? = nil
    ) -> String {
        let document = reading?.document ?? ListDocument()
        let lists = Dictionary(book.lists.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })

        // Per item or section line: its new text, or nil to drop it; per anchor line: lines to
        // insert after it (items, and sections the file does not have yet with their items).
        var itemText: [Int: (text: String, checked: Bool, quantity: String?)?] = [:]
        var sectionText: [Int: String?] = [:]
        var insertions: [Int: [Insertion]] = [:]
        var bulletAfter: [Int: String] = [:]
        var headingList: [Int: ShoppingList] = [:]
        // Item lines whose whole text is another item of their list (see `namesAnother`): written
        // in a form that does not read as it.
        var readsAsAnother: Set<Int> = []
        for section in reading?.sections ?? [] {
            let kept = section.items.filter { rejected[$0.line] == nil }
            guard let id = section.id, let list = lists[id] else {
                for item in kept { itemText[item.line] = .some(nil) }
                for heading in section.sectionLines + section.repeatedSectionLines { sectionText[heading.line] = .some(nil) }
                continue
            }
            // A section typed again is the same section: one line of it is enough.
            for heading in section.repeatedSectionLines { sectionText[heading.line] = .some(nil) }
            headingList[section.headingLine] = list
            var bullet = "- "
            if case .item(let first)? = kept.first.map({ document.lines[$0.line] }) { bullet = first.bullet }
            bulletAfter[section.headingLine] = bullet

            // The file's `##` lines that are still sections of the list (by name, else the ones
            // left over in order: renamed), kept in the list's order; the others go, and their
            // items join the part above, as in the list.
            // A `##` line not taken (under a heading not taken, whose list this is all the same)
            // is marked, and shows none of the list's sections: those are written anew.
            let sectionLines = section.sectionLines.filter { rejected[$0.line] == nil }
            let shown = shownSections(sectionLines, as: list)
            var fileLine: [Int: Int] = [:]  // list section → its `##` line
            for (number, heading) in sectionLines.enumerated() {
                guard let target = shown[number] else {
                    sectionText[heading.line] = .some(nil)
                    continue
                }
                fileLine[target] = heading.line
                // The name as typed on that line (the reading may have taken the list's own).
                var typed = heading.name
                if case .section(let line) = document.lines[heading.line] { typed = line.name }
                sectionText[heading.line] = ListText.trimmed(typed) == list.sections[target].name
                    ? document.lines[heading.line].raw : ListDocument.SectionHeading.written(list.sections[target].name)
            }
            // The list section each kept line is in once the `##` lines that go are gone.
            var current: Int? = nil
            var effective: [Int?] = []
            var next = 0
            for item in kept {
                while next < sectionLines.count, sectionLines[next].line < item.line {
                    if let target = shown[next] { current = target }
                    next += 1
                }
                effective.append(current)
            }

            // Lines that stay where they are: the same item (or a new spelling) in the same section.
            var placed: [Int: Int] = [:]  // list index → kept line
            for step in ItemAlignment.align(old: kept.map(\.text), new: list.items) {
                switch step {
                case .keep(let old, let new), .replace(let old, let new):
                    if effective[old] == list.section(ofItemAt: new) {
                        let text = list.items[new]
                        itemText[kept[old].line] = (text, list.isChecked(text), list.quantities[text])
                        if case .item(let written) = document.lines[kept[old].line], Self.namesAnother(written.text, than: text, on: list) {
                            readsAsAnother.insert(kept[old].line)
                        }
                        placed[new] = kept[old].line
                    } else {
                        itemText[kept[old].line] = .some(nil)
                    }
                case .remove(let old):
                    itemText[kept[old].line] = .some(nil)
                case .insert:
                    break
                }
            }
            // The rest, in list order: after the line placed before it in its section, or right
            // under its section's line; a section the file lacks after what comes before it.
            var cursor = section.headingLine
            for target in [nil] + list.sections.indices.map(Optional.some) {
                if let target {
                    if let line = fileLine[target] {
                        cursor = line
                    } else {
                        insertions[cursor, default: []].append(.section(list.sections[target].name))
                    }
                }
                for new in list.range(ofSection: target) {
                    if let line = placed[new] {
                        cursor = line
                    } else {
                        let text = list.items[new]
                        insertions[cursor, default: []].append(.item(text, list.isChecked(text), list.quantities[text]))
                    }
                }
            }
        }

        var out: [String] = []
        var written: Set<ListID> = []
        var bullet = "- "
        // After a deleted list's heading, one blank line of the two around it goes too.
        var collapseBlank = false
        func emitInsertions(after line: Int) {
            for insertion in insertions[line] ?? [] {
                switch insertion {
                case .item(let text, let checked, let quantity):
                    out.append(itemLine(bullet: bullet, text: text, checked: checked, quantity: quantity))
                case .section(let name):
                    out.append(ListDocument.SectionHeading.written(name))
                }
            }
        }
        for (index, line) in document.lines.enumerated() {
            if case .heading = line, let next = bulletAfter[index] { bullet = next }
            if let why = rejected[index] {
                out.append(annotation(why, line.raw))
                if let list = headingList[index] {
                    out.append(headingText(for: list, keeping: nil, revision: book.revision, tag: tag))
                    out += notes[list.id] ?? []
                    written.insert(list.id)
                }
                emitInsertions(after: index)
                continue
            }
            switch line {
            case .legacyHeader:
                // The earlier format's header (its numbers are taken in) gives way to the note a
                // new file starts with: a line of the person's after it, like a header, must not
                // become the first line and be read as one (found by make fuzz).
                out.append(introduction)
            case .heading(let heading):
                guard let list = headingList[index] else {
                    collapseBlank = out.last.map { ListText.trimmed($0).isEmpty } ?? true
                    continue
                }
                out.append(headingText(for: list, keeping: heading, revision: book.revision, tag: tag))
                out += notes[list.id] ?? []
                written.insert(list.id)
                emitInsertions(after: index)
            case .item(let item):
                guard let replacement = itemText[index] else { continue }
                if let (text, checked, quantity) = replacement {
                    let read = ItemAmount.read(item.text)
                    // An item named before amounts were read so (`6 eggs`) shows its whole text.
                    let shown = read.text == text && read.quantity == quantity || quantity == nil && ListText.trimmed(item.text) == text
                    let ambiguous = readsAsAnother.contains(index)
                    let unchanged = shown && item.checked == checked && !ambiguous
                    out.append(
                        unchanged
                            ? item.raw
                            : ListDocument.Item.written(
                                bullet: item.bullet,
                                text: ambiguous ? ItemAmount.join(text, quantity) : ItemAmount.join(text, quantity, like: read),
                                checked: checked
                            )
                    )
                    bullet = item.bullet
                }
                emitInsertions(after: index)
            case .section:
                // Not a section of a list (before any, or under one not taken): the person's line.
                guard let replacement = sectionText[index] else {
                    out.append(line.raw)
                    continue
                }
                if let replacement { out.append(replacement) }
                emitInsertions(after: index)
            case .text(let text):
                if collapseBlank, ListText.trimmed(text).isEmpty {
                    collapseBlank = false
                    continue
                }
                out.append(text)
            }
            if case .item = line {} else { collapseBlank = false }
        }
        var appended = false
        for list in book.lists where !written.contains(list.id) {
            if let last = out.last, !ListText.trimmed(last).isEmpty { out.append("") }
            out.append(headingText(for: list, keeping: nil, revision: book.revision, tag: tag))
            out += notes[list.id] ?? []
            for target in [nil] + list.sections.indices.map(Optional.some) {
                if let target { out.append(ListDocument.SectionHeading.written(list.sections[target].name)) }
                for item in list.items[list.range(ofSection: target)] {
                    out.append(itemLine(bullet: "- ", text: item, checked: list.isChecked(item), quantity: list.quantities[item]))
                }
            }
            appended = true
        }
        return ListDocument.joining(out, endingWithNewline: document.endsWithNewline || appended)
    }

    /// What goes in after a line: an item, or a section's `##` line.
    enum Insertion {
        case item(String, Bool, String?)
        case section(String)
    }

    /// The line listd writes for an item: the box, the text (escaped when it would read as
    /// having an amount), the amount.
    static func itemLine(bullet: String, text: String, checked: Bool, quantity: String?) -> String {
        ListDocument.Item.written(bullet: bullet, text: ItemAmount.join(text, quantity), checked: checked)
    }

    /// For each of the file's `##` lines of a list, the list's section it shows (nil: it goes):
    /// by name, then the ones left over in order (a section renamed), kept in the list's order.
    static func shownSections(_ lines: [ListFileReading.SectionLine], as list: ShoppingList) -> [Int?] {
        var shown = [Int?](repeating: nil, count: lines.count)
        var taken: Set<Int> = []
        for (number, line) in lines.enumerated() {
            if let found = list.section(named: line.name), taken.insert(found).inserted { shown[number] = found }
        }
        let leftLines = lines.indices.filter { shown[$0] == nil }
        let leftSections = list.sections.indices.filter { !taken.contains($0) }
        if leftLines.count == leftSections.count {
            for (number, found) in zip(leftLines, leftSections) { shown[number] = found }
        }
        // In increasing order only: a later line showing an earlier section goes.
        var last = -1
        for number in lines.indices {
            guard let found = shown[number] else { continue }
            if found > last { last = found } else { shown[number] = nil }
        }
        return shown
    }

    /// `# Name <!-- listd id=N rev=R of=TAG -->`, or the person's own heading line when it
    /// already says that. `rev` is the revision of the lists the file shows: a save from an
    /// editor that read this file is read against them, whatever listd wrote since
    /// (`ListFileReading.shownRevision`). `of` names the listd that wrote it: another listd's
    /// copy of the file is read here as a copy without notes (`ListDocument(parsing:notesOf:)`).
    static func headingText(for list: ShoppingList, keeping heading: ListDocument.Heading?, revision: Revision, tag: String?) -> String {
        var fields = ["id": "\(list.id)", "rev": "\(revision)"]
        if let tag { fields["of"] = tag }
        if let heading, ListText.trimmed(heading.name) == list.name, heading.metadata == fields {
            return heading.raw
        }
        return "# \(list.name) \(ListDocument.marker) id=\(list.id) rev=\(revision)\(tag.map { " of=\($0)" } ?? "") -->"
    }

    /// The first line of a list file listd makes, saying what it is.
    package static let introduction =
        "<!-- Shopping lists kept by listd. A list is a `# Name` line, its items `- [ ] item` lines below it; `- [x] item` is ticked off, `## Dairy` starts a section, `(2 l)` after an item says how much. -->"

    /// `<!-- listd: not taken: WHY -->`: what a save asked that has no line of its own.
    package static func note(_ why: String) -> String {
        "\(ListDocument.marker): not taken: \(safeInComment(why)) -->"
    }

    /// `text` with the comment delimiters a person typed broken up, so a comment does not end early.
    static func safeInComment(_ text: String) -> String {
        text.replacing("-->", with: "-- >").replacing("<!--", with: "<! --")
    }

    /// `<!-- listd: not taken: WHY You wrote: LINE -->`, safe to put in an HTML comment.
    package static func annotation(_ why: String, _ line: String) -> String {
        "\(ListDocument.marker): not taken: \(safeInComment(why)) You wrote: \(safeInComment(line)) -->"
    }
}

extension ListFileReading {
    /// Every rejected line, by document index, with why: for `ListFileWriter`.
    package var rejectedLines: [Int: String] {
        Dictionary(diagnostics.map { ($0.line - 1, $0.explanation) }, uniquingKeysWith: { first, _ in first })
    }
}

extension ListFileWriter {
    /// Whether a line showing `written` reads as another item of `list` than `item`: its whole
    /// text is an item listd keeps under a text that reads with an amount (`0 sha`, beside `sha`
    /// with the amount 0), and such a line is that item (`NamedBeforeAmounts`). Found by make
    /// fuzz: the person's `0 sha` for `sha` was kept, and read back as the other item.
    static func namesAnother(_ written: String, than item: String, on list: ShoppingList) -> Bool {
        let whole = ListText.trimmed(written)
        guard ItemAmount.read(whole).text != whole else { return false }
        let key = ListText.key(whole)
        return key != ListText.key(item) && list.items.contains { ListText.key($0) == key }
    }
}
