// The list file as the core sees it: a person's saves taken in, listd's own writes and their timing.
import ListFileFormat
import ListModel

extension ListCore {
    /// Whether the list file is, durably, what `file` says: no write of listd's under way (its
    /// note may be in the log and the rename still to come, or done and not yet reported), and
    /// no save taken whose changes are not durable yet. Only then may a snapshot name it.
    package var snapshotMayNameFile: Bool { !file.writeInFlight && file.shown.revision <= durable.revision }

    /// What a read of the file is checked against.
    var readRequest: FileReadRequest { FileReadRequest(known: file.shown, history: history, versions: file.versions, tag: noteTag, forgottenSaves: file.forgottenSaves) }

    /// The texts a file found at start may have been made from besides the revision it names:
    /// the saves taken in before the stop (kept in the change log), so a buffer saved again
    /// while listd was stopped is read as it would have been while it ran.
    package var versionsKept: [FileVersion] { file.versions }

    /// A text of the file was on disk: kept among the file's versions. A save that drops out of
    /// them is remembered by the revision it was made from (a copy of that revision may have
    /// been read from it: `SaveBase.base`), unless it showed exactly that revision's lists.
    mutating func remember(_ version: FileVersion) {
        for dropped in file.remember(version) where dropped.isSave {
            guard let revision = dropped.revision else { continue }
            if let lists = (try? history.book(at: revision)) ?? nil, SaveBase.showSameLists(dropped.book, lists) { continue }
            file.forgottenSaves.insert(revision)
        }
        file.forgetSaves(before: history.base.revision)
    }

    /// The first look at the list file, before listd serves. `recognized`: the file is one listd
    /// wrote or took in (its `reading` is tied to the lists it shows, `shown`).
    mutating func start(
        _ content: FileContent,
        recognized shown: ListBook?,
        byNote: Bool,
        firstStart: Bool,
        now: ContinuousClock.Instant,
        at time: Timestamp
    ) -> [CoreAction] {
        file.dirty = true  // the file may lag behind the log: checked once
        if case .bytes(let bytes, let reading?, _, _) = content, let shown {
            file.bytes = bytes
            file.reading = reading
            file.shown = shown
            // listd's own text shows the revision its headings name; a save taken in before the
            // stop (not written back: it showed the lists) shows a later one.
            let written = reading.shownRevision == shown.revision
            remember(FileVersion(revision: reading.shownRevision, book: shown, text: bytes, isSave: !written))
            if !byNote {
                // Known by its content only (written just before a stop whose note was still
                // due): noted now, before listd serves. Content alone stops recognising it once
                // the changes since outrun the kept history, and a later start would then take
                // this file for a person's save of an old copy (a power-loss run brought deleted
                // lists back that way).
                file.noteDue = .fileShows(digest: digest(bytes), revision: shown.revision)
            }
            // listd's own file, naming the revision it shows, of the lists as they are: nothing
            // lags, and a long list is not rendered again only to find the same bytes.
            if reading.shownRevision == durable.revision, shown == durable { file.dirty = false }
            return []
        }
        if firstStart, working.lists.isEmpty, case .bytes(let bytes, var reading?, _, _) = content {
            // Nothing kept yet: the file is all there is (its ids and numbers taken as written).
            let book = reading.book(at: time)
            durable = book
            working = book
            open.book = book
            file.bytes = bytes
            file.reading = reading
            file.shown = book
            file.rejected = reading.rejectedLines
            // A copy of it is read against it (it may carry no notes: `SaveBase.Kind.newest`).
            remember(FileVersion(revision: reading.shownRevision, book: book, text: bytes, isSave: false))
            guard let rejection = Self.rejection(reading.diagnostics) else { return [] }
            return [.announceRejection(rejection), .journal(.fileRejected(rejection))]
        }
        if case .missing = content, firstStart {
            // A new file tells the person what it is: the lists (none, unless shared) are written
            // onto the introduction, as onto any file the person wrote.
            file.bytes = nil
            file.reading = ListFileReading(ListDocument(parsing: ListFileWriter.introduction + "\n"), known: working)
        }
        // A change made while listd was stopped is read against the revision its headings name,
        // as any save is (its edits were computed from the history: `ListOwner.init`).
        return fileRead(content, now: now, at: time)
    }

