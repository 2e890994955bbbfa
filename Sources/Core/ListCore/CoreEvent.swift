// What happens to listd, as data: the shells deliver each event to `ListCore.handle`, the one
// door into the core, and carry out the actions it returns.
import ListModel

/// Something that happened: a client's edit, a delegate's answer, an append done, the list file
/// saved, a timer. Shells report facts only; what follows from them is the core's decision.
package enum CoreEvent: Sendable {
    // MARK: Start and stop

    /// The first look at the list file, before listd serves: `recognized` is the lists it shows
    /// when listd wrote it or took it in (`byNote`: a note in the log names it).
    case started(FileContent, recognized: ListBook?, byNote: Bool, firstStart: Bool)
    /// A first start's lists (in no log) are the base of the kept history.
    case historyBegan(from: ListBook)
    /// listd is stopping: edits from now on are refused; those accepted are finished.
    case stopping
    /// At start and stop: what is under way is durable; the file is written if it lags, and the
    /// note naming it goes into the next append (a restart knows the file by its note).
    case fileWriteForced
    case fileNoteForced

    // MARK: Clients and delegates

    /// A client's edit, `id` naming it in the reply (after what the watcher read with it: a save
    /// that came first goes first).
    case proposed(Int, ClientEdit)
    /// A delegate registers (again: its last registration is replaced).
    case delegateSeated(DelegatePanel.Seat)
    /// A delegate unregistered, or its connection ended.
    case delegateLeft(connection: Int)
    /// Question `question` ended as `reply` says: an answer, an error, its timer, or it could
    /// not be sent.
    case delegateReplied(question: String, DelegatePanel.Reply)

    // MARK: The pass and the store

    /// The owner's pass ends: what it decided may go to the log.
    case passEnded
    /// The append the core asked for is durable; `compactionDue`: the store says enough was
    /// appended that the log should be compacted.
    case appended(compactionDue: Bool)
    /// The append failed; `inDoubt`: its COMMIT went unanswered, it may have been made.
    case appendFailed(DaemonError, inDoubt: Revision?)
    /// The shared store refused the append: `remote` were committed first.
    case appendBehind([RemoteChange])
    /// Whether the append in doubt that began at this revision was made.
    case inDoubtResolved(Revision, made: Bool)
    /// The timer of `boundDoubt` fired: the edits still held for that append are answered.
    case inDoubtBoundPassed(Revision)
    /// The connections are ending (listd stops): every reply still held is given now.
    case repliesDue
    /// The shared store's server was reached again (true) or lost (false).
    case storeStatusChanged(connected: Bool)
    /// Another machine may have committed changes (a notification, or LISTEN in place).
    case remoteWoke
    /// The fetch the core asked for (`fetchRemote`) brought these changes (none, perhaps).
    case fetched([RemoteChange])
    /// The fetch failed: the store could not be asked.
    case fetchFailed(EditFailure)
    /// The compaction the core asked for ended (its failure is the shell's to log; it is tried
    /// again once the store says so after another append).
    case compacted

    // MARK: Telling

    /// The journal's lines were handed to its thread (`handJournalOver(after:)`).
    case journalHandedOver
    /// The timer of `scheduleStatus(after:)` fired.
    case statusTimerFired

    // MARK: The list file

    /// The watcher saw the list file change (no change: events of other files were read).
    case fileChanged([FileChange])
    /// Read the file again, whatever the watcher saw (the timer of `recheckFile`).
    case fileRecheckDue
    /// Read the file again from scratch, forgetting what listd knew of its bytes (SIGHUP).
    case reloadAsked
    /// The timer of `checkSettled` fired.
    case settleCheckDue
    case fileRead(FileContent)
    case fileReadFailed
    /// The timer of `scheduleWrite` fired.
    case writeDue
    case fileRendered(RenderedFile)
    case fileReplaced(RenderedFile, FileReplaceOutcome)
}

