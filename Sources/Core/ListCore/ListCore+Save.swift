// A person's save of the list file, decided edit by edit through the one vetting path, then taken in.
import ListFileFormat
import ListModel

/// A person's save through the one vetting path: each edit waits in its list's queue, is asked
/// about on the list as it will be, and the save is taken in once all are decided.
extension ListCore {
    /// Starts deciding a save: each of its edits joins its list's queue.
    /// `edits`: the save's edits from the version its editor read, as the file shell computed
    /// them. A reading that came without them (read with `withEdits: false`) is read again as
    /// the shell reads a save, by the same function (`ListFileText.content`): one definition of a
    /// save's edits.
    mutating func startSave(
        _ bytes: [UInt8],
        _ reading: ListFileReading,
        edits computed: SaveEdits? = nil,
        restarted: Bool = false,
        at time: Timestamp,
        into actions: inout [CoreAction]
    ) {
        var reading = reading
        let saveEdits: SaveEdits
        if let computed {
            saveEdits = computed
        } else if case .bytes(_, let read?, _, let edits?) = ListFileText.content(bytes, readRequest) {
            (reading, saveEdits) = (read, edits)
        } else {
            return
        }
        // A copy not tied to a version listd wrote is read against the lists as they are: what it
        // adds and ticks is taken (what was taken off within the history is not brought back,
        // `SaveMerge.broughtBack`), and every removal, untick, rename or deletion it implies is
        // said, never done.
        let edits = saveEdits.base.takesEveryEdit ? saveEdits.edits : SaveMerge.additionsOnly(reading.edits(from: working), of: reading, now: working)
        var new = Save(id: nextSaveID, bytes: bytes, reading: reading, base: saveEdits.base, edits: edits, parts: [:])
        new.restarted = restarted
        nextSaveID += 1
        // The lists the save creates, by name: an edit of one (a tick, a `##` line under the new
        // heading) waits behind its create in the same queue, and is decided on the list it makes.
        var creating: Set<String> = []
        for (index, fileEdit) in edits.enumerated() {
            if case .createList(let name, _, _) = fileEdit.edit { creating.insert(ListText.key(name)) }
            if !saveEdits.base.takesEveryEdit, !SaveMerge.isAdditive(fileEdit.edit) {
                new.decisions[index] = .unchanged  // said when taken in, never done: no one is asked
                continue
            }
            let key: GateKey
            if let existing = fileEdit.edit.gateKey(in: working) {
                key = existing
            } else if case .name(let name)? = fileEdit.edit.target, creating.contains(ListText.key(name)) {
                key = .name(ListText.key(name))
            } else {
                new.decisions[index] = .broke  // its list is gone; reported when taken in
                continue
            }
            new.parts[key, default: []].append(index)
            new.partOf[index] = key
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
    /// Each allowed edit is applied in place to the part's lists, with no other copy of them
    /// alive (the save is taken out of `self` meanwhile): a copy would make every line copy the
    /// list's items.
    mutating func advanceSave(_ key: GateKey, at time: Timestamp, into actions: inout [CoreAction]) {
        guard var current = save, let part = current.parts[key] else { return }
        save = nil
        var book = current.partBooks.removeValue(forKey: key) ?? working
        var position = current.decidedPrefix[key] ?? 0
        defer {
            current.decidedPrefix[key] = position
            current.partBooks[key] = book
            save = current
        }
        while position < part.count, current.decisions[part[position]] != nil { position += 1 }
        for index in part[position...] where current.decisions[index] == nil {
            if asking.contains(.saveEdit(save: current.id, index: index)) { return }
            let edit = current.edits[index].edit
            if let question = DelegateQuestion(edit),
                panel.wants(question, list: edit.target.flatMap { try? book.list($0).id }, name: edit.proposedName)
            {
                // Asked about on the lists as they are before it; applied once allowed (`record`).
                var trial = book
                switch Result(catching: { () throws(ListError) in try trial.apply(edit, at: time, origin: fileOrigin) }) {
                case .failure:
                    current.decisions[index] = .broke
                    continue
                case .success(nil):
                    current.decisions[index] = .unchanged
                    continue
                case .success(.some):
                    break
                }
                let list = edit.target.flatMap { try? book.list($0) }
                let params = DelegateQuestionParams(edit, list: list, origin: fileOrigin, revision: book.revision)
                asking.insert(.saveEdit(save: current.id, index: index))
                actions += ask(.saveEdit(save: current.id, index: index), question, params, list: list?.id, name: params.name)
                return
            }
            // No delegate asked: the rules decide, in place.
            switch Result(catching: { () throws(ListError) in try book.applyRecorded(edit, at: time, origin: fileOrigin) }) {
            case .failure: current.decisions[index] = .broke
            case .success(nil): current.decisions[index] = .unchanged
            case .success(.some): current.decisions[index] = .allowed
            }
        }
    }

    /// A delegates' verdict on one edit of the save.
    mutating func record(
        _ verdict: DelegateVerdict,
        forSaveEdit index: Int,
        at time: Timestamp,
        into actions: inout [CoreAction]
    ) {
        guard var current = save else { return }
        let edit = current.edits[index].edit
        if verdict.consulted { current.waited = true }
        guard let key = current.partOf[index] else { return }
        if verdict.denied, let question = DelegateQuestion(edit) {
            let message = DelegateDenial.sentence(verdict.denials, timedOut: verdict.timedOut)
            current.decisions[index] = .refused(message)
            let book = current.partBooks[key] ?? working
            let list = edit.target.flatMap { try? book.list($0) }
            let params = DelegateQuestionParams(edit, list: list, origin: fileOrigin, revision: book.revision)
            actions.append(
                .announceDenial(
                    DeniedChangeParams(
                        question: question,
                        proposal: params,
                        denials: verdict.denials,
                        timedOut: verdict.timedOut
                    )
                )
            )
        } else {
            current.decisions[index] = .allowed
            // In place, with no other copy alive (see `advanceSave`).
            var book = current.partBooks.removeValue(forKey: key) ?? working
            save = nil
            _ = try? book.applyRecorded(edit, at: time, origin: fileOrigin)
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
}
