// Which lists a save (or an edit made on older lists) is read against: the lists its author saw.
import ListModel

/// A text of the list file that was on disk: one listd wrote, or a save of a person's it took
/// in. A save that shows the lists is not written back (an editor with the file open is not told
/// it changed), so its text stays on disk with the `rev=` it was made from: a copy read then, or
/// the same person saving again from their buffer, is made from it, not from that revision.
/// Kept in memory only: after a restart a save is read against the revision its headings name.
package struct FileVersion: Sendable {
    /// The `rev=` its headings carry (nil: none do).
    package var revision: Revision?
    /// The lists its text shows.
    package var book: ListBook
    /// Its bytes: which text a copy came from is told by its lines, their spelling included.
    package var text: [UInt8]
    /// A person's save (else listd wrote it).
    package var isSave: Bool
    /// The revision of the lists right after it was written or taken in: the history after it
    /// is what a copy made from it did not see.
    package var through: Revision
    /// A save's lists as its text shows them, the edits listd did not take included (`book` is
    /// without them, so that the same line saved again is reported again): a copy that may have
    /// been read from it and shows otherwise what was not taken (a tick put back off) was
    /// changed there by the person, which is said (`SaveReadings`).
    package var asWritten: ListBook?

    package init(
        revision: Revision?,
        book: ListBook,
        text: [UInt8] = [],
        isSave: Bool = true,
        through: Revision? = nil,
        asWritten: ListBook? = nil
    ) {
        self.revision = revision
        self.book = book
        self.text = text
        self.isSave = isSave
        self.through = through ?? book.revision
        self.asWritten = asWritten
    }
}

