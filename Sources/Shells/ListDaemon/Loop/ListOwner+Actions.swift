// What the owner does for each action the core returns (`ListOwner.perform`), and the store's
// snapshot and compaction: the shells' side of the pass.
import Foundation
import ListCore
import ListFileFormat
import ListModel
import ListRPC
import NIOCore
import NIOPosix

extension ListOwner {
    /// Performs one action; returns the event it brings back at once, if any.
    func perform(_ action: CoreAction) -> CoreEvent? {
        switch action {
        case .putQuestion(let put):
            let sent = delegates.send(put) { self.handle(.delegateReplied(question: put.id, .timedOut)) }
            if !sent { return .delegateReplied(question: put.id, .unanswered) }
        case .endQuestion(let id):
            delegates.end(id)
        case .dropDelegate(let seat):
            tellingMissedDelegates { delegates.drop(seat) }
        case .append(let entries):
            precondition(appendDue == nil, "the core sends one batch at a time")
            appendDue = entries
        case .publish(let changes, let records, let before):
            hub.publish(changes, records: records, from: before)
        case .reply(let id, let outcome):
            replies.removeValue(forKey: id)?(outcome)
        case .announceDenial(let denial):
            hub.announce(.didDenyChange, denial, listID: denial.proposal.list?.id)
        case .announceRejection(let rejection):
            hub.announce(.didRejectFileEdit, rejection, listID: nil)
        case .journal(let entry):
            journalDue.append(entry)
        case .readFile(let request):
            fileSync.read(request, on: loop).whenComplete { result in
                switch result {
                case .success(let content):
                    if case .bytes(let bytes, _, let known, let edits) = content {
                        self.logger.debug(
                            "list file read",
                            metadata: ["bytes": "\(bytes.count)", "known": "\(known.revision)", "edits": "\(edits?.edits.count ?? 0)"]
                        )
                    }
                    self.handle(.fileRead(content))
                case .failure(let error): self.handle(self.readFailed(error))
                }
            }
        case .renderFile(let book, let reading, let rejected, let notes):
            let tag = core.noteTag
            NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
                ListFileText.render(book, onto: reading, rejected: rejected, notes: notes, tag: tag)
            }.whenSuccess { rendered in
                self.handle(.fileRendered(rendered))
            }
        case .replaceFile(let rendered, let expecting):
            let fileSync = fileSync
            NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
                fileSync.replace(rendered, expecting: expecting)
            }.whenComplete { result in
                let outcome =
                    (try? result.get())
                    ?? .failed(.cannotWriteListFile(path: fileSync.path, step: "run on the thread pool", errno: ECANCELED))
                self.logger.debug("list file replaced", metadata: ["revision": "\(rendered.book.revision)", "outcome": "\(outcome)"])
                self.handle(.fileReplaced(rendered, outcome))
            }
        case .scheduleWrite(let delay):
            loop.scheduleTask(in: TimeAmount(delay)) { self.handle(.writeDue) }
        case .recheckFile(let delay):
            loop.scheduleTask(in: TimeAmount(delay)) { self.handle(.fileRecheckDue) }
        case .checkSettled(let delay):
            loop.scheduleTask(in: TimeAmount(delay)) { self.handle(.settleCheckDue) }
        case .handJournalOver(let delay):
            // After the replies (each outbox hands its bytes to its socket in a task queued
            // during the pass); the lines are formatted and written on the journal's thread.
            loop.scheduleTask(in: TimeAmount(delay)) {
                self.handJournalOver()
                self.handle(.journalHandedOver)
            }
        case .publishStatus:
            // Made when it is told, at most once a second, not in every pass that changes it: its
            // text cost a tenth of a lone edit's instructions.
            statusTextStale = true
        case .tellStatus:
            if statusTextStale { publishSummary() }
            if statusObserver.isSet { statusObserver(published.current.summary) }
        case .scheduleStatus(let delay):
            loop.scheduleTask(in: TimeAmount(delay)) { self.handle(.statusTimerFired) }
        case .boundDoubt(let revision, let delay):
            loop.scheduleTask(in: TimeAmount(delay)) { self.handle(.inDoubtBoundPassed(revision)) }
        case .fetchRemote(let revision):
            fetchRemote(after: revision)
        case .compact:
            compact()
        }
        return nil
    }

    func readFailed(_ error: any Error) -> CoreEvent {
        logger.error("could not read the list file; it is read again at its next save", metadata: ["error": "\(error)"])
        return .fileReadFailed
    }

    // MARK: Snapshots and compaction

    /// What a snapshot of the store holds now.
    var persistedView: PersistedView {
        PersistedView(
            book: core.durable,
            fileDigest: digest(core.file.bytes ?? []),
            shown: core.file.shown,
            instance: published.instance,
            history: core.history
        )
    }

    /// Compacts the change log on the thread pool (the core asked: due, and the list file may be
    /// named); appends wait meanwhile, reads and edits go on.
    func compact() {
        let (view, persistence) = (persistedView, persistence)
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
            try persistence.compact(view)
        }.whenComplete { result in
            if case .failure(let error) = result {
                self.logger.error(
                    "could not compact the change log; it is tried again after the next change",
                    metadata: ["error": "\(error)"]
                )
            }
            self.handle(.compacted)
        }
    }
}
