import ListModel

/// Writes lists into the person's file, changing as few lines as possible.
public enum ListFileWriter {
    /// The file's new text: `book` laid onto `reading`'s document.
    ///
    /// - Lines that are not headings or items stay as they are, where they are.
    /// - A heading or item whose meaning did not change keeps its exact text (bullet, box or none,
    ///   spacing); an item line listd writes has a box (`- [ ] milk`, `- [x] milk`).
    /// - Items listd added go after their neighbour; lists listd created go at the end.
    /// - Lines in `rejected` (index → why) become a `<!-- listd: not taken … -->` comment that
    ///   keeps what the person wrote.
    ///
    /// - Parameter reading: the document last read or written, with its sections tied to list ids;
    ///   nil for a new file.
    public static func text(for book: ListBook, onto reading: ListFileReading?, rejected: [Int: String] = [:]) -> String
    {
        let document = reading?.document ?? ListDocument()
        let lists = Dictionary(book.lists.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })

        // Per item line: its new text, or nil to drop it; per anchor line: items to insert after it.
        var itemText: [Int: (text: String, checked: Bool)?] = [:]
        var insertions: [Int: [(text: String, checked: Bool)]] = [:]
        var bulletAfter: [Int: String] = [:]
        var headingList: [Int: ShoppingList] = [:]
        for section in reading?.sections ?? [] {
            let kept = section.items.filter { rejected[$0.line] == nil }
            guard let id = section.id, let list = lists[id] else {
                for item in kept { itemText[item.line] = .some(nil) }
                continue
            }
            headingList[section.headingLine] = list
            var anchor = section.headingLine
            var bullet = "- "
            if case .item(let first)? = kept.first.map({ document.lines[$0.line] }) { bullet = first.bullet }
            for step in ItemAlignment.align(old: kept.map(\.text), new: list.items) {
                switch step {
                case .keep(let old, let new), .replace(let old, let new):
                    itemText[kept[old].line] = (list.items[new], list.isChecked(list.items[new]))
                    anchor = kept[old].line
                case .remove(let old):
                    itemText[kept[old].line] = .some(nil)
                    anchor = kept[old].line
                case .insert(let new):
                    insertions[anchor, default: []].append((list.items[new], list.isChecked(list.items[new])))
                }
            }
            bulletAfter[section.headingLine] = bullet
        }

        var out: [String] = []
        var written: Set<ListID> = []
        var bullet = "- "
        // After a deleted list's heading, one blank line of the two around it goes too.
        var collapseBlank = false
        func emitInsertions(after line: Int) {
            for item in insertions[line] ?? [] {
                out.append(ListDocument.Item.written(bullet: bullet, text: item.text, checked: item.checked))
            }
        }
        for (index, line) in document.lines.enumerated() {
            if case .heading = line, let next = bulletAfter[index] { bullet = next }
            if let why = rejected[index] {
                out.append(annotation(why, line.raw))
                if let list = headingList[index] {
                    out.append(headingText(for: list, keeping: nil))
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
                out.append(headingText(for: list, keeping: heading))
                written.insert(list.id)
                emitInsertions(after: index)
            case .item(let item):
                guard let replacement = itemText[index] else { continue }
                if let (text, checked) = replacement {
                    let unchanged = ListText.trimmed(item.text) == text && item.checked == checked
                    out.append(
                        unchanged ? item.raw : ListDocument.Item.written(bullet: item.bullet, text: text, checked: checked)
                    )
                    bullet = item.bullet
                }
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
            out.append(headingText(for: list, keeping: nil))
            out.append(
                contentsOf: list.items.map { ListDocument.Item.written(bullet: "- ", text: $0, checked: list.isChecked($0)) }
            )
            appended = true
        }
        return ListDocument.joining(out, endingWithNewline: document.endsWithNewline || appended)
    }

    /// `# Name <!-- listd id=N -->`, or the person's own heading line when it already says that.
    static func headingText(for list: ShoppingList, keeping heading: ListDocument.Heading?) -> String {
        if let heading, ListText.trimmed(heading.name) == list.name, heading.metadata == ["id": "\(list.id)"] {
            return heading.raw
        }
        return "# \(list.name) \(ListDocument.marker) id=\(list.id) -->"
    }

    /// The first line of a list file listd makes, saying what it is.
    public static let introduction =
        "<!-- Shopping lists kept by listd. A list is a `# Name` line, its items `- [ ] item` lines below it; `- [x] item` is ticked off. -->"

    /// `<!-- listd: not taken: WHY You wrote: LINE -->`, safe to put in an HTML comment.
    public static func annotation(_ why: String, _ line: String) -> String {
        // A comment must not end early: break up any comment delimiters the person typed.
        func safe(_ text: String) -> String {
            text.replacing("-->", with: "-- >").replacing("<!--", with: "<! --")
        }
        return "\(ListDocument.marker): not taken: \(safe(why)) You wrote: \(safe(line)) -->"
    }
}

extension ListFileReading {
    /// Every rejected line, by document index, with why: for `ListFileWriter`.
    public var rejectedLines: [Int: String] {
        Dictionary(diagnostics.map { ($0.line - 1, $0.explanation) }, uniquingKeysWith: { first, _ in first })
    }
}