    /// listd reads the file again, whatever the watcher saw (SIGHUP; an emptied file's recheck).
    mutating func fileTouched() -> [CoreAction] {
        requestRead()
    }

    /// The watcher saw the list file change: a person's save may be under way. Whether it is
    /// over is decided here (`file.settle`), on the timers this asks for; until it is, the file
    /// is not read, not even to check it before listd's own write, and client edits that come
    /// meanwhile wait for it (`propose`).
    mutating func fileChanged(_ changes: [FileChange], now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        var actions: [CoreAction] = []
        var check: ContinuousClock.Instant?
        for change in changes {
            if case .checkAt(let due) = file.settle.record(change, at: now) { check = due }
        }
        if let check { actions.append(.checkSettled(after: now.duration(to: check))) }
        if file.saveUnderway, file.settle.isSettled, !file.readInFlight, !file.readWanted {
            actions += releaseHeldForSave(at: time)
        }
        return actions
    }

    /// The timer of a `checkSettled` fired: once the save is over, the file is read.
    mutating func settleCheckDue(now: ContinuousClock.Instant) -> [CoreAction] {
        switch file.settle.check(at: now) {
        case .none:
            return []
        case .checkAt(let due):
            return [.checkSettled(after: now.duration(to: due))]
        case .read:
            var actions: [CoreAction] = []
            if let burst = file.settle.settledBurst {
                actions.append(.journal(.fileSettled(events: burst.events, span: burst.span)))
            }
            return actions + requestRead()
        }
    }

    /// Reading the file failed: edits held for a save go on without it.
    mutating func fileReadFailed(at time: Timestamp) -> [CoreAction] {
        file.readInFlight = false
        return releaseHeldForSave(at: time)
    }

    /// Puts the edits held for a save into their queues, in the order they came.
    private mutating func releaseHeldForSave(at time: Timestamp) -> [CoreAction] {
        file.saveUnderway = false
        let held = heldForSave
        heldForSave = []
        return held.flatMap { propose($0.id, $0.request, at: time) }
    }

    /// Reads the file now, or once nothing stands in the way: a read or write of listd's under
    /// way, a save not settled yet, a shared store that is away.
    mutating func requestRead() -> [CoreAction] {
        if file.readInFlight || file.writeInFlight || file.heldForStore || !file.settle.isSettled {
            file.readWanted = true
            return []
        }
        file.readInFlight = true
        file.readWanted = false
        return [.readFile(readRequest)]
    }

    /// The file as read after a `readFile`.
    mutating func fileRead(_ content: FileContent, now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        file.readInFlight = false
        var actions: [CoreAction] = []
        take(content, now: now, at: time, into: &actions)
        if file.readWanted, !file.readInFlight { actions += requestRead() }
        // The save is in its queues (or was nothing new): the edits that waited for it follow.
        if file.saveUnderway, !file.readInFlight { actions += releaseHeldForSave(at: time) }
        scheduleWrite(now: now, into: &actions)
        return actions
    }

