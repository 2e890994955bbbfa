// The list file's bytes made into what the core reads (`FileContent`), and the lists made into
// its new text (`RenderedFile`): pure, run by the file shell off the owner's loop.
import ListFileFormat
import ListModel

package enum ListFileText {
    /// The file's bytes read and tied to the lists of `request`, with the save's edits from the
    /// version its editor read; `withEdits` false: without them (at start, where the file is
    /// usually listd's own).
    package static func content(_ bytes: [UInt8], _ request: FileReadRequest, withEdits: Bool = true) -> FileContent {
        let known = request.known
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .bytes(bytes, reading: nil, known: known, edits: nil)
        }
        // Headings are tied to any list a kept save shows, and to the lists of the save's base:
        // a copy that still has a list deleted since names it by id, and is not taken for a new
        // list of that name.
        let document = ListDocument(parsing: text, notesOf: request.tag)
        var lists = known.lists
        var ids = Set(lists.map(\.id))
        func tied(adding more: [ShoppingList]) -> ListFileReading {
            for list in more where ids.insert(list.id).inserted { lists.append(list) }
            let everShown = lists.count == known.lists.count ? known : ListBook(lists: lists, revision: known.revision, nextID: known.nextID)
            return ListFileReading(document, known: everShown)
        }
        var reading = tied(adding: request.versions.reversed().flatMap(\.book.lists))
        guard withEdits else { return .bytes(bytes, reading: reading, known: known, edits: nil) }
        let base = SaveBase.base(
            for: reading,
            text: bytes,
            history: request.history,
            versions: request.versions,
            newest: known,
            forgotten: request.forgottenSaves
        )
        if base.book.lists.contains(where: { !ids.contains($0.id) }) { reading = tied(adding: base.book.lists) }
        if base.takesEveryEdit {
            // A typed heading whose name is no list's, over the items of a list the copy lacks:
            // that list, renamed in this buffer before listd wrote its note in — not a list whose
            // heading the copy's text showed with its note (deleted with it: a new list).
            tieTypedHeadings(&reading, to: base.book)
            tieByContent(&reading, to: base.book, retyingNamed: false, excluding: base.noted)
        } else {
            if let named = base.named { tieTypedHeadings(&reading, to: named) }
            tieByContent(&reading, to: known, retyingNamed: true, typedAreNew: carriesNotes(reading))
        }
        return .bytes(bytes, reading: reading, known: known, edits: SaveEdits(base: base, edits: reading.edits(from: base.book)))
    }

    /// A copy read from a version listd knows: a heading it has without listd's note was typed
    /// in that copy (or by the save it was read from): it is the list of that name the version
    /// shows when it shows that list's items, else a new list — never a list another made
    /// meanwhile under the same name (that is said, `listExists`), nor one renamed to it since.
    static func tieTypedHeadings(_ reading: inout ListFileReading, to base: ListBook) {
        let noted = Set(reading.sections.indices.filter { index in
            if case .heading(let heading) = reading.document.lines[reading.sections[index].headingLine] { heading.id != nil } else { false }
        })
        let taken = Set(noted.compactMap { reading.sections[$0].id })
        for index in reading.sections.indices where !noted.contains(index) {
            // Only when it shows that list's items (at least half of its lines): a heading typed
            // anew over other items is a new list, refused as the name is taken (and said), never
            // that list with all its items taken off.
            let texts = reading.sections[index].items.map(\.text)
            let list = (try? base.list(.name(reading.sections[index].name))).flatMap { list in
                texts.filter { list.index(ofItem: $0) != nil }.count * 2 >= texts.count ? list : nil
            }
            reading.sections[index].id = list.flatMap { taken.contains($0.id) ? nil : $0.id }
        }
    }

    /// A copy without listd's notes: a heading whose name is no list's is the list (as the lists
    /// are now, which such a copy is read against) whose items it mostly shows (at least half of its lines), when no heading is that list
    /// already — the person renamed it, or it was renamed since. Never a new list of copies of
    /// another's items: the rename is then said, not made (such a copy takes no renames).
    ///
    /// - Parameter typedAreNew: the copy carries listd's notes on its other headings (one too old
    ///   to tie to a version): a heading without a note was typed there (renaming a heading keeps
    ///   its note), so it is a new list, or the list of its name — never another list renamed.
    static func tieByContent(
        _ reading: inout ListFileReading,
        to base: ListBook,
        retyingNamed: Bool,
        excluding noted: Set<ListID> = [],
        typedAreNew: Bool = false
    ) {
        // A heading tied by its name to a list that has hardly any of its items (the list was
        // renamed since, and another made under its old name) is tied by its items instead.
        func shared(_ texts: [String], _ list: ShoppingList) -> Int { texts.filter { list.index(ofItem: $0) != nil }.count }
        // So is one whose list's items another heading without a list shows more of (the person
        // renamed the list in the copy, then typed a new list, or another's heading, under its
        // old name). (A heading over none of its list's items is that list all the same: its
        // block deleted and a new one typed under its name is the same text as every line
        // changed in place, and its adds are taken, its removals said.)
        func showsMore(_ other: ListFileReading.Section, _ list: ShoppingList, than count: Int) -> Bool {
            let texts = other.items.map(\.text)
            let count2 = shared(texts, list)
            return other.id == nil && count2 > count && count2 * 2 >= texts.count
        }
        for index in reading.sections.indices where retyingNamed {
            let texts = reading.sections[index].items.map(\.text)
            guard let id = reading.sections[index].id, !texts.isEmpty else { continue }
            guard let list = try? base.list(.id(id)) else {
                // Tied by its name to a list deleted since (a kept text showed it), without a note
                // of its own: over mostly another list's items, it is that list renamed to a
                // deleted list's name, which is said as any rename in such a copy — not a
                // deleted list brought back.
                let typed = if case .heading(let heading) = reading.document.lines[reading.sections[index].headingLine] { heading.id == nil } else { false }
                if typed, base.lists.contains(where: { shared(texts, $0) * 2 >= texts.count }) { reading.sections[index].id = nil }
                continue
            }
            let own = shared(texts, list)
            if own * 2 < texts.count && base.lists.contains(where: { $0.id != id && shared(texts, $0) * 2 >= texts.count })
                || reading.sections.contains(where: { showsMore($0, list, than: own) })
            {
                reading.sections[index].id = nil
            }
        }
        var taken = Set(reading.sections.compactMap(\.id)).union(noted)
        for index in reading.sections.indices where reading.sections[index].id == nil {
            if typedAreNew, !hasNote(reading, index) { continue }
            let texts = reading.sections[index].items.map(\.text)
            guard !texts.isEmpty else { continue }
            let best = base.lists.filter { !taken.contains($0.id) }
                .map { list in (list, texts.filter { list.index(ofItem: $0) != nil }.count) }
                .max { $0.1 < $1.1 }
            guard let (list, shared) = best, shared * 2 >= texts.count, shared > 0 else { continue }
            reading.sections[index].id = list.id
            taken.insert(list.id)
        }
    }

    /// Whether the heading of `reading`'s section `index` carries listd's note.
    static func hasNote(_ reading: ListFileReading, _ index: Int) -> Bool {
        if case .heading(let heading) = reading.document.lines[reading.sections[index].headingLine] { heading.id != nil } else { false }
    }

    /// Whether any heading of `reading` carries listd's note (of this listd: others' are read as none).
    static func carriesNotes(_ reading: ListFileReading) -> Bool {
        reading.sections.indices.contains { hasNote(reading, $0) }
    }

    /// The lists `bytes` show, when they show them exactly as listd writes them: rendering the
    /// lists of the revision their headings name (`rev=`, found in `history`; the newest lists
    /// when they name none) onto them gives them back. How a start recognises the file listd
    /// wrote last when no append noted it yet (`ListCore.fileRendered`); a person's change to a
    /// list never passes (listd would write the list as it is over it).
    package static func listsShownExactly(by bytes: [UInt8], history: ChangeHistory, newest: ListBook, tag: String? = nil) -> ListBook? {
        // A file listd wrote names its revision on every heading; one that names none (a
        // person's, or no lists at all) is not parsed twice at start for this.
        guard newest.lists.isEmpty || bytes.contains(" rev=".utf8),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let named = ListFileReading(ListDocument(parsing: text, notesOf: tag), known: newest).shownRevision
        guard let book = named.map({ try? history.book(at: $0) }) ?? newest,
            case .bytes(_, let reading?, _, _) = content(bytes, FileReadRequest(known: book, tag: tag), withEdits: false),
            render(book, onto: reading, rejected: [:], tag: tag).bytes == bytes
        else { return nil }
        return book
    }

    /// `content` against `known` alone (a file with no earlier versions to tell apart).
    package static func content(_ bytes: [UInt8], known: ListBook, withEdits: Bool = true) -> FileContent {
        content(bytes, FileReadRequest(known: known), withEdits: withEdits)
    }

    /// The file's new text: `book` laid onto the person's `reading`, `rejected` lines marked,
    /// `notes` under their lists' headings, listd's notes naming it by `tag`.
    package static func render(
        _ book: ListBook,
        onto reading: ListFileReading?,
        rejected: [Int: String],
        notes: [ListID: [String]] = [:],
        tag: String? = nil
    ) -> RenderedFile {
        let text = ListFileWriter.text(for: book, onto: reading, rejected: rejected, notes: notes, tag: tag)
        return RenderedFile(
            bytes: Array(text.utf8),
            reading: ListFileReading(ListDocument(parsing: text), known: book),
            book: book
        )
    }
}
