// A client's edit through the one vetting path: it waits in its list's queue, is checked against the
// rules on the lists as they will be, put to the delegates, then applied; and how it is answered.
import ListFileFormat
import ListModel

extension ListCore {
    /// A client proposes an edit, with what it said of it (`ClientEdit`: its id, the lists it was
    /// made on, its rights); `id` names it in the `reply`.
    mutating func propose(_ id: Int, _ request: ClientEdit, at time: Timestamp) -> [CoreAction] {
        var actions: [CoreAction] = []
        guard accepting else { return [.reply(id, .failure(.shuttingDown))] }
        let needed = request.edit.neededRight
        guard request.rights.contains(needed) else {
            let error = ListError.notPermitted(needed: needed, held: request.rights)
            let list = request.edit.target.flatMap { try? working.list($0) }
            return [.journal(.denied(error, edit: request.edit, origin: request.origin, list: list)), .reply(id, .failure(.denied(error)))]
        }
        if let editId = request.editId {
            // A resend: answered as the first was; the edit is not applied again.
            if let applied = request.appliedAt {
                let target = request.edit.target ?? .name(request.edit.proposedName ?? "")
                guard let list = try? working.list(target) else { return [.reply(id, .failure(.denied(.listNotFound(target))))] }
                return [.reply(id, .success(EditOutcome(list: request.shown(list), revision: applied, resent: true)))]
            }
            if let first = editsUnderWay[editId], first != id {
                resends[first, default: []].append(id)
                return []
            }
            editsUnderWay[editId] = id
        }
        if !file.settle.isSettled {
            // A person's save came first: the edit waits until the save is read, and goes
            // behind it.
            file.saveUnderway = true
        }
        if file.saveUnderway {
            heldForSave.append((id, request))
            return []
        }
        guard let key = request.edit.gateKey(in: working) else {
            // No such list: denied by the rules, behind nothing (unless the file is unreadable).
            decide(id, Proposal(request, key: .name("")), at: time, into: &actions)
            return actions
        }
        proposals[id] = Proposal(request, key: key)
        queues[key, default: []].append(.proposal(id))
        if queues[key]?.count == 1 { advance(key, at: time, into: &actions) }
        return actions
    }

    /// The delegates' verdict on a question.
    mutating func answered(_ asker: Asker, _ verdict: DelegateVerdict, at time: Timestamp) -> [CoreAction] {
        guard asking.remove(asker) != nil else { return [] }  // a superseded save's question
        var actions: [CoreAction] = []
        switch asker {
        case .proposal(let id):
            guard let proposal = proposals[id] else { return [] }
            // Only an edit that raises a question is asked about, so only such an edit is denied.
            if verdict.denied, let question = DelegateQuestion(proposal.edit) {
                announceRefusal(question, of: proposal.edit, verdict: verdict, origin: proposal.origin, into: &actions)
                answer(id, .failure(.deniedByDelegate(verdict.denials, timedOut: verdict.timedOut)), into: &actions)
            } else {
                apply(id, proposal, at: time, into: &actions)
            }
            finish(id, key: proposal.key, at: time, into: &actions)
        case .proposalPart(let id, let part):
            guard var proposal = proposals[id] else { return [] }
            proposal.unansweredParts -= 1
            if verdict.denied, let question = DelegateQuestion(proposal.parts[part]) {
                let item = proposal.partItems[part]
                proposal.refused.insert(ListText.key(item))
                proposal.kept.append(KeptItem(item: item, denials: verdict.denials, timedOut: verdict.timedOut))
                announceRefusal(question, of: proposal.parts[part], verdict: verdict, origin: proposal.origin, into: &actions)
            }
            proposals[id] = proposal
            guard proposal.unansweredParts == 0 else { return actions }
            proposal.edit = proposal.edit.leavingOut(proposal.refused)
            proposal.kept.sort { $0.item < $1.item }
            apply(id, proposal, at: time, into: &actions)
            finish(id, key: proposal.key, at: time, into: &actions)
        case .saveEdit(let saveID, let index):
            guard save?.id == saveID else { return [] }
            record(verdict, forSaveEdit: index, at: time, into: &actions)
        }
        return actions
    }

    /// `didDenyChange` subscribers and the journal hear that delegates refused `edit`.
    private func announceRefusal(
        _ question: DelegateQuestion,
        of edit: ListEdit,
        verdict: DelegateVerdict,
        origin: ChangeOrigin,
        into actions: inout [CoreAction]
    ) {
        let list = edit.target.flatMap { try? working.list($0) }
        let params = DelegateQuestionParams(edit, list: list, origin: origin, revision: working.revision)
        actions.append(
            .announceDenial(
                DeniedChangeParams(question: question, proposal: params, denials: verdict.denials, timedOut: verdict.timedOut)
            )
        )
        actions.append(.journal(.deniedByDelegates(question, verdict: verdict, origin: origin, list: list)))
    }

