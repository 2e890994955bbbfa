import ListFileFormat
import ListModel
import ListRPC

/// What the core knows of the list file.
struct FileState: Sendable {
    /// The file as listd last read or wrote it, tied to list ids.
    var reading: ListFileReading?
    /// Its exact bytes: a read that finds the same bytes is listd's own write (no echo).
    var bytes: [UInt8]?
    /// The lists the file at `bytes` shows. A save's edits are computed from these.
    var shown = ListBook()
    /// Lines of `reading` not taken, marked when the file is next written.
    var rejected: [Int: String] = [:]
    /// The file does not show the durable lists (or lacks marks): write it.
    var dirty = false
    /// When it became dirty (a write follows `ListCore.fileWriteDelay` later).
    var dirtySince: ContinuousClock.Instant?
    /// Set while the file is not UTF-8: edits are denied so the file is not clobbered.
    var invalidOffset: Int?
    /// The invalid content already reported, so it is reported once.
    var reportedInvalid: [UInt8]?
    /// When the file was first seen empty (a truncate whose write has not come yet).
    var emptySince: ContinuousClock.Instant?
    /// A read is under way.
    var readInFlight = false
    /// The watcher spoke while a read or write was under way: read again after it.
    var readWanted = false
    var writeInFlight = false
    var writeScheduled = false

    mutating func markDirty() { dirty = true }
}

/// A person's save being decided: its edits (from the lists the file showed before), each
/// waiting in its list's queue, and what was decided of each.
struct Save: Sendable {
    enum Decision: Sendable {
        case allowed
        case refused(String)
        /// The rules denied it when it came up (asked again if they would not now).
        case broke
        /// It changes nothing.
        case unchanged
    }

    var id: Int
    var bytes: [UInt8]
    var reading: ListFileReading
    var base: ListBook
    var edits: [FileEdit]
    /// The edits of each queue, in file order.
    var parts: [String: [Int]]
    /// Per queue: the lists as they will be after the part's allowed edits so far.
    var partBooks: [String: ListBook] = [:]
    var decisions: [Int: Decision] = [:]
    /// Time passed while it was decided: the file is read again before it is taken in.
    var waited = false
    var awaitingVerification = false

    var isDecided: Bool { decisions.count == edits.count }
}

extension ListCore {
    /// How long an emptied list file is given to be filled before listd writes the lists back.
    static let emptyFileGrace: Duration = .seconds(2)
    /// How long the list file may lag behind the committed lists: edits within that time share
    /// one rewrite of the file.
    static let fileWriteDelay: Duration = .milliseconds(25)

    /// The first look at the list file, before listd serves. `recognized`: the file is one listd
    /// wrote or took in (its `reading` is tied to the lists it shows, `shown`).
    mutating func start(
        _ content: FileContent,
        recognized shown: ListBook?,
        firstStart: Bool,
        now: ContinuousClock.Instant,
        at time: Timestamp
    ) -> [CoreAction] {
        file.dirty = true  // the file may lag behind the log: checked once
        if case .bytes(let bytes, let reading?, _) = content, let shown {
            file.bytes = bytes
            file.reading = reading
            file.shown = shown
            return []
        }
        if firstStart, working.lists.isEmpty, case .bytes(let bytes, var reading?, _) = content {
            // Nothing kept yet: the file is all there is (its ids and numbers taken as written).
            let book = reading.book(at: time)
            durable = book
            working = book
            open.book = book
            file.bytes = bytes
            file.reading = reading
            file.shown = book
            file.rejected = reading.rejectedLines
            guard let rejection = Self.rejection(reading.diagnostics) else { return [] }
            return [.announceRejection(rejection), .journal(.fileRejected(rejection))]
        }
        if case .missing = content, firstStart { file.bytes = nil }
        return fileRead(content, now: now, at: time)
    }

    /// The watcher says a save has settled (or listd re-reads the file).
    mutating func fileTouched() -> [CoreAction] {
        requestRead()
    }

    func readAction() -> CoreAction { .readFile(known: file.shown) }

    mutating func requestRead() -> [CoreAction] {
        if file.readInFlight || file.writeInFlight {
            file.readWanted = true
            return []
        }
        file.readInFlight = true
        file.readWanted = false
        return [.readFile(known: file.shown)]
    }

    /// The file as read after a `readFile`.
    mutating func fileRead(_ content: FileContent, now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        file.readInFlight = false
        var actions: [CoreAction] = []
        take(content, now: now, at: time, into: &actions)
        if file.readWanted, !file.readInFlight { actions += requestRead() }
        flush(into: &actions)
        scheduleWrite(now: now, into: &actions)
        return actions
    }