/// What a save is read against: the lists the person's editor read.
///
/// - A save whose headings name a revision the history keeps (`rev=`, on disk, across restarts)
///   is read against the lists at that revision, rebuilt from the history — or, when its text is
///   closer to a save taken in from that revision (the same person saving again from one buffer,
///   or someone who read the file while it showed that save), against that save. Another
///   person's save is never the base of a copy read before it: that copy differs from it by both
///   people's edits, from the revision by its own only.
/// - A save with no usable revision (its notes stripped by a tool, a backup older than the
///   history, another machine's file) is matched by content to the kept lists closest to it,
///   and whatever it shows that was taken off or renamed within the history is not brought back
///   (`since`).
/// - When no kept lists are close, it is read against the newest, and only what cannot undo
///   anything is taken from it.
package struct SaveBase: Sendable {
    package enum Kind: Sendable, Equatable {
        /// The lists at the revision its headings name, or the person's own save from it.
        case revision
        /// The kept lists closest to it by content, at `revision`.
        case closest(revision: Revision)
        /// It names no revision, but it is closest to a text listd had on disk without notes (a
        /// person's file listd had not written its notes into yet), or every heading carries its
        /// list's id and the lists as they are now are closest to it (a file from a listd that
        /// wrote no `rev=`): it differs from that by its own edits only.
        case newest
        /// Nothing kept is close: the newest lists; additions and ticks only.
        case unrelated
    }

    package var book: ListBook
    package var kind: Kind
    /// What the history did since the base (all of it, for a base found by content, which may
    /// predate what the copy shows): what the save must not bring back or undo.
    package var since: ChangesSince

    /// The lists of the other texts the copy may have been read from (listd's text of its
    /// `rev=`, the saves taken in from it), besides `book`: what they read differently is not
    /// guessed (`SaveReadings`).
    package var others: [ListBook] = []
    /// The chosen text's lists as it shows them, when that is a save some of whose edits were not
    /// taken (`FileVersion.asWritten`): what the copy shows otherwise there the person changed
    /// (put a tick back off), which `book` alone does not tell (`SaveReadings.unmade`).
    package var asWritten: ListBook?
    /// The lists at the revision the copy names, when it is read without it (a save made from
    /// it is forgotten): a heading typed without a note is tied as in a copy read from it
    /// (`ListFileText.tieTypedHeadings`), never taken for a list made since under its name.
    package var named: ListBook?
    /// The lists whose headings the chosen text showed with listd's note (every list of listd's
    /// own text; in a save, those the person did not type). A copy without such a heading did
    /// not rename that list by typing another: the person deleted the heading, note and all,
    /// and a heading typed there is a new list (`ListFileText.tieByContent`).
    package var noted: Set<ListID> = []
    /// The lists of listd's text of the revision the copy names (a list of a reading not among
    /// them was typed by a save from it; nil: not read by revision).
    package var revisionLists: Set<ListID>?

    package init(
        book: ListBook,
        kind: Kind,
        since: ChangesSince = ChangesSince(),
        others: [ListBook] = [],
        asWritten: ListBook? = nil
    ) {
        self.book = book
        self.kind = kind
        self.since = since
        self.others = others
        self.asWritten = asWritten
    }

    /// False: nothing kept is close to the copy (`unrelated`).
    package var known: Bool { kind != .unrelated }

    /// A save whose headings name the revision it was made from may make every edit. A copy
    /// found by content (its notes stripped, a backup older than the history, another
    /// machine's file) is not sure of its base: what it shows differently may be what happened
    /// since, not what the person did, so it may only add and tick (the rest is said).
    package var takesEveryEdit: Bool { kind == .revision || kind == .newest }

    /// How many lines a copy may differ from the closest kept lists and still be read against
    /// them: a quarter of its lines, at least three.
    static func isClose(_ distance: Int, lines: Int) -> Bool { distance <= max(3, lines / 4) }

    /// The base of `reading` (see the type's comment). `history`: the kept changes (nil when
    /// there are none to read, as in tests of the file alone); `versions`: the texts of the file
    /// listd wrote and the saves it took in, that a copy may have been made from; `newest`: the
    /// lists the file last showed.
    /// `text`: the copy's bytes (what `reading` was read from). `forgotten`: the revisions of
    /// saves taken in that `versions` no longer holds: a copy naming one may have been read from
    /// such a save, which nothing kept can tell, so it is read as a copy with no usable revision
    /// (what it shows differently from the lists now is said, not done).
    package static func base(
        for reading: ListFileReading,
        text: [UInt8]? = nil,
        history: ChangeHistory?,
        versions: [FileVersion],
        newest: ListBook,
        forgotten: Set<Revision> = []
    ) -> SaveBase {
        if let revision = reading.shownRevision {
            let atRevision: ListBook? =
                if revision == newest.revision { newest } else if let history { (try? history.book(at: revision)) ?? nil } else { nil }
            if forgotten.contains(revision) {
                var base = closest(to: reading, history: history, versions: versions, newest: newest, mayBeNewest: false)
                base.named = atRevision
                return base
            }
            if let atRevision {
                let copy = text ?? Array(reading.document.lines.map(\.raw).joined(separator: "\n").utf8)
                let tag = reading.document.noteTag
                let (book, _, others, asWritten, text) = madeFrom(copy, atRevision, revision: revision, versions: versions, tag: tag)
                // Everything after the revision the copy names, also when it is read against a
                // save from it: that save's own text may show an item taken off before it was
                // taken in (a line not taken), and a copy of it must not bring that back.
                let since = history.map { ChangesSince($0, from: revision) } ?? ChangesSince()
                var base = SaveBase(book: book, kind: .revision, since: since, others: others, asWritten: asWritten)
                base.noted = text.map { Self.notedLists(in: $0, tag: tag) } ?? Set(book.lists.map(\.id))
                base.revisionLists = Set(atRevision.lists.map(\.id))
                return base
            }
            // Without a history, the saves filed under its revision are all there is to go by.
            if history == nil, let own = versions.last(where: { $0.revision == revision }) {
                return SaveBase(book: own.book, kind: .revision)
            }
        }
        return closest(to: reading, history: history, versions: versions, newest: newest)
    }

    /// Which text of revision `revision` the copy was made from: the one listd wrote (its lists,
    /// `atRevision`, from the history) or a save taken in from it that stayed on disk, whichever
    /// its lines are closest to (`TextDistance`: the spelling of a line tells where it came from —
    /// `- [ ] milk` was made from `- [x] milk`, not from `- milk`). A tie goes to listd's text
    /// (a copy read before another person's save is never read against it), then to the later
    /// save. Without listd's text to compare with, the revision.
    /// Returns the lists of that text, the revision whose changes it shows, the lists of the
    /// other texts it may have been made from (what they disagree on is said, not guessed), and
    /// the chosen text when it is a save (nil: listd's own).
    static func madeFrom(
        _ copy: [UInt8],
        _ atRevision: ListBook,
        revision: Revision,
        versions: [FileVersion],
        tag: String? = nil
    ) -> (book: ListBook, through: Revision, others: [ListBook], asWritten: ListBook?, text: [UInt8]?) {
        let candidates = versions.filter { $0.revision == revision }
        let saves = candidates.filter(\.isSave)
        guard !saves.isEmpty else { return (atRevision, revision, [], nil, nil) }
        // listd's text of that revision, or a save that showed exactly its lists (taken in at a
        // start, say): the text a copy of the revision itself was read from. After a restart
        // (the saves are kept in the change log, listd's texts are not), that revision's lists
        // written anew stand in for it: they differ from it in the person's own lines only.
        let stored = candidates.last(where: { !$0.isSave }) ?? candidates.first(where: { Self.showSameLists($0.book, atRevision) })
        let written = stored ?? FileVersion(revision: revision, book: atRevision, text: Array(ListFileWriter.text(for: atRevision, onto: nil, tag: tag).utf8), isSave: false)
        guard !written.text.isEmpty, saves.allSatisfy({ !$0.text.isEmpty }) else {
            // Without listd's text of that revision to compare with, the revision: read against
            // it, another's save is never undone (what it did is already done); what the saves
            // from it read differently is said.
            return (atRevision, revision, saves.map { $0.asWritten ?? $0.book }, nil, nil)
        }
        let lines = TextLines(copy)
        var best = (book: atRevision, through: revision, distance: TextDistance.between(lines, TextLines(written.text)), index: -1)
        for (index, save) in saves.enumerated() {
            let distance = TextDistance.between(lines, TextLines(save.text))
            if distance < best.distance || (distance == best.distance && best.index >= 0) {
                best = (save.book, save.through, distance, index)
            }
        }
        let others = (best.index >= 0 ? [atRevision] : []) + saves.enumerated().filter { $0.offset != best.index }.map { $0.element.asWritten ?? $0.element.book }
        // The chosen save as its text shows it, too: the person may have changed what was not
        // taken of it (put a tick back off), which its lists alone do not tell.
        let chosen = best.index >= 0 ? saves[saves.index(saves.startIndex, offsetBy: best.index)] : nil
        return (best.book, best.through, others, chosen?.asWritten, chosen?.text)
    }

    /// The lists whose headings `text` shows with listd's note.
    static func notedLists(in text: [UInt8], tag: String?) -> Set<ListID> {
        let document = ListDocument(parsing: String(decoding: text, as: UTF8.self), notesOf: tag)
        return Set(document.lines.compactMap { if case .heading(let heading) = $0 { heading.id } else { nil } })
    }

    /// Whether two books show the same lists: names, items, ticks, amounts and sections (not the
    /// revisions and times they carry).
    package static func showSameLists(_ a: ListBook, _ b: ListBook) -> Bool {
        a.lists.count == b.lists.count
            && zip(a.lists, b.lists).allSatisfy { one, other in
                one.id == other.id && one.name == other.name && one.items == other.items && one.checked == other.checked
                    && one.quantities == other.quantities && one.sections == other.sections
            }
    }

    /// A copy with no usable revision: the kept lists closest to it by content.
    /// `mayBeNewest` false: never read as made from the newest lists (`.newest`), which takes
    /// every edit.
    static func closest(
        to reading: ListFileReading,
        history: ChangeHistory?,
        versions: [FileVersion],
        newest: ListBook,
        mayBeNewest: Bool = true
    ) -> SaveBase {
        let lines = reading.sections.reduce(0) { $0 + $1.items.count + 1 }
        // A text of listd's own on disk without notes (a person's file it found at start and has
        // not written its notes into yet): a copy made from it has none to lose. Not a save taken
        // in without notes: a stripped copy saved again stays one.
        // A text with no lists at all is no such file: a copy of it saved again by the buffer
        // that typed a list into it is closer to that save (which shows the list) as much.
        func unnoted(_ version: FileVersion) -> Bool {
            !version.isSave && !version.book.lists.isEmpty && !version.text.isEmpty && !version.text.contains("<!-- listd id=".utf8)
        }
        var best = (book: newest, distance: distance(reading, newest), unnoted: versions.last.map(unnoted) ?? false)
        func consider(_ book: ListBook, unnoted: Bool = false) {
            let distance = distance(reading, book)
            if distance < best.distance || (distance == best.distance && unnoted && !best.unnoted) { best = (book, distance, unnoted) }
        }
        for version in versions { consider(version.book, unnoted: unnoted(version)) }
        var since = ChangesSince()
        if let history {
            // Coarse: the base and every checkpoint; then every revision around the closest.
            consider(history.base)
            for checkpoint in history.checkpoints { consider(checkpoint) }
            // Every revision around the closest, when it is near enough to be worth it (a paste of
            // thousands of lines is close to none).
            if best.distance <= 2 * max(3, lines / 4) {
                let around = best.book.revision
                let from = max(history.base.revision, around - ChangeHistory.checkpointSpacing)
                let to = around + ChangeHistory.checkpointSpacing
                try? history.forEachRevision(from: from) { book, _, _ in
                    consider(book)
                    return book.revision < to
                }
            }
            since = ChangesSince(history)
        }
        guard isClose(best.distance, lines: lines) else {
            return SaveBase(book: newest, kind: .unrelated, since: since)
        }
        let everyHeadingNoted = reading.sections.allSatisfy { section in
            if case .heading(let heading) = reading.document.lines[section.headingLine] { heading.id != nil } else { false }
        }
        if mayBeNewest, !reading.sections.isEmpty, best.unnoted || (everyHeadingNoted && best.book.revision == newest.revision) {
            return SaveBase(book: best.book, kind: .newest, since: since)
        }
        // Read against the newest lists all the same (issue 59): what such a copy shows otherwise
        // may be what happened since, not what the person did, so only its additions are taken,
        // and what it shows that was taken off within the history is not brought back.
        return SaveBase(book: newest, kind: .closest(revision: best.book.revision), since: since)
    }

    /// How many lines `reading` differs from `book` in: items one has and the other has not,
    /// ticks that differ, headings renamed, whole lists one has and the other has not.
    static func distance(_ reading: ListFileReading, _ book: ListBook) -> Int {
        var distance = 0
        var seen: Set<ListID> = []
        for section in reading.sections {
            // A heading without listd's note is the list of its name in `book` (a list the same
            // buffer made in an earlier save: that save's text shows it so).
            let found = section.id.flatMap { try? book.list(.id($0)) }
                ?? (section.id == nil ? (try? book.list(.name(section.name))).flatMap { seen.contains($0.id) ? nil : $0 } : nil)
            guard let list = found else {
                distance += section.items.count + 1
                continue
            }
            let id = list.id
            seen.insert(id)
            var common = 0
            // One set per list: a lookup per line in the list itself scans its items' hashes.
            let items = Set(list.items)
            for item in section.items {
                if items.contains(item.text) {
                    common += 1
                    if list.isChecked(item.text) != item.checked { distance += 1 }
                } else {
                    distance += 1
                }
            }
            distance += list.items.count - common
            if list.name != section.name { distance += 1 }
        }
        for list in book.lists where !seen.contains(list.id) { distance += list.items.count + 1 }
        return distance
    }
}