    /// Puts each item of an edit of several items to the delegates that want it; false when none
    /// does (the rules alone decide it) or the rules deny it or it changes nothing.
    private mutating func askAboutParts(_ id: Int, _ parts: [ListEdit], at time: Timestamp, into actions: inout [CoreAction]) -> Bool {
        guard var proposal = proposals[id] else { return false }
        let list = proposal.edit.target.flatMap { try? working.list($0) }
        let asked = parts.indices.compactMap { index -> (Int, DelegateQuestion)? in
            guard let question = DelegateQuestion(parts[index]),
                panel.wants(question, list: list?.id, name: nil)
            else { return nil }
            return (index, question)
        }
        guard !asked.isEmpty else { return false }
        var trial = working
        guard case .some(.some) = try? trial.apply(proposal.edit, ifRevision: proposal.ifRevision, at: time, origin: proposal.origin)
        else { return false }
        proposal.parts = parts
        proposal.partItems = parts.map { DelegateQuestionParams($0, list: nil, origin: proposal.origin, revision: 0).item ?? "" }
        proposal.unansweredParts = asked.count
        proposals[id] = proposal
        for (index, question) in asked {
            let params = DelegateQuestionParams(parts[index], list: list, origin: proposal.origin, revision: working.revision)
            asking.insert(.proposalPart(id, part: index))
            actions += ask(.proposalPart(id, part: index), question, params, list: list?.id, name: nil)
        }
        return true
    }

    /// Decides the first entry of `key`'s queue, and the ones after it that need no question.
    mutating func advance(_ key: GateKey, at time: Timestamp, into actions: inout [CoreAction]) {
        while let head = queues[key]?.first {
            switch head {
            case .proposal(let id):
                guard !asking.contains(.proposal(id)), var proposal = proposals[id], proposal.parts.isEmpty else { return }
                if let base = proposal.base {
                    // A clear made on older lists clears what was ticked then and still is; an
                    // add of what was added meanwhile gives it the amount or section it says.
                    var merge = SaveMerge(base, now: working)
                    proposal.edit = merge.narrowed(proposal.edit)
                    if case .doneBut(let rest)? = merge.alreadyDone(proposal.edit) { proposal.edit = rest }
                    proposals[id] = proposal
                }
                if Self.merged(proposal, on: working) != nil {
                    // Done already, or changed meanwhile: decided without asking anyone.
                    proposals[id] = nil
                    decide(id, proposal, at: time, into: &actions)
                    queues[key]?.removeFirst()
                    continue
                }
                if proposal.vetted {
                    proposals[id] = nil
                    apply(id, proposal, at: time, into: &actions)
                    queues[key]?.removeFirst()
                    continue
                }
                if file.invalidOffset == nil, let parts = proposal.edit.parts(on: working) {
                    if askAboutParts(id, parts, at: time, into: &actions) { return }
                    // No delegate wants any of its items, or the rules decide it.
                    proposals[id] = nil
                    apply(id, proposal, at: time, into: &actions)
                    queues[key]?.removeFirst()
                    continue
                }
                if file.invalidOffset == nil, let question = DelegateQuestion(proposal.edit) {
                    let list = proposal.edit.target.flatMap { try? working.list($0).id }
                    guard panel.wants(question, list: list, name: proposal.edit.proposedName) else {
                        // No delegate wants it: decided by the rules as it is applied.
                        proposals[id] = nil
                        apply(id, proposal, at: time, into: &actions)
                        queues[key]?.removeFirst()
                        continue
                    }
                    if let question = vet(
                        proposal.edit,
                        proposal.ifRevision,
                        origin: proposal.origin,
                        on: working,
                        at: time
                    ) {
                        asking.insert(.proposal(id))
                        actions += ask(.proposal(id), question.0, question.1, list: question.1.list?.id, name: question.1.name)
                        return
                    }
                }
                // Denied by a rule, or it changes nothing: decided without asking anyone.
                proposals[id] = nil
                decide(id, proposal, at: time, into: &actions)
                queues[key]?.removeFirst()
            case .save(let saveID):
                guard save?.id == saveID else {
                    queues[key]?.removeFirst()
                    continue
                }
                // The save holds this queue until it is taken in.
                advanceSave(key, at: time, into: &actions)
                completeSaveIfDecided(at: time, into: &actions)
                return
            }
        }
        queues[key] = nil
    }