    private mutating func take(_ content: FileContent, now: ContinuousClock.Instant, at time: Timestamp, into actions: inout [CoreAction]) {
        switch content {
        case .bytes(let bytes, _, let known) where known != file.shown && bytes != file.bytes:
            // Tied to lists the file no longer shows (a save was taken in meanwhile): again.
            actions += requestRead()
        case .bytes(let bytes, _, _) where bytes == file.bytes && save == nil:
            file.emptySince = nil  // listd's own write, or nothing new
        case .bytes(let bytes, _, _) where save?.bytes == bytes:
            if save!.awaitingVerification { takeIn(at: time, into: &actions) }
        case .missing, .bytes([], _, _):
            let emptied: Bool
            if case .missing = content { emptied = false } else { emptied = true }
            let since = file.emptySince ?? now
            file.emptySince = since
            if !emptied || now - since >= Self.emptyFileGrace || file.bytes == nil {
                // Deleted (or left empty): the lists are not deleted with it; write them back.
                if file.bytes != nil { actions.append(.journal(.fileEmptied(path: filePath, deleted: !emptied))) }
                withdrawSave(at: time, into: &actions)
                // Written back onto the text last read, notes and all.
                file.bytes = emptied ? [] : nil
                file.dirty = true
                file.dirtySince = nil
                file.emptySince = nil
            } else {
                // Probably a truncate whose write is still to come: look again later.
                actions.append(.recheckFile(after: Self.emptyFileGrace))
            }
        case .bytes(let bytes, nil, _):
            // Not UTF-8: keep the last good state, never overwrite, deny edits until fixed.
            let offset = firstInvalidUTF8Offset(bytes)
            file.invalidOffset = offset
            withdrawSave(at: time, into: &actions)
            if file.reportedInvalid != bytes {
                file.reportedInvalid = bytes
                let rejection = FileRejectionParams(
                    reason: "fileInvalid",
                    message: "The list file \(filePath) is not UTF-8 text (first bad byte at offset \(offset)); listd keeps the lists as they were and will not write the file until it is fixed.",
                    lines: [],
                    byteOffset: offset
                )
                actions.append(.announceRejection(rejection))
                actions.append(.journal(.fileRejected(rejection)))
                actions.append(.statusChanged)
            }
        case .bytes(let bytes, let reading?, _):
            let wasInvalid = file.invalidOffset != nil
            file.emptySince = nil
            file.reportedInvalid = nil
            file.invalidOffset = nil
            if wasInvalid { actions.append(.statusChanged) }
            withdrawSave(at: time, into: &actions)
            startSave(bytes, reading, at: time, into: &actions)
        }
    }

    /// Starts deciding a save: each of its edits joins its list's queue.
    private mutating func startSave(_ bytes: [UInt8], _ reading: ListFileReading, at time: Timestamp, into actions: inout [CoreAction]) {
        let edits = reading.edits(from: file.shown)
        var new = Save(id: nextSaveID, bytes: bytes, reading: reading, base: file.shown, edits: edits, parts: [:])
        nextSaveID += 1
        for (index, fileEdit) in edits.enumerated() {
            guard let key = fileEdit.edit.gateKey(in: working) else {
                new.decisions[index] = .broke  // its list is gone; reported when taken in
                continue
            }
            new.parts[key, default: []].append(index)
        }
        save = new
        for key in new.parts.keys.sorted() {
            queues[key, default: []].append(.save(new.id))
            if queues[key]!.count == 1 {
                advance(key, at: time, into: &actions)
            } else {
                save?.waited = true
            }
        }
        completeSaveIfDecided(at: time, into: &actions)
    }

    /// Decides the next undecided edits of the save's part in `key`'s queue (it is at the head).
    mutating func advanceSave(_ key: String, at time: Timestamp, into actions: inout [CoreAction]) {
        guard var current = save, let part = current.parts[key] else { return }
        var book = current.partBooks[key] ?? working
        for index in part where current.decisions[index] == nil {
            if asking.contains(.saveEdit(save: current.id, index: index)) { return }
            let edit = current.edits[index].edit
            var trial = book
            switch Result(catching: { () throws(ListError) in try trial.apply(edit, at: time, origin: .file) }) {
            case .failure: current.decisions[index] = .broke
            case .success(nil): current.decisions[index] = .unchanged
            case .success(.some):
                let list = edit.target.flatMap { try? book.list($0) }
                let params = DelegateQuestionParams(edit, list: list, origin: .file, revision: book.revision)
                current.partBooks[key] = book
                save = current
                asking.insert(.saveEdit(save: current.id, index: index))
                actions.append(.ask(.saveEdit(save: current.id, index: index), DelegateQuestion(edit), params, list: list?.id, name: params.name))
                return
            }
            book = trial
        }
        current.partBooks[key] = book
        save = current
    }

