import ListModel

/// The list file as lines, each classified but kept verbatim, so that listd can write the file
/// back changing only the lines whose meaning changed. Notes, blank lines and a person's own
/// comments are `text` lines and survive every rewrite.
package struct ListDocument: Hashable, Sendable {
    package enum Line: Hashable, Sendable {
        /// `# Name <!-- listd id=1 -->`: starts a list.
        case heading(Heading)
        /// `## Dairy`: starts a section of the list above (its name is its identity; no comment).
        case section(SectionHeading)
        /// `- item` (also `*`, `+`, an ordered `1.` or `1)`, indented).
        case item(Item)
        /// The `<!-- listd revision=… next-id=… -->` line earlier versions wrote; read for its
        /// numbers, never written again.
        case legacyHeader([String: String])
        /// Anything else: kept as the person wrote it.
        case text(String)
    }

    package struct Heading: Hashable, Sendable {
        /// The text after `# `, without listd's comment.
        package var name: String
        /// The fields of listd's trailing `<!-- listd … -->` comment, when there is one.
        package var metadata: [String: String]?
        package var raw: String

        package var id: ListID? { metadata?["id"].flatMap { Int($0) } }
        /// The revision of the lists when listd wrote this heading (`rev=N`): a copy of the file
        /// saved later is read against the lists at that revision, not against newer ones.
        package var revision: Revision? { metadata?["rev"].flatMap { Int($0) } }
        /// Which listd wrote the note (`of=`, `ListDocument.noteTag`); nil in notes written
        /// before listd named itself in them.
        package var noteTag: String? { metadata?["of"] }
    }

    package struct SectionHeading: Hashable, Sendable {
        /// The text after `## `.
        package var name: String
        package var raw: String

        /// The line listd writes for a section.
        package static func written(_ name: String) -> String { "## " + name }
    }

    package struct Item: Hashable, Sendable {
        /// Indentation and bullet: `"- "`, `"  * "`.
        package var bullet: String
        /// The task box as written, with the space after it (`"[ ] "`, `"[x] "`, `"[X] "`); nil
        /// when the line has none (a plain `- milk` is unchecked). Not part of the item's text.
        package var box: String?
        package var text: String

        /// `rest` is what follows the bullet: a task box, when it starts with one, then the text.
        package init(bullet: String, rest: String) {
            self.bullet = bullet
            let utf8 = rest.utf8
            if utf8.count >= 4, utf8.first == UInt8(ascii: "["),
                let mark = utf8.dropFirst().first, mark == UInt8(ascii: " ") || mark == UInt8(ascii: "x") || mark == UInt8(ascii: "X"),
                utf8.dropFirst(2).first == UInt8(ascii: "]"),
                let space = utf8.dropFirst(3).first, space == UInt8(ascii: " ") || space == UInt8(ascii: "\t")
            {
                // Four ASCII bytes: the index after them is a Unicode scalar boundary.
                let end = rest.utf8.index(rest.utf8.startIndex, offsetBy: 4)
                box = String(rest[..<end])
                text = String(rest[end...])
            } else {
                box = nil
                text = rest
            }
        }

        /// Bullet and box: everything before the text.
        package var prefix: String { bullet + (box ?? "") }
        package var raw: String { prefix + text }
        /// `[x]` or `[X]`.
        package var checked: Bool { box.map { $0.utf8.dropFirst().first != UInt8(ascii: " ") } ?? false }

        /// The line listd writes for an item: the box form.
        package static func written(bullet: String, text: String, checked: Bool) -> String {
            bullet + (checked ? "[x] " : "[ ] ") + text
        }
    }

    package var lines: [Line]
    /// Whether the text ended with a line break; kept so an untouched file is written identically.
    package var endsWithNewline: Bool

    package init() {
        lines = []
        endsWithNewline = true
    }

    package init(parsing text: String) {
        var rawLines = Self.lineTexts(of: text)
        endsWithNewline = text.isEmpty || rawLines.last?.isEmpty == true
        if endsWithNewline, !rawLines.isEmpty { rawLines.removeLast() }
        // The earlier format's header was the file's first line, and only there is it one: a
        // person's line like it further down stays theirs (listd's note on a heading it did not
        // take once left such a line before the first heading, read as a header and dropped).
        lines = rawLines.enumerated().map { index, raw in Self.classify(raw, firstLine: index == 0) }
    }

    /// `text` parsed, each heading whose note another listd wrote (its `of=` is not `tag`) read as
    /// a heading without a note: its ids and revisions are that listd's (the file was copied from
    /// another machine, or kept from a state since wiped) and name nothing here. A note without
    /// `of=` (written before listd named itself) is taken as this listd's. `tag` nil: every note
    /// is taken.
    package init(parsing text: String, notesOf tag: String?) {
        self.init(parsing: text)
        guard let tag else { return }
        for index in lines.indices {
            guard case .heading(var heading) = lines[index], let other = heading.noteTag, other != tag else { continue }
            heading.metadata = nil
            lines[index] = .heading(heading)
        }
    }

    /// The name a listd gives itself in its notes (`of=`): the start of its instance's name
    /// (a random UUID made at its first start), enough to tell one machine's listd from another.
    package static func noteTag(ofInstance instance: String) -> String {
        String(instance.filter(\.isHexDigit).prefix(8))
    }

    /// The newest revision its headings' notes name (`rev=`), as `ListFileReading.shownRevision`
    /// reads it: the version of the lists a copy was made from.
    package var revisionNamed: Revision? {
        lines.reduce(nil) { newest, line in
            guard case .heading(let heading) = line, let revision = heading.revision else { return newest }
            return max(newest ?? revision, revision)
        }
    }

    /// The tag the notes of the document carry (the first heading's that has one).
    package var noteTag: String? {
        for line in lines {
            if case .heading(let heading) = line, let tag = heading.noteTag { return tag }
        }
        return nil
    }

    /// The lines of `text`, split at "\n" and "\r\n" (the last one empty when the text ends with
    /// a line end). Split on the bytes: a line end never joins a grapheme cluster with what
    /// follows, so this is the Character-wise split, without its cost per character.
    static func lineTexts(of text: String) -> [Substring] {
        let utf8 = text.utf8
        var lines: [Substring] = []
        var start = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "\n") {
                var end = index
                if end > start, utf8[utf8.index(before: end)] == UInt8(ascii: "\r") { end = utf8.index(before: end) }
                lines.append(text[start..<end])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        lines.append(text[start..<utf8.endIndex])
        return lines
    }

    /// The document as text.
    package var text: String {
        Self.joining(lines.map(\.raw), endingWithNewline: endsWithNewline)
    }

    /// `lines` as text, each ended by "\n" (the last one only when `endingWithNewline`). A line
    /// that ends in "\r" is ended by "\r\n": it was read from "\r\r\n", and a lone "\n" after it
    /// would read back as a "\r\n" ending, the line losing its "\r" (and "#\r", a note, becoming
    /// "#", a heading).
    static func joining(_ lines: [String], endingWithNewline: Bool) -> String {
        var text = ""
        for (index, line) in lines.enumerated() {
            text += line
            guard index < lines.count - 1 || endingWithNewline else { break }
            text += line.utf8.last == UInt8(ascii: "\r") ? "\r\n" : "\n"
        }
        return text
    }

    static let marker = "<!-- listd"

    static func classify(_ raw: Substring, firstLine: Bool) -> Line {
        quickItem(raw) ?? classifyCharacterWise(raw, firstLine: firstLine)
    }

    /// The rules, Character by Character.
    static func classifyCharacterWise(_ raw: Substring, firstLine: Bool) -> Line {
        if raw.hasPrefix("# ") || raw == "#" {
            var name = raw.dropFirst()
            var metadata: [String: String]?
            if raw.hasSuffix("-->"), let start = lastMarker(in: name), let fields = fields(of: name[start...]) {
                metadata = fields
                name = name[..<start]
            }
            return .heading(Heading(name: String(name), metadata: metadata, raw: String(raw)))
        }
        if raw.hasPrefix("## ") || raw == "##" {
            return .section(SectionHeading(name: String(raw.dropFirst(2)), raw: String(raw)))
        }
        let body = raw.drop { $0 == " " || $0 == "\t" }
        if let bullet = body.first, "-*+".contains(bullet) {
            let rest = body.dropFirst()
            if rest.isEmpty {
                return .item(Item(bullet: String(raw), rest: ""))
            }
            if rest.first == " " || rest.first == "\t" {
                let textStart = rest.index(after: rest.startIndex)
                return .item(Item(bullet: String(raw[..<textStart]), rest: String(raw[textStart...])))
            }
        }
        // An ordered list's item, as Markdown has it: up to nine digits, "." or ")", a space.
        let digits = body.prefix { $0.isASCII && $0.isNumber }
        if (1...9).contains(digits.count) {
            let rest = body[digits.endIndex...]
            if let mark = rest.first, mark == "." || mark == ")" {
                let after = rest.dropFirst()
                if after.isEmpty { return .item(Item(bullet: String(raw), rest: "")) }
                if after.first == " " || after.first == "\t" {
                    let textStart = after.index(after: after.startIndex)
                    return .item(Item(bullet: String(raw[..<textStart]), rest: String(raw[textStart...])))
                }
            }
        }
        if firstLine, let fields = fields(of: raw), fields["revision"] != nil || fields["next-id"] != nil {
            return .legacyHeader(fields)
        }
        return .text(String(raw))
    }

    /// Most lines of a list file are `- text`: decided here on the bytes, when every byte that
    /// decides (indentation, bullet, the space after it) and the first byte of the text are ASCII,
    /// so that no combining mark can join them into other Characters. nil sends the line through
    /// the Character-wise rules of `classify`.
    static func quickItem(_ raw: Substring) -> Line? {
        let utf8 = raw.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex, utf8[index] == UInt8(ascii: " ") || utf8[index] == UInt8(ascii: "\t") {
            index = utf8.index(after: index)
        }
        guard index != utf8.endIndex else { return nil }
        switch utf8[index] {
        case UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "+"): break
        default: return nil
        }
        let separator = utf8.index(after: index)
        guard separator != utf8.endIndex, utf8[separator] == UInt8(ascii: " ") || utf8[separator] == UInt8(ascii: "\t")
        else {
            return nil
        }
        let textStart = utf8.index(after: separator)
        // After the bullet, ASCII (a task box is all ASCII).
        guard textStart == utf8.endIndex || utf8[textStart] < 0x80 else { return nil }
        return .item(Item(bullet: String(raw[..<textStart]), rest: String(raw[textStart...])))
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

    /// The `key=value` fields of a `<!-- listd … -->` comment. Not of listd's note on a line it
    /// did not take (`<!-- listd: not taken: …`): what the person wrote there may read as fields
    /// (`revision=3` made it a legacy header, dropped at the next write: found by make fuzz).
    static func fields(of text: Substring) -> [String: String]? {
        let trimmed = Substring(ListText.trimmed(String(text)))
        guard trimmed.hasPrefix(marker), trimmed.hasSuffix("-->"),
            trimmed.dropFirst(marker.count).first == " "
        else { return nil }
        var fields: [String: String] = [:]
        for token in trimmed.dropFirst(marker.count).dropLast(3).split(separator: " ") {
            guard let equals = token.firstIndex(of: "=") else { continue }
            fields[String(token[..<equals])] = String(token[token.index(after: equals)...])
        }
        return fields
    }
}

extension ListDocument.Line {
    package var raw: String {
        switch self {
        case .heading(let heading): heading.raw
        case .section(let section): section.raw
        case .item(let item): item.raw
        case .legacyHeader(let fields):
            ListDocument.marker + " "
                + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + " -->"
        case .text(let text): text
        }
    }
}