    /// The question `edit` puts to delegates, or nil when the rules decide it (denied, or no
    /// change): checked on `book`, the lists as they will be when it is applied.
    func vet(
        _ edit: ListEdit,
        _ ifRevision: Revision?,
        origin: ChangeOrigin,
        on book: ListBook,
        at time: Timestamp
    )
        -> (DelegateQuestion, DelegateQuestionParams)?
    {
        guard file.invalidOffset == nil, let question = DelegateQuestion(edit) else { return nil }
        var trial = book
        guard case .some(.some) = try? trial.apply(edit, ifRevision: ifRevision, at: time, origin: origin) else {
            return nil
        }
        let list = edit.target.flatMap { try? book.list($0) }
        return (
            question, DelegateQuestionParams(edit, list: list, origin: origin, revision: book.revision)
        )
    }

    /// A proposal decided by the rules alone, on the lists as they will be.
    private mutating func decide(_ id: Int, _ proposal: Proposal, at time: Timestamp, into actions: inout [CoreAction]) {
        let (edit, ifRevision, origin) = (proposal.edit, proposal.ifRevision, proposal.origin)
        if let offset = file.invalidOffset {
            answer(id, .failure(.fileInvalid(path: filePath, line: file.invalidLine, byteOffset: offset)), into: &actions)
            return
        }
        var trial = working
        do throws(ListError) {
            switch Self.merged(proposal, on: working) {
            case .failure(let error)?: throw error
            // Done already (an add made on older lists of what was added meanwhile): confirmed
            // as it stands, without applying it again.
            case .success?: break
            case nil: _ = try trial.apply(edit, ifRevision: ifRevision, at: time, origin: origin)
            }
            decidedAfterFetch.remove(id)
            let list = try working.list(edit.target ?? .name(edit.proposedName ?? ""))
            answer(id, .success(EditOutcome(list: proposal.request.shown(list))), into: &actions)
        } catch {
            if fetchesBeforeDenying, decidedAfterFetch.remove(id) == nil {
                // Perhaps only because another machine's change has not reached this one yet.
                holdDenial((id, proposal.request), into: &actions)
                return
            }
            let list = edit.target.flatMap { try? working.list($0) }
            actions.append(.journal(.denied(error, edit: edit, origin: origin, list: list)))
            answer(id, .failure(.denied(error)), into: &actions)
        }
    }

    /// Applies an allowed proposal to `working` (rules checked again: another list may have
    /// taken its name meanwhile); it is confirmed once durable.
    private mutating func apply(_ id: Int, _ proposal: Proposal, at time: Timestamp, into actions: inout [CoreAction]) {
        let fetchedFirst = decidedAfterFetch.remove(id) != nil
        do throws(ListError) {
            switch Self.merged(proposal, on: working) {
            case .failure(let error)?: throw error
            case .success?:
                let list = try working.list(proposal.edit.target ?? .name(proposal.edit.proposedName ?? ""))
                answer(id, .success(EditOutcome(list: proposal.request.shown(list))), into: &actions)
                return
            case nil: break
            }
            guard
                var (change, record) = try working.applyRecorded(
                    proposal.edit,
                    ifRevision: proposal.ifRevision,
                    at: time,
                    origin: proposal.origin
                )
            else {
                let list = try working.list(proposal.edit.target ?? .name(proposal.edit.proposedName ?? ""))
                answer(id, .success(EditOutcome(list: proposal.request.shown(list), kept: proposal.kept)), into: &actions)
                return
            }
            change.undoes = proposal.undoes
            record.undoes = proposal.undoes
            record.editId = proposal.editId
            open.entries.append(.change(record))
            let brief = change.withoutItems
            open.changes.append(brief)
            let shown = proposal.request.summaryOnly ? brief.list : change.list
            open.replies.append((id, .success(EditOutcome(list: shown, kept: proposal.kept, revision: change.revision, steps: change.steps))))
            open.retries.append((id, proposal))
            file.markDirty()
        } catch {
            // A retry after another machine got ahead (`vetted`) was decided on caught-up lists.
            if fetchesBeforeDenying, !fetchedFirst, !proposal.vetted {
                holdDenial((id, proposal.request), into: &actions)
                return
            }
            let list = proposal.edit.target.flatMap { try? working.list($0) }
            actions.append(.journal(.denied(error, edit: proposal.edit, origin: proposal.origin, list: list)))
            answer(id, .failure(.denied(error)), into: &actions)
        }
    }

    /// Replies at once when nothing applied is waiting to be durable, else with the next batch
    /// (a reply never runs ahead of a change it was decided on).
    private mutating func answer(
        _ id: Int,
        _ outcome: Result<EditOutcome, EditFailure>,
        into actions: inout [CoreAction]
    ) {
        if inFlight == nil, open.entries.isEmpty {
            actions.append(.reply(id, outcome))
        } else {
            open.replies.append((id, outcome))
        }
    }

    private mutating func finish(_ id: Int, key: GateKey, at time: Timestamp, into actions: inout [CoreAction]) {
        proposals[id] = nil
        if queues[key]?.first == .proposal(id) { queues[key]?.removeFirst() }
        advance(key, at: time, into: &actions)
    }
}