    /// A delegates' verdict on one edit of the save.
    mutating func record(_ verdict: DelegateVerdict, forSaveEdit index: Int, at time: Timestamp, into actions: inout [CoreAction]) {
        guard var current = save else { return }
        let edit = current.edits[index].edit
        if verdict.consulted { current.waited = true }
        guard let key = current.parts.first(where: { $0.value.contains(index) })?.key else { return }
        if verdict.denied {
            let message = RPCError.deniedByDelegate(verdict.denials, timedOut: verdict.timedOut).message
            current.decisions[index] = .refused(message)
            let book = current.partBooks[key] ?? working
            let list = edit.target.flatMap { try? book.list($0) }
            let params = DelegateQuestionParams(edit, list: list, origin: .file, revision: book.revision)
            actions.append(.announceDenial(DeniedChangeParams(question: DelegateQuestion(edit), proposal: params, denials: verdict.denials, timedOut: verdict.timedOut)))
        } else {
            current.decisions[index] = .allowed
            var book = current.partBooks[key] ?? working
            _ = try? book.apply(edit, at: time, origin: .file)
            current.partBooks[key] = book
        }
        save = current
        advanceSave(key, at: time, into: &actions)
        completeSaveIfDecided(at: time, into: &actions)
    }

    /// Once every edit is decided: taken in now, or after the file is read again when time
    /// passed (a later save replaces this one: what delegates said of it does not count).
    mutating func completeSaveIfDecided(at time: Timestamp, into actions: inout [CoreAction]) {
        guard let current = save, current.isDecided, !current.awaitingVerification else { return }
        if current.waited {
            save?.awaitingVerification = true
            actions += requestRead()
        } else {
            takeIn(at: time, into: &actions)
        }
    }

    /// Drops the save being decided (a newer one replaces it): its queues are released, and the
    /// answers still to come about it are ignored.
    mutating func withdrawSave(at time: Timestamp, into actions: inout [CoreAction]) {
        guard let old = save else { return }
        save = nil
        asking = asking.filter { if case .saveEdit(let id, _) = $0 { return id != old.id } else { return true } }
        for key in old.parts.keys.sorted() {
            let wasHead = queues[key]?.first == .save(old.id)
            queues[key]?.removeAll { $0 == .save(old.id) }
            if queues[key]?.isEmpty == true { queues[key] = nil }
            if wasHead { advance(key, at: time, into: &actions) }
        }
    }

    /// Applies the save's allowed edits onto the lists (a three-way merge: edits made meanwhile
    /// are kept), marks the lines not taken, and releases its queues.
    private mutating func takeIn(at time: Timestamp, into actions: inout [CoreAction]) {
        guard let current = save else { return }
        var reading = current.reading
        var diagnostics = reading.diagnostics
        var changes: [ListChange] = []
        var entries: [LogEntry] = []
        let lines = reading.document.lines
        var stale = false
        func reject(_ fileEdit: FileEdit, _ problem: ListFileDiagnostic.Problem) {
            guard fileEdit.line >= 0 else { return }
            diagnostics.append(ListFileDiagnostic(line: fileEdit.line + 1, text: lines[fileEdit.line].raw, problem: problem))
            if case .createList = fileEdit.edit, let section = fileEdit.section {
                for item in reading.sections[section].items {
                    diagnostics.append(
                        ListFileDiagnostic(line: item.line + 1, text: lines[item.line].raw, problem: .underRejectedHeading(headingLine: fileEdit.line + 1))
                    )
                }
            }
        }
        var book = working
        for (index, fileEdit) in current.edits.enumerated() {
            if case .refused(let message) = current.decisions[index] {
                reject(fileEdit, .deniedByDelegates(message))
                continue
            }
            let before = fileEdit.edit.target.flatMap { try? book.list($0) }
            do throws(ListError) {
                let change = try book.apply(fileEdit.edit, at: time, origin: .file)
                if case .broke = current.decisions[index], change != nil {
                    stale = true  // it broke a rule when it came up, and passes now: ask first
                    break
                }
                if case .createList = fileEdit.edit, let section = fileEdit.section {
                    reading.sections[section].id = change?.list.id
                }
                if let change {
                    changes.append(change)
                    entries.append(.change(ChangeRecord(change, before: before)))
                }
            } catch {
                reject(fileEdit, .denied(error))
            }
        }
        if stale {
            let (bytes, reading) = (current.bytes, current.reading)
            withdrawSave(at: time, into: &actions)
            startSave(bytes, reading, at: time, into: &actions)
            return
        }
        save = nil
        book.reorder(by: reading.sections.compactMap(\.id))
        diagnostics.sort { $0.line < $1.line }
        reading.diagnostics = diagnostics
        let fileBefore = file
        working = book
        entries.append(.order(book.lists.map(\.id), revision: book.revision))
        entries.append(.fileShows(digest: digest(current.bytes), revision: book.revision))
        open.entries += entries
        open.changes += changes
        open.book = working
        if open.fileBefore == nil { open.fileBefore = fileBefore }
        if let rejection = Self.rejection(diagnostics) {
            open.after.append(.announceRejection(rejection))
            open.after.append(.journal(.fileRejected(rejection)))
        }
        file.reading = reading
        file.rejected = reading.rejectedLines
        file.bytes = current.bytes
        file.shown = book
        file.dirty = true
        // Its queues go to whoever waits behind it.
        for key in current.parts.keys.sorted() {
            if queues[key]?.first == .save(current.id) { queues[key]?.removeFirst() }
            advance(key, at: time, into: &actions)
        }
    }

