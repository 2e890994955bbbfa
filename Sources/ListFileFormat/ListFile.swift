import ListModel

/// The list file: Markdown a person can read and edit, holding every list and the few numbers
/// the daemon must keep.
///
/// ```
/// <!-- listd revision=12 next-id=4 -->
///
/// # Groceries <!-- listd id=1 revision=9 edited=2026-11-22T06:47:03.123Z -->
/// - milk
/// - eggs
/// ```
///
/// Metadata sits in HTML comments, which Markdown viewers hide, at the end of lines a person
/// rarely edits. This type works on strings only; reading and writing files is the daemon's job.
public enum ListFile {
    /// Marks listd's own comments, so a person's comments are never mistaken for metadata.
    static let marker = "<!-- listd"

    /// Renders the book as the file's full text.
    public static func render(_ book: ListBook) -> String {
        var text = "\(marker) revision=\(book.revision) next-id=\(book.nextID) -->\n"
        for list in book.lists {
            text += "\n# \(list.name) \(marker) id=\(list.id) revision=\(list.revision) edited=\(list.edited.rfc3339) -->\n"
            for item in list.items {
                text += "- \(item)\n"
            }
        }
        return text
    }

    /// Reads the file's text into a book. Lines that break a rule are left out of the book and
    /// reported, with their line numbers, in `diagnostics`.
    ///
    /// - Parameter time: the `edited` stamp for lists the file gives none (typed by hand).
    public static func parse(_ text: String, at time: Timestamp) -> ParsedListFile {
        var diagnostics: [ListFileDiagnostic] = []
        var revision = 0
        var nextID = 1
        var sections: [Section] = []

        // "\r\n" is one Character in Swift, so both line ends are separators.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (offset, line) in lines.enumerated() {
            let number = offset + 1
            if let heading = Heading(line) {
                sections.append(Section(heading: heading, line: number))
            } else if let item = itemText(line) {
                if sections.isEmpty {
                    diagnostics.append(.init(line: number, text: String(line), problem: .itemOutsideList))
                } else {
                    sections[sections.count - 1].items.append((number, item))
                }
            } else if sections.isEmpty, let fields = metadata(line) {
                revision = fields["revision"].flatMap { Int($0) } ?? revision
                nextID = fields["next-id"].flatMap { Int($0) } ?? nextID
            }
            // Any other line is a person's text; this format does not hold it.
        }

        // Lists keep their ids; lists typed by hand get fresh ones after the highest id seen.
        let knownIDs = sections.compactMap(\.heading.id)
        nextID = max(nextID, (knownIDs.max() ?? 0) + 1)
        var usedIDs: Set<ListID> = []
        var usedNames: [String: String] = [:]
        var lists: [ShoppingList] = []
        for section in sections {
            let name: String
            switch ListText.validated(section.heading.name) {
            case .success(let valid): name = valid
            case .failure(let violation):
                diagnostics.append(
                    .init(line: section.line, text: section.heading.name, problem: .rule(.invalidName(section.heading.name, violation)))
                )
                continue
            }
            if let existing = usedNames[ListText.key(name)] {
                diagnostics.append(.init(line: section.line, text: name, problem: .rule(.listExists(name: existing))))
                continue
            }
            usedNames[ListText.key(name)] = name
            var id = section.heading.id ?? nextID
            if !usedIDs.insert(id).inserted {
                id = nextID
                usedIDs.insert(id)
            }
            if id == nextID { nextID += 1 }
            var list = ShoppingList(
                id: id,
                name: name,
                edited: section.heading.edited ?? time,
                revision: min(section.heading.revision ?? revision, revision),
                items: []
            )
            var keys: Set<String> = []
            for (number, raw) in section.items {
                switch ListText.validated(raw) {
                case .success(let item):
                    if keys.insert(ListText.key(item)).inserted {
                        list.items.append(item)
                    } else {
                        let existing = list.items[list.index(ofItem: item)!]
                        diagnostics.append(.init(line: number, text: raw, problem: .rule(.itemExists(item: existing, list: name))))
                    }
                case .failure(let violation):
                    diagnostics.append(.init(line: number, text: raw, problem: .rule(.invalidItem(raw, violation))))
                }
            }
            lists.append(list)
        }
        return ParsedListFile(
            book: ListBook(lists: lists, revision: revision, nextID: nextID),
            diagnostics: diagnostics.sorted { $0.line < $1.line }
        )
    }

    private struct Section {
        var heading: Heading
        var line: Int
        var items: [(line: Int, text: String)] = []
    }

    /// `# Name <!-- listd id=1 revision=9 edited=… -->`: a level-one ATX heading.
    struct Heading {
        var name: String
        var id: ListID?
        var revision: Revision?
        var edited: Timestamp?

        init?(_ line: Substring) {
            guard line.hasPrefix("# ") || line == "#" else { return nil }
            var rest = line.dropFirst()
            if rest.hasSuffix("-->"), let start = ListFile.lastMarker(in: rest),
                let fields = ListFile.metadata(rest[start...])
            {
                id = fields["id"].flatMap { Int($0) }
                revision = fields["revision"].flatMap { Int($0) }
                edited = fields["edited"].flatMap { Timestamp(rfc3339: $0) }
                rest = rest[..<start]
            }
            name = String(rest)
        }
    }

    /// Where the last `<!-- listd` in `line` starts.
    static func lastMarker(in line: Substring) -> Substring.Index? {
        var index = line.endIndex
        while index > line.startIndex {
            index = line.index(before: index)
            if line[index...].hasPrefix(marker) { return index }
        }
        return nil
    }

    /// The text of a `- item` line (also `* item` and `+ item`, as Markdown allows).
    static func itemText(_ line: Substring) -> String? {
        let body = line.drop { $0 == " " || $0 == "\t" }
        guard let bullet = body.first, "-*+".contains(bullet) else { return nil }
        let rest = body.dropFirst()
        if rest.isEmpty { return "" }
        guard rest.first == " " || rest.first == "\t" else { return nil }
        return String(rest.dropFirst())
    }

    /// The `key=value` fields of a `<!-- listd … -->` comment.
    static func metadata(_ line: Substring) -> [String: String]? {
        let trimmed = Substring(ListText.trimmed(String(line)))
        guard trimmed.hasPrefix(marker), trimmed.hasSuffix("-->") else { return nil }
        var fields: [String: String] = [:]
        for token in trimmed.dropFirst(marker.count).dropLast(3).split(separator: " ") {
            guard let equals = token.firstIndex(of: "=") else { continue }
            fields[String(token[..<equals])] = String(token[token.index(after: equals)...])
        }
        return fields
    }
}

/// A list file read into a book, with every line that could not be taken.
public struct ParsedListFile: Sendable {
    public var book: ListBook
    public var diagnostics: [ListFileDiagnostic]
}

/// One line of the list file that was not taken, and why.
public struct ListFileDiagnostic: Hashable, Sendable {
    public enum Problem: Hashable, Sendable {
        /// The line breaks a list rule (duplicate, empty, too long, control character).
        case rule(ListError)
        /// An item line before the first `# heading`: it belongs to no list.
        case itemOutsideList
    }

    /// 1-based line number.
    public var line: Int
    public var text: String
    public var problem: Problem

    public var reason: String {
        switch problem {
        case .rule(let error): error.reason
        case .itemOutsideList: "itemOutsideList"
        }
    }

    public var message: String {
        switch problem {
        case .rule(let error): "line \(line): \(error.message)"
        case .itemOutsideList: "line \(line): “\(text)” is an item before the first # heading, so it is on no list."
        }
    }
}