    private mutating func take(
        _ content: FileContent,
        now: ContinuousClock.Instant,
        at time: Timestamp,
        into actions: inout [CoreAction]
    ) {
        switch content {
        case .bytes(let bytes, _, let known, _) where known != file.shown && bytes != file.bytes:
            // Tied to lists the file no longer shows (a save was taken in meanwhile): again.
            actions += requestRead()
        case .bytes(let bytes, _, _, _) where bytes == file.bytes && save == nil:
            // listd's own write, or nothing new: or the file put back as listd last wrote it
            // after a save that was not UTF-8, which ends the refusal of edits at once.
            file.emptySince = nil
            endInvalidity(into: &actions)
        case .bytes(let bytes, _, _, _) where save?.bytes == bytes:
            if save!.awaitingVerification { takeIn(at: time, into: &actions) }
        case .missing,
            .bytes(_, _, _, _) where content.isBlank:
            // A missing file; or one with nothing but white space (an emptied buffer saved with
            // its one newline), an emptied file too: no one deletes every list by saving a blank
            // line.
            let emptied: Bool
            if case .missing = content { emptied = false } else { emptied = true }
            let since = file.emptySince ?? now
            file.emptySince = since
            if !emptied || now - since >= limits.emptyFileGrace || file.bytes == nil {
                // Deleted (or left empty): the lists are not deleted with it; write them back.
                if file.bytes != nil { actions.append(.journal(.fileEmptied(path: filePath, deleted: !emptied))) }
                withdrawSave(at: time, into: &actions)
                // Written back onto the text last read, notes and all.
                if case .bytes(let bytes, _, _, _) = content { file.bytes = bytes } else { file.bytes = nil }
                file.dirty = true
                file.dirtySince = nil
                file.emptySince = nil
            } else {
                // Probably a truncate whose write is still to come: look again later.
                actions.append(.recheckFile(after: limits.emptyFileGrace))
            }
        case .bytes(let bytes, nil, _, _):
            // Not UTF-8: keep the last good state, never overwrite, deny edits until fixed.
            let offset = firstInvalidUTF8Offset(bytes)
            let lineStart = bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            let lineEnd = bytes[offset...].firstIndex(of: 0x0A) ?? bytes.count
            let line = bytes[..<lineStart].count { $0 == 0x0A } + 1
            file.invalidOffset = offset
            file.invalidLine = line
            withdrawSave(at: time, into: &actions)
            if file.reportedInvalid != bytes {
                file.reportedInvalid = bytes
                // The line's own message does not repeat its number: clients print it after it.
                let why =
                    "not UTF-8 text (its byte \(offset - lineStart + 1) cannot be read); listd keeps the lists as they were and will not write the file until it is fixed."
                let rejection = FileRejectionParams(
                    reason: "fileInvalid",
                    message: "The list file \(filePath): Line \(line) is \(why)",
                    lines: [
                        .init(
                            line: line,
                            text: String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self),
                            reason: "fileInvalid",
                            message: "It is \(why)"
                        )
                    ],
                    byteOffset: offset
                )
                actions.append(.announceRejection(rejection))
                actions.append(.journal(.fileRejected(rejection)))
                statusChanged()
            }
        case .bytes(let bytes, let reading?, _, let edits):
            file.emptySince = nil
            endInvalidity(into: &actions)
            withdrawSave(at: time, into: &actions)
            startSave(bytes, reading, edits: edits, at: time, into: &actions)
        }
    }

    /// The file reads as UTF-8 again: edits are no longer denied `fileInvalid`.
    private mutating func endInvalidity(into actions: inout [CoreAction]) {
        file.reportedInvalid = nil
        guard file.invalidOffset != nil else { return }
        file.invalidOffset = nil
        statusChanged()
    }

    // MARK: Writing the file

    /// Asks for a rewrite once the file has lagged `fileWriteDelay`, or a timer for it.
    mutating func scheduleWrite(now: ContinuousClock.Instant, force: Bool = false, into actions: inout [CoreAction]) {
        // Nor while a save's changes are on their way to the store: the durable lists lack them
        // yet, and the file would lose the person's lines until they are (a shared store's
        // append completes after the pass; `appended` schedules the write).
        guard file.dirty, save == nil, file.invalidOffset == nil, !file.writeInFlight, !file.readInFlight,
            !file.heldForStore, inFlight?.fileBefore == nil, open.fileBefore == nil
        else {
            return
        }
        let since = file.dirtySince ?? now
        file.dirtySince = since
        let quietFrom = max(file.changedAt ?? since, since)
        let due = max(min(quietFrom + limits.fileWriteDelay, since + limits.longestFileLag), file.refusedUntil ?? since)
        if force || now >= due {
            file.writeInFlight = true
            file.writeScheduled = false
            actions.append(.renderFile(book: durable, reading: file.reading, rejected: file.rejected, notes: file.notes))
        } else if !file.writeScheduled {
            // One timer at a time: when it fires, `writeDue` looks again (a change since moves
            // the time on, up to the longest lag).
            file.writeScheduled = true
            actions.append(.scheduleWrite(after: now.duration(to: due)))
        }
    }

    /// The timer of a `scheduleWrite` fired (or listd is about to stop: `force`).
    mutating func writeDue(now: ContinuousClock.Instant, force: Bool = false) -> [CoreAction] {
        file.writeScheduled = false
        var actions: [CoreAction] = []
        scheduleWrite(now: now, force: force, into: &actions)
        return actions
    }

    /// The file shell rendered the lists: the list file is replaced, and the change log notes
    /// what that file shows (`LogEntry.fileShows`), so that a start that finds it never takes
    /// listd's write for a person's.
    ///
    /// When the file shows the durable lists and no append is under way (a quiet edit's rewrite),
    /// the file is replaced at once and the note rides the next append (`noteDue`): one
    /// `fdatasync` per quiet edit, not two. A start that finds this file before any append noted
    /// it recognises it by content: it shows exactly the lists of the revision it names
    /// (`ListFileText.listsShownExactly`). Otherwise (changes appended while the file was rendered)
    /// the note is made durable before the file is replaced.
    mutating func fileRendered(_ rendered: RenderedFile, now: ContinuousClock.Instant) -> [CoreAction] {
        if rendered.bytes == file.bytes {
            return fileReplaced(rendered, .written, now: now)
        }
        let note = LogEntry.fileShows(digest: digest(rendered.bytes), revision: rendered.book.revision)
        if inFlight == nil, rendered.book == durable {
            file.noteDue = note
            return [.replaceFile(rendered, expecting: file.bytes)]
        }
        open.entries.append(note)
        open.after.append(.replaceFile(rendered, expecting: file.bytes))
        return []
    }

    /// The note of the file listd wrote last goes into the next append now (at start and stop:
    /// a restart then knows the file by its note, not only by its content).
    mutating func noteFileNow() -> [CoreAction] {
        if let note = file.noteDue {
            open.entries.append(note)
            file.noteDue = nil
        }
        return []
    }

    /// How the replacement of the list file ended.
    mutating func fileReplaced(
        _ rendered: RenderedFile,
        _ outcome: FileReplaceOutcome,
        now: ContinuousClock.Instant
    ) -> [CoreAction] {
        file.writeInFlight = false
        var actions: [CoreAction] = []
        let written = if case .written = outcome { true } else { false }
        if !written, case .fileShows(let noted, _)? = file.noteDue, noted == digest(rendered.bytes) {
            // Not on disk: the note of a file never written would tell the next start that a
            // person's save in its place (the one that raced it) was an edit made while stopped.
            file.noteDue = nil
        }
        switch outcome {
        case .written:
            if file.writeFailure != nil {
                file.writeFailure = nil
                actions.append(.journal(.fileWrittenAgain(path: filePath)))
                statusChanged()
            }
            file.writeFailures = 0
            file.writesRefused = 0
            file.refusedUntil = nil
            file.bytes = rendered.bytes
            file.reading = rendered.reading
            file.rejected = [:]
            file.notes = [:]
            file.shown = rendered.book
            remember(FileVersion(revision: rendered.reading.shownRevision, book: rendered.book, text: rendered.bytes, isSave: false))
            // Behind the durable lists, or behind a change applied and not yet durable (its
            // append under way: once durable it asks for a write only if the file is dirty).
            file.dirty = rendered.book != durable || rendered.book != working
            file.dirtySince = nil
        case .changedWhileWriting:
            file.readWanted = true  // the watcher brings that save in; still dirty
            // The next try waits (100 ms, doubling up to 1 s): a save that landed is read first,
            // and saves that keep landing are not raced in a loop.
            file.writesRefused += 1
            let doublings = min(file.writesRefused - 1, 10)
            file.refusedUntil = now + min(limits.firstWriteRetry * (1 << doublings), limits.longestWriteRetry)
        case .failed(let error):
            // The lists are safe in the change log; the write is tried again soon (and at the
            // next change), told once (each try's error names its own temp file).
            if file.writeFailure == nil {
                actions.append(.journal(.fileWriteFailed(error)))
                statusChanged()
            }
            file.writeFailure = error
            file.writeFailures += 1
            file.dirtySince = now
            if file.readWanted { actions += requestRead() }
            if !file.writeScheduled {
                let doublings = min(file.writeFailures - 1, 10)
                file.writeScheduled = true
                actions.append(.scheduleWrite(after: min(limits.firstWriteRetry * (1 << doublings), limits.longestWriteRetry)))
            }
            return actions
        }
        if file.readWanted { actions += requestRead() }
        scheduleWrite(now: now, into: &actions)
        return actions
    }
}