    static func rejection(_ diagnostics: [ListFileDiagnostic]) -> FileRejectionParams? {
        guard !diagnostics.isEmpty else { return nil }
        let count = diagnostics.count
        return FileRejectionParams(
            reason: "linesNotTaken",
            message: "\(count) line\(count == 1 ? "" : "s") of the list file could not be taken; the rest was applied. Each is marked in the file.",
            lines: diagnostics.map { .init(line: $0.line, text: $0.text, reason: $0.reason, message: $0.explanation) }
        )
    }

    // MARK: Writing the file

    /// Asks for a rewrite once the file has lagged `fileWriteDelay`, or a timer for it.
    mutating func scheduleWrite(now: ContinuousClock.Instant, force: Bool = false, into actions: inout [CoreAction]) {
        guard file.dirty, save == nil, file.invalidOffset == nil, !file.writeInFlight, !file.readInFlight else { return }
        let since = file.dirtySince ?? now
        file.dirtySince = since
        let lag = now - since
        if force || lag >= Self.fileWriteDelay {
            file.writeInFlight = true
            file.writeScheduled = false
            actions.append(.renderFile(book: durable, reading: file.reading, rejected: file.rejected))
        } else if !file.writeScheduled {
            file.writeScheduled = true
            actions.append(.scheduleWrite(after: Self.fileWriteDelay - lag))
        }
    }

    /// The timer of a `scheduleWrite` fired (or listd is about to stop: `force`).
    mutating func writeDue(now: ContinuousClock.Instant, force: Bool = false) -> [CoreAction] {
        file.writeScheduled = false
        var actions: [CoreAction] = []
        scheduleWrite(now: now, force: force, into: &actions)
        return actions
    }

    /// The file shell rendered the lists; logged as what that file shows before it replaces the
    /// list file, so a start that finds it never takes listd's write for a person's.
    mutating func fileRendered(_ rendered: RenderedFile, now: ContinuousClock.Instant) -> [CoreAction] {
        var actions: [CoreAction] = []
        if rendered.bytes == file.bytes {
            return fileReplaced(rendered, .written, now: now)
        }
        open.entries.append(.fileShows(digest: digest(rendered.bytes), revision: rendered.book.revision))
        open.after.append(.replaceFile(rendered, expecting: file.bytes))
        flush(into: &actions)
        return actions
    }

    /// How the replacement of the list file ended.
    mutating func fileReplaced(_ rendered: RenderedFile, _ outcome: FileReplaceOutcome, now: ContinuousClock.Instant) -> [CoreAction] {
        file.writeInFlight = false
        var actions: [CoreAction] = []
        switch outcome {
        case .written:
            file.bytes = rendered.bytes
            file.reading = rendered.reading
            file.rejected = [:]
            file.shown = rendered.book
            file.dirty = rendered.book != durable
            file.dirtySince = nil
        case .changedWhileWriting:
            file.readWanted = true  // the watcher brings that save in; still dirty
        case .failed(let error):
            // Tried again after the next change (the lists are safe in the change log).
            actions.append(.journal(.fileWriteFailed(error)))
            file.dirtySince = now
            if file.readWanted { actions += requestRead() }
            return actions
        }
        if file.readWanted { actions += requestRead() }
        scheduleWrite(now: now, into: &actions)
        return actions
    }
}