extension ListCore {
    /// Feeds `event` to the core and returns what its shells are to do, in order. `now` and
    /// `time` are the monotonic clock and the wall clock as the event is delivered.
    package mutating func handle(_ event: CoreEvent, now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        var actions = decide(event, now: now, at: time)
        // Questions no delegate turned out to want are decided here as allowed, after what the
        // event brought (their verdicts may ask more, which end the same way).
        while !unasked.isEmpty {
            actions += answered(unasked.removeFirst(), .allowed, at: time)
        }
        actions = answeringResends(actions)
        tell(after: &actions, now: now)
        return actions
    }

    private mutating func decide(_ event: CoreEvent, now: ContinuousClock.Instant, at time: Timestamp) -> [CoreAction] {
        switch event {
        case .started(let content, let recognized, let byNote, let firstStart):
            return start(content, recognized: recognized, byNote: byNote, firstStart: firstStart, now: now, at: time)
        case .historyBegan(let base):
            startHistory(from: base)
            return []
        case .stopping:
            accepting = false
            return []
        case .fileWriteForced:
            return writeDue(now: now, force: true)
        case .fileNoteForced:
            return noteFileNow()
        case .proposed(let id, let request):
            return propose(id, request, at: time)
        case .delegateSeated(let seat):
            delegateRegistered(seat)
            return []
        case .delegateLeft(let connection):
            return panel.involves(connection) ? delegateGone(connection, at: time) : []
        case .delegateReplied(let id, let reply):
            return panel.isOut(id) ? delegateReplied(id, reply, at: time) : []
        case .passEnded:
            return passEnded()
        case .appended(let compactionDue):
            store.compactionDue = store.compactionDue || compactionDue
            return appended(now: now)
        case .appendFailed(let error, let inDoubt):
            return appendFailed(error, inDoubt: inDoubt)
        case .appendBehind(let remote):
            return appendBehind(remote, now: now, at: time)
        case .inDoubtResolved(let revision, let made):
            // Made: what others committed after it may be waiting (its notification came while
            // the outcome was unknown).
            if made { store.remoteDue = true }
            return inDoubtResolved(revision, made: made)
        case .inDoubtBoundPassed(let revision):
            return inDoubtUnanswered([revision], why: "the shared lists' server did not answer within \(limits.inDoubtAnswerBound) of its deadline")
        case .repliesDue:
            return inDoubtUnanswered(Array(heldInDoubt.keys), why: "listd stopped before the shared lists' server answered")
                + confirmsAtStop()
        case .storeStatusChanged(let connected):
            return storeStatusChanged(connected: connected, now: now)
        case .remoteWoke:
            store.remoteDue = true
            return []
        case .fetched(let remote):
            return fetched(remote, now: now, at: time)
        case .fetchFailed(let failure):
            return fetchFailed(failure)
        case .compacted:
            store.compacting = false
            return []
        case .journalHandedOver:
            telling.journalArmed = false
            return []
        case .statusTimerFired:
            return statusTimerFired(now: now)
        case .fileChanged(let changes):
            return fileChanged(changes, now: now, at: time)
        case .fileRecheckDue:
            return fileTouched()
        case .reloadAsked:
            file.bytes = nil
            return fileTouched()
        case .settleCheckDue:
            return settleCheckDue(now: now)
        case .fileRead(let content):
            return fileRead(content, now: now, at: time)
        case .fileReadFailed:
            return fileReadFailed(at: time)
        case .writeDue:
            return writeDue(now: now)
        case .fileRendered(let rendered):
            return fileRendered(rendered, now: now)
        case .fileReplaced(let rendered, let outcome):
            return fileReplaced(rendered, outcome, now: now)
        }
    }

    /// `actions` with, after each reply, the same reply to every resend of its edit (by the
    /// client's id) that waited for it.
    private mutating func answeringResends(_ actions: [CoreAction]) -> [CoreAction] {
        guard !resends.isEmpty || !editsUnderWay.isEmpty else { return actions }
        var answered: [CoreAction] = []
        answered.reserveCapacity(actions.count)
        for action in actions {
            answered.append(action)
            guard case .reply(let id, let outcome) = action else { continue }
            for resend in replied(to: id) { answered.append(.reply(resend, outcome)) }
        }
        return answered
    }
}
