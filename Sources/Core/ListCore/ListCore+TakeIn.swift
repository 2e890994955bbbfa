// A decided save taken in: its edits merged onto the lists as they are, what was not taken marked.
import ListFileFormat
import ListModel

extension ListCore {
    /// Applies the save's allowed edits onto the lists (a three-way merge: edits made meanwhile
    /// are kept), marks the lines not taken, and releases its queues.
    mutating func takeIn(at time: Timestamp, into actions: inout [CoreAction]) {
        guard let current = save else { return }
        var reading = current.reading
        var diagnostics = reading.diagnostics
        var changes: [ListChange] = []
        var entries: [LogEntry] = []
        let lines = reading.document.lines
        var stale = false
        func reject(_ fileEdit: FileEdit, _ problem: ListFileDiagnostic.Problem) {
            // An edit of no line (an item or a list deleted in the file): said about the whole
            // list, naming what stays.
            guard fileEdit.line >= 0 else {
                guard case .deniedByDelegates(let message) = problem else { return note(fileEdit, problem) }
                switch fileEdit.edit {
                case .removeItem(let item, _): return note(fileEdit, .deniedByDelegates("“\(item)” stays: \(message)"))
                case .deleteList(let list):
                    let name = (try? working.list(list))?.name ?? "the list"
                    return note(fileEdit, .deniedByDelegates("“\(name)” stays: \(message)"))
                default: return note(fileEdit, problem)
                }
            }
            diagnostics.append(
                ListFileDiagnostic(line: fileEdit.line + 1, text: lines[fileEdit.line].raw, problem: problem)
            )
            if case .createList = fileEdit.edit, let section = fileEdit.section {
                // Its items and its `##` lines go with it (a `##` line left standing would be
                // read as a section of the list above once the heading is a comment).
                let under = reading.sections[section].items.map(\.line)
                    + (reading.sections[section].sectionLines + reading.sections[section].repeatedSectionLines).map(\.line)
                for line in under.sorted() {
                    diagnostics.append(
                        ListFileDiagnostic(
                            line: line + 1,
                            text: lines[line].raw,
                            problem: .underRejectedHeading(headingLine: fileEdit.line + 1)
                        )
                    )
                }
            }
        }
        /// A reading the copy may have been read from disagrees (`SaveReadings`): a new line (an
        /// item, a heading) is marked where it stands, as it is not on the lists; anything else
        /// is said under the list's heading, and its line written as the lists show it (a line
        /// of a tick, an amount, a section marked out would show the list otherwise than it is).
        func sayUncertain(_ fileEdit: FileEdit, _ why: String) {
            switch fileEdit.edit {
            case .createList, .addItem: reject(fileEdit, .conflict(why))
            default:
                var removed = fileEdit
                removed.line = -1
                note(removed, .conflict(why))
            }
        }
        // What the save asked that has no line of its own (a removal) and was not done: said in
        // `didRejectFileEdit` and as a note under the list's heading.
        var noted: [ListFileDiagnostic] = []
        var notes: [ListID: [String]] = [:]
        /// What was not taken of an edit of no line of the save (line 0 in the rejection: a
        /// note about the whole list), also written under the list's heading.
        func note(_ fileEdit: FileEdit, _ problem: ListFileDiagnostic.Problem) {
            guard let target = fileEdit.edit.target else { return }
            guard let id = (try? working.list(target))?.id else {
                // Its list is gone (deleted since the copy was read): said once on the copy's
                // heading of it, which the file no longer shows as a list.
                guard case .id(let gone) = target, let heading = reading.sections.first(where: { $0.id == gone })?.headingLine,
                    !diagnostics.contains(where: { $0.line == heading + 1 })
                else { return }
                diagnostics.append(ListFileDiagnostic(line: heading + 1, text: lines[heading].raw, problem: problem))
                return
            }
            let heading = reading.sections.first { $0.id == id }?.headingLine
            let item: String? =
                switch fileEdit.edit {
                case .removeItem(let item, _), .checkItem(let item, _), .uncheckItem(let item, _), .setQuantity(let item, _, _),
                    .moveItem(let item, _, _, _), .moveItemInto(let item, _, _, _), .replaceItem(let item, _, _):
                    item
                default: nil
                }
            let name = (try? working.list(.id(id)))?.name
            let diagnostic = ListFileDiagnostic(
                line: heading.map { $0 + 1 } ?? 0,
                text: item.map { "- \($0)" } ?? heading.map { lines[$0].raw } ?? name.map { "# \($0)" } ?? "",
                problem: problem
            )
            noted.append(diagnostic)
            notes[id, default: []].append(ListFileWriter.note(diagnostic.explanation))
        }
        var book = working
        let listsBefore = working.lists
        var created = false
        // Something the saved text shows was not done: the file is written back at once, so it
        // shows the lists and no later save proposes it again.
        var notTaken = false
        // What the history did since the save was read off the loop counts too (another
        // machine's change taken in meanwhile, a client's edit).
        var base = current.base
        base.since.catchUp(with: history)
        // A copy not tied to a version is read against the lists as they are now (the file shell
        // had the lists the file last showed, which may lack a client's edit made since).
        if !base.takesEveryEdit { base.book = working }
        var merge = SaveMerge(base, now: working)
        // The other texts the copy may have been read from: what they read differently is kept
        // as the lists show it, and said (never guessed).
        let readings = SaveReadings(chosen: base.book, edits: current.edits, others: base.others, asWritten: base.asWritten, revisionLists: base.revisionLists, now: working, at: time)
        let staying = current.itemsRefusedElsewhere
        // The headings whose list was not created (a name the lists have already, a delegate's
        // no): a line not taken changes nothing, so the ticks, sections and amounts under them
        // are not applied to the list of that name either (they are marked with the heading).
        var notCreated: Set<Int> = []
        // The lines an edit of was not taken: the rest of what the line says is not applied
        // either (a ticked line whose add was refused is not also told its item is missing).
        var linesNotTaken: Set<Int> = []
        // The edits not taken (by their place in `work`): the person's copy still asks for them,
        // so the text they saved is remembered without them, and the same line saved again is
        // reported again.
        var notTakenEdits: Set<Int> = []
        // A retyped line is the diff's guess of which old line became which new one: when it
        // cannot be made as one change (the old text is still there but was changed meanwhile,
        // or a reading doubts it), it is the old text taken off and the new one added, each
        // decided on its own: a line removed beside a new one is not taken for one retype, and
        // the new line is never lost with the old one's conflict. So is a retype to a text the
        // list has already (the old line removed beside one the person left alone): refused as
        // one change, the removal would go unsaid.
        var work: [(index: Int, fileEdit: FileEdit)] = []
        for (index, fileEdit) in current.edits.enumerated() {
            if case .replaceItem(let old, let new, let reference) = fileEdit.edit,
                (!readings.isCertain && readings.doubt(fileEdit.edit) != nil)
                    || (merge.conflict(merge.renamingSections(fileEdit.edit)) != nil && (try? working.list(reference))?.index(ofItem: old) != nil)
                    || (ListText.key(old) != ListText.key(new) && (try? working.list(reference))?.index(ofItem: new) != nil),
                let halves = SaveMerge.retypeSplit(fileEdit, of: current.reading)
            {
                work += halves.map { (index, $0) }
            } else {
                work.append((index, fileEdit))
            }
        }
        for (position, (index, fileEdit)) in work.enumerated() {
            if let section = fileEdit.section, notCreated.contains(section) {
                notTaken = true
                notTakenEdits.insert(position)
                continue
            }
            if fileEdit.line >= 0, linesNotTaken.contains(fileEdit.line) {
                notTaken = true
                notTakenEdits.insert(position)
                continue
            }
            func notTakenHere() {
                notTaken = true
                notTakenEdits.insert(position)
                if case .createList = fileEdit.edit, let section = fileEdit.section { notCreated.insert(section) }
                if fileEdit.line >= 0 { linesNotTaken.insert(fileEdit.line) }
            }
            if case .refused(let message) = current.decisions[index] {
                reject(fileEdit, .deniedByDelegates(message))
                notTakenHere()
                continue
            }
            if case .removeItem(let item, _) = fileEdit.edit, staying.contains(ListText.key(item)) {
                notTaken = true
                notTakenEdits.insert(position)
                continue  // cut from this list, refused where it was pasted: it stays here
            }
            if case .createList(let name, _, _) = fileEdit.edit, fileEdit.line >= 0,
                case .heading(let heading) = lines[fileEdit.line], let id = heading.id, id < working.nextID,
                (try? working.list(.id(id))) == nil
            {
                // A heading that carries the note of a list deleted since the copy was read: that
                // list stays deleted (its items are not brought back as a new list), whether the
                // copy is tied to a version or too old to tell (ids are never given twice).
                reject(fileEdit, .conflict("“\(name)” was deleted after your copy of the file was read, so it is not made again: type its heading again without listd's note to make it anew."))
                notTakenHere()
                continue
            }
            var edit = merge.takingOnlyKnownItems(merge.renamingSections(fileEdit.edit))
            let done = merge.alreadyDone(edit)
            if case .done? = done { continue }
            if !readings.isCertain, let why = readings.doubt(fileEdit.edit) {
                sayUncertain(fileEdit, why)
                notTakenHere()
                continue
            }
            switch done {
            case .done?:
                continue
            case .doneDifferently(let why)?:
                // Added meanwhile with another amount or section: that stays, and is said.
                reject(fileEdit, .conflict(why))
                notTakenHere()
                continue
            case .doneBut(let rest)?:
                edit = rest  // added meanwhile: what the line says besides (its amount, section)
            case nil:
                if let why = merge.conflict(edit) {
                    // Changed meanwhile by someone else: what they did stands, and this is said.
                    reject(fileEdit, .conflict(why))
                    notTakenHere()
                    continue
                }
            }
            do throws(ListError) {
                if case .broke = current.decisions[index], edit == fileEdit.edit {
                    // It broke a rule when it came up and may pass now, after the save's own
                    // edits of other lists (a list renamed away, then a new one of its name):
                    // decided again once, the lists as they are now; a save started again is
                    // never started a third time, and what still waits for a delegate's word is
                    // said, not done unasked.
                    var trial = book
                    if (try? trial.apply(edit, at: time, origin: fileOrigin)) != nil {
                        if !current.restarted {
                            stale = true
                            break
                        }
                        if let question = DelegateQuestion(edit),
                            panel.wants(question, list: edit.target.flatMap { try? book.list($0).id }, name: edit.proposedName)
                        {
                            reject(fileEdit, .conflict(Self.undecidedInSave))
                            notTakenHere()
                            continue
                        }
                    }
                }
                let applied = try book.applyRecorded(edit, at: time, origin: fileOrigin)
                if case .createList = edit, let section = fileEdit.section {
                    reading.sections[section].id = applied?.change.list.id
                    created = true
                }
                if let (change, record) = applied {
                    // Neither keeps the list: the next line's edit changes it in place.
                    changes.append(change.withoutItems)
                    entries.append(.change(record))
                }
            } catch {
                reject(fileEdit, .denied(error))
                notTakenHere()
            }
        }
        if !readings.isCertain {
            for (fileEdit, why) in readings.unmade(by: current.reading, besides: current.edits) {
                sayUncertain(fileEdit, why)
                notTaken = true
            }
        }
        if stale {
            let (bytes, reading) = (current.bytes, current.reading)
            let edits = SaveEdits(base: current.base, edits: current.edits)
            withdrawSave(at: time, into: &actions)
            startSave(bytes, reading, edits: edits, restarted: true, at: time, into: &actions)
            return
        }
        // A `##` block the person moved is the section moved: what was added to it meanwhile
        // goes with it. A new `##` holds every line the copy shows under it.
        let sectionMoves =
            merge.itemsFollowingMovedSections(current.edits.map(\.edit), before: working, after: book)
            + merge.itemsLeftOutOfNewSections(current.edits.map(\.edit), after: book)
        for edit in sectionMoves {
            guard let (change, record) = try? book.applyRecorded(edit, at: time, origin: fileOrigin) else { continue }
            changes.append(change.withoutItems)
            entries.append(.change(record))
        }
        save = nil
        // A heading without listd's note (typed, or a copy whose notes were stripped) is tied to
        // its list by name for this save only: the file is written so that it carries the note,
        // as for a heading of a new list, and the next save is read by identity.
        let untied = reading.sections.contains { section in
            if case .heading(let heading) = lines[section.headingLine] { heading.id == nil } else { false }
        }
        book.reorder(by: reading.sections.compactMap(\.id))
        diagnostics.sort { $0.line < $1.line }
        reading.diagnostics = diagnostics
        let fileBefore = file
        working = book
        entries.append(.order(book.lists.map(\.id), revision: book.revision))
        entries.append(.fileShows(digest: digest(current.bytes), revision: book.revision))
        entries.append(.saveTaken(text: current.bytes, revision: book.revision))
        open.entries += entries
        open.changes += changes
        if open.fileBefore == nil { open.fileBefore = fileBefore }
        if let rejection = Self.rejection((diagnostics + noted).sorted { $0.line < $1.line }) {
            open.after.append(.announceRejection(rejection))
            open.after.append(.journal(.fileRejected(rejection)))
        }
        file.reading = reading
        file.rejected = reading.rejectedLines
        file.notes = notes
        file.bytes = current.bytes
        file.shown = book
        // The file needs writing only when it does not show the lists as they now are: lines to
        // mark, a new list's id to add, an edit not taken, or edits made since the lists it was
        // saved from (a render of a long list costs tens of milliseconds, only to find the same
        // bytes).
        let showsBook = !notTaken && listsBefore == current.base.book.lists
        file.dirty = !diagnostics.isEmpty || !notes.isEmpty || created || untied || !showsBook
        // The saved text is a version the person's editor holds: their next save is made from it.
        var textBook = book
        var asWritten: ListBook?
        if !showsBook {
            textBook = current.base.book
            // Each half of a retype split in two counts on its own (the new text added while the
            // old stays: the next save from this buffer sees both).
            // A list the text no longer shows is not among its lists, though its deletion was
            // not taken (and said): a heading the same buffer types later over some of its items
            // is a new list, not that list renamed with the rest of its items taken off.
            for (position, (_, fileEdit)) in work.enumerated() {
                guard !notTakenEdits.contains(position) || fileEdit.edit.isListDeletion else { continue }
                _ = try? textBook.apply(fileEdit.edit, at: time, origin: fileOrigin)
            }
            // A list the save made has the id listd gave it, not the one the base would have
            // given (a list made and deleted meanwhile took that): the next save from the same
            // buffer is tied to it.
            let baseIDs = Set(current.base.book.lists.map(\.id))
            let lists = textBook.lists.map { list in
                guard !baseIDs.contains(list.id), let made = try? book.list(.name(list.name)) else { return list }
                var list = list
                list.id = made.id
                return list
            }
            textBook = ListBook(lists: lists, revision: textBook.revision, nextID: book.nextID)
            // With its lines' edits not taken, as the text shows them (a list's name too: a
            // rename put back later is the person's; not a list made or deleted here, which is
            // tied to ids above).
            for (position, (_, fileEdit)) in work.enumerated() where notTakenEdits.contains(position) {
                switch fileEdit.edit {
                case .checkItem, .uncheckItem, .setQuantity, .addItem, .removeItem, .replaceItem, .renameList:
                    var written = asWritten ?? textBook
                    if (try? written.apply(fileEdit.edit, at: time, origin: fileOrigin)) != nil { asWritten = written }
                default:
                    break
                }
            }
        }
        remember(
            FileVersion(revision: current.reading.shownRevision, book: textBook, text: current.bytes, through: book.revision, asWritten: asWritten)
        )
        // Its queues go to whoever waits behind it.
        for key in current.parts.keys.sorted() {
            if queues[key]?.first == .save(current.id) { queues[key]?.removeFirst() }
            advance(key, at: time, into: &actions)
        }
    }

    /// Why an edit that depends on another of the same save, and that a delegate wants to be
    /// asked about, is not taken.
    static let undecidedInSave =
        "This line depends on another change of the same save, and could not be put to the delegates with it: save it again to have it asked."

    static func rejection(_ diagnostics: [ListFileDiagnostic]) -> FileRejectionParams? {
        guard !diagnostics.isEmpty else { return nil }
        let count = diagnostics.count
        return FileRejectionParams(
            reason: "linesNotTaken",
            message:
                "\(count) line\(count == 1 ? "" : "s") of the list file could not be taken; the rest was applied. Each is marked in the file.",
            lines: diagnostics.map { .init(line: $0.line, text: $0.text, reason: $0.reason, message: $0.explanation) }
        )
    }
}

extension ListEdit {
    /// `deleteList`.
    var isListDeletion: Bool {
        if case .deleteList = self { true } else { false }
    }
}
