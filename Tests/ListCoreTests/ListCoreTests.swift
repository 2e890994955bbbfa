import ListFileFormat
import ListModel
import ListRPC
import Testing

@testable import ListCore

/// The core on its own: events in, actions out; no sockets, files or clocks.
@Suite struct ListCoreTests {
    static let client = ChangeOrigin.client(pid: 1, uid: 1, name: "test")
    static let time = Timestamp(millisecondsSinceEpoch: 1_000)
    static let now = ContinuousClock.now

    /// A core with Groceries (milk) committed and its list file known.
    static func core(limits: CoreLimits = .standard) -> ListCore {
        var book = ListBook()
        _ = try? book.apply(.createList(name: "Groceries", items: ["milk"]), at: time, origin: client)
        var core = ListCore(recovered: recovered(book), filePath: "/lists.md", limits: limits)
        // A delegate that wants every question, so each edit is asked about (`.putQuestion`).
        core.feed(
            .delegateSeated(DelegatePanel.Seat(
                connection: 1,
                name: "vetter",
                pid: 1,
                interest: DelegateInterest(questions: Set(DelegateQuestion.allCases), lists: nil, listNames: []),
                timeout: .seconds(2),
                onTimeout: .allow
            ))
        )
        let text = "# Groceries <!-- listd id=1 -->\n- milk\n"
        let content = ListFileText.content(Array(text.utf8), known: book)
        _ = core.feed(.started(content, recognized: book, byNote: true, firstStart: false), now: now, at: time)
        core.file.dirty = false
        return core
    }

    /// `book` as listd recovers it at a start: its file last showed `lastShown` (`book` itself
    /// when not said).
    static func recovered(_ book: ListBook, lastShown: ListBook? = nil, historyLimit: Int = 10) -> RecoveredLists {
        RecoveredLists(
            instance: "i",
            book: book,
            history: ChangeHistory(base: book, limit: historyLimit),
            shownByFile: nil,
            lastShown: lastShown ?? book,
            isFirstStart: false,
            problems: []
        )
    }

    /// The core reads `text` as the list file, as the file shell would give it.
    static func read(_ text: String, into core: inout ListCore) -> [CoreAction] {
        core.pass { $0.feed(.fileRead(ListFileText.content(Array(text.utf8), $0.readRequest)), now: now, at: time) }
    }

    /// The questions among `actions`, as "shouldAdd bread on [milk]".
    static func questions(_ actions: [CoreAction]) -> [String] {
        actions.compactMap { action in
            guard case .putQuestion(let put) = action else { return nil }
            return "\(put.question.rawValue) \(put.params.item ?? put.params.name ?? "") on \(put.params.list?.items ?? [])"
        }
    }

    static func askers(_ actions: [CoreAction]) -> [Asker] {
        actions.compactMap { if case .putQuestion(let put) = $0 { put.asker } else { nil } }
    }

    static func replies(_ actions: [CoreAction]) -> [Int: String] {
        var replies: [Int: String] = [:]
        for case .reply(let id, let outcome) in actions {
            switch outcome {
            case .success(let outcome): replies[id] = "ok \(outcome.list.items)"
            case .failure(let failure): replies[id] = "\(failure)"
            }
        }
        return replies
    }

    static func appends(_ actions: [CoreAction]) -> [[LogEntry]] {
        actions.compactMap { if case .append(let entries) = $0 { entries } else { nil } }
    }

    static let denied = DelegateVerdict(
        denials: [DelegateDenial(delegate: "d", reason: "no")],
        denied: true,
        consulted: true
    )
    static let allowed = DelegateVerdict(consulted: true)

    @Test func anEditIsConfirmedOnlyOnceItsAppendIsDone() {
        var core = Self.core()
        let proposed = core.propose(1, .addItem("bread", to: .name("Groceries")), origin: Self.client, at: Self.time)
        #expect(Self.questions(proposed) == ["shouldAdd bread on [\"milk\"]"])
        let allowed = core.pass { $0.answered(.proposal(1), .allowed, at: Self.time) }
        #expect(Self.appends(allowed).count == 1)
        #expect(Self.replies(allowed).isEmpty, "no confirm before the append is durable")
        #expect(core.durable.lists[0].items == ["milk"])
        let done = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        #expect(Self.replies(done) == [1: "ok [\"milk\", \"bread\"]"])
        #expect(core.durable.lists[0].items == ["milk", "bread"])
        guard case .publish(let changes, let records, _)? = done.first else {
            Issue.record("the change is published first: \(done)")
            return
        }
        #expect(changes.map(\.revision) == [2])
        #expect(records.map(\.operation) == [.add(id: 1, item: "bread", at: 1)])
    }

    /// A brief connection's edit (`summaryOnly`) is confirmed with the list's summary: the confirm
    /// that waits for the append holds no items (holding them would make the next edit of the list
    /// copy them); another connection's confirm holds the whole list.
    @Test func aSummaryOnlyConfirmHoldsTheListWithoutItsItems() {
        var core = Self.core()
        for (id, summaryOnly) in [(1, true), (2, false)] {
            let edit = ClientEdit(edit: .addItem("bread \(id)", to: .name("Groceries")), origin: Self.client, summaryOnly: summaryOnly)
            _ = core.feed(.proposed(id, edit), at: Self.time)
            _ = core.pass { $0.answered(.proposal(id), .allowed, at: Self.time) }
            let done = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
            guard case .reply(id, .success(let outcome))? = done.first(where: { if case .reply = $0 { true } else { false } }) else {
                Issue.record("edit \(id) is confirmed: \(done)")
                continue
            }
            #expect(outcome.list.name == "Groceries" && outcome.list.id == 1 && outcome.revision == outcome.list.revision)
            #expect(outcome.list.items.isEmpty == summaryOnly, "\(outcome.list.items)")
        }
        #expect(core.durable.lists[0].items == ["milk", "bread 1", "bread 2"])
    }

    @Test func aClientHeldToItemsIsDeniedEveryOtherEditUndoesIncludedBeforeAnyDelegateIsAsked() {
        var core = Self.core()
        var request = ClientEdit(edit: .deleteList(.id(1)), origin: Self.client, rights: .items)
        let deleted = core.propose(1, request, at: Self.time)
        #expect(Self.questions(deleted).isEmpty)
        #expect(Self.replies(deleted)[1]?.contains("may not") == true, "\(deleted)")
        // An undo's planned reversal is held to the same rights as any edit.
        request = ClientEdit(edit: .restoreList(ShoppingList(id: 9, name: "Back", edited: Self.time, revision: 1, items: [String]())), origin: Self.client, undoes: 3, rights: .items)
        #expect(Self.replies(core.propose(2, request, at: Self.time))[2]?.contains("may not") == true)
        request = ClientEdit(edit: .addSection("Dairy", on: .id(1), before: nil), origin: Self.client, rights: [.items, .lists])
        #expect(Self.replies(core.propose(3, request, at: Self.time))[3]?.contains("may not") == true)
        request = ClientEdit(edit: .addItem("bread", to: .id(1)), origin: Self.client, rights: .items)
        #expect(Self.questions(core.propose(4, request, at: Self.time)) == ["shouldAdd bread on [\"milk\"]"])
    }

    @Test func editsOfOneListQueueBehindTheOneBeingVettedAndAreAskedOnWhatItLeaves() {
        var core = Self.core()
        #expect(
            Self.questions(core.propose(1, .addItem("forbidden", to: .id(1)), origin: Self.client, at: Self.time)).count
                == 1
        )
        // Behind it: nothing asked yet; another list's create goes on.
        #expect(core.propose(2, .addItem("apples", to: .id(1)), origin: Self.client, at: Self.time).isEmpty)
        #expect(
            Self.questions(core.propose(3, .createList(name: "Tools", items: []), origin: Self.client, at: Self.time))
                == ["shouldCreate Tools on []"]
        )
        // The first is denied: the second is asked about on the list without it.
        let next = core.pass { $0.answered(.proposal(1), Self.denied, at: Self.time) }
        #expect(Self.questions(next) == ["shouldAdd apples on [\"milk\"]"])
        #expect(Self.replies(next)[1]?.hasPrefix("deniedByDelegate") == true)
        // Allowed: the next edit of that list would be asked on [milk, apples].
        _ = core.pass { $0.answered(.proposal(2), Self.allowed, at: Self.time) }
        #expect(
            Self.questions(core.propose(4, .addItem("pears", to: .id(1)), origin: Self.client, at: Self.time)) == [
                "shouldAdd pears on [\"milk\", \"apples\"]"
            ]
        )
    }

    @Test func aSavesEditsOfOneListAreAskedOneAtATimeOnTheListAsItWillBe() {
        // Issue 12, defect 1, in the core.
        var core = Self.core()
        _ = core.feed(.fileRecheckDue)
        let text = "# Groceries <!-- listd id=1 -->\n- milk\n- forbidden fruit\n- apples\n"
        let read = Self.read(text, into: &core)
        #expect(Self.questions(read) == ["shouldAdd forbidden fruit on [\"milk\"]"])
        let second = core.pass { $0.answered(Self.askers(read)[0], Self.denied, at: Self.time) }
        #expect(Self.questions(second) == ["shouldAdd apples on [\"milk\"]"])
        // Decided after time passed: the file is read again before the save is taken in.
        let third = core.pass { $0.answered(Self.askers(second)[0], Self.allowed, at: Self.time) }
        #expect(third.contains { if case .readFile = $0 { true } else { false } })
        let takenIn = Self.read(text, into: &core)
        #expect(Self.appends(takenIn).count == 1)
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        #expect(core.durable.lists[0].items == ["milk", "apples"])
        #expect(core.file.rejected.values.contains { $0.contains("forbidden") } || core.file.rejected.keys.contains(2))
    }

    @Test func aSaveTheFileAlreadyShowsIsNotRenderedAgainOneMissingAClientsEditIs() {
        // No delegate wants the question: the shell answers at once, unconsulted.
        let unasked = DelegateVerdict(consulted: false)
        func save(_ text: String, into core: inout ListCore) -> [CoreAction] {
            _ = core.feed(.fileRecheckDue)
            let read = Self.read(text, into: &core)
            var actions: [CoreAction] = []
            for asker in Self.askers(read) { actions += core.pass { $0.answered(asker, unasked, at: Self.time) } }
            return actions + core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        }
        func writes(_ actions: [CoreAction]) -> Bool {
            actions.contains {
                switch $0 {
                case .renderFile, .scheduleWrite: true
                default: false
                }
            }
        }

        var core = Self.core()
        let plain = save("# Groceries <!-- listd id=1 -->\n- milk\n- bread\n", into: &core)
        #expect(core.durable.lists[0].items == ["milk", "bread"])
        #expect(!core.file.dirty && !writes(plain), "the file shows the lists already")

        // A client's edit the file does not show yet, then a save made from the file without it.
        _ = core.propose(7, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time)
        _ = core.pass { $0.answered(.proposal(7), unasked, at: Self.time) }
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        let merged = save("# Groceries <!-- listd id=1 -->\n- milk\n- bread\n- apples\n", into: &core)
        #expect(core.durable.lists[0].items == ["milk", "bread", "apples", "eggs"], "\(merged)")
        // The client's edit scheduled a write already; the save leaves it due.
        #expect(core.file.dirty && (core.file.writeScheduled || writes(merged)), "the file lacks eggs: it is written")
    }

    /// A save the watcher saw before a client's edit came is taken in first: the edit waits,
    /// unanswered, until the save has settled and is read, then goes behind the save's edits.
    @Test func anEditWaitsForASaveSeenBeforeItAndGoesBehindItsEdits() {
        let unasked = DelegateVerdict(consulted: false)
        var core = Self.core()
        let seen = core.feed(.fileChanged([.written, .completed]), now: Self.now, at: Self.time)
        #expect(seen.contains { if case .checkSettled(.milliseconds(30)) = $0 { true } else { false } }, "\(seen)")
        let held = core.propose(7, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time)
        #expect(held.isEmpty, "nothing decided, nothing answered while the save is under way")
        #expect(core.feed(.fileChanged([.completed]), now: Self.now + .milliseconds(20), at: Self.time).isEmpty, "one check pending")
        let early = core.feed(.settleCheckDue, now: Self.now + .milliseconds(30))
        #expect(early.contains { if case .checkSettled(.milliseconds(20)) = $0 { true } else { false } }, "\(early)")
        #expect(!early.contains { if case .readFile = $0 { true } else { false } }, "not read mid-save")
        let settled = core.feed(.settleCheckDue, now: Self.now + .milliseconds(50))
        #expect(settled.contains { if case .readFile = $0 { true } else { false } }, "the save is read once settled")

        var pending = Self.read("# Groceries <!-- listd id=1 -->\n- milk\n- bread\n", into: &core)
        var answered: [String] = []
        while let asker = Self.askers(pending).first {
            answered += Self.questions(pending)
            pending = core.pass { $0.answered(asker, unasked, at: Self.time) }
        }
        // One append at a time: the save's, then the edit's (decided while the first was out).
        while !Self.appends(core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }).isEmpty {}
        #expect(core.durable.lists[0].items == ["milk", "bread", "eggs"], "the save's bread, then the edit's eggs")
        #expect(core.heldForSave.isEmpty && !core.file.saveUnderway)
    }

    /// A snapshot may name the list file only when the file is, durably, what the core says:
    /// not while listd's own write is under way (its note is logged before the rename, and a
    /// snapshot naming the file before it would drop that note), nor while a taken save's
    /// changes wait for their append (the snapshot would say the file shows lists no log has).
    @Test func theListFileIsSettledOnlyBetweenWritesAndOnceASaveIsDurable() throws {
        let unasked = DelegateVerdict(consulted: false)
        var core = Self.core()
        #expect(core.snapshotMayNameFile)

        _ = core.feed(.fileRecheckDue)
        let read = Self.read("# Groceries <!-- listd id=1 -->\n- milk\n- bread\n", into: &core)
        for asker in Self.askers(read) { _ = core.pass { $0.answered(asker, unasked, at: Self.time) } }
        #expect(core.file.shown.lists[0].items == ["milk", "bread"])
        #expect(!core.snapshotMayNameFile, "the save is taken, its change not durable")
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        #expect(core.snapshotMayNameFile)

        _ = core.propose(7, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time)
        _ = core.pass { $0.answered(.proposal(7), unasked, at: Self.time) }
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        #expect(core.snapshotMayNameFile, "a change the file does not show yet leaves it as it was")
        let due = core.feed(.fileWriteForced, now: Self.now)
        let render = try #require(
            due.compactMap { action -> (ListBook, ListFileReading?, [Int: String])? in
                if case .renderFile(let book, let reading, let rejected, _) = action {
                    (book, reading, rejected)
                } else {
                    nil
                }
            }.first
        )
        #expect(!core.snapshotMayNameFile, "a write is under way")
        let rendered = ListFileText.render(render.0, onto: render.1, rejected: render.2)
        // A quiet rewrite: the file is replaced at once, and its note waits for the next append
        // (one fdatasync per quiet edit).
        let replaced = core.pass { $0.feed(.fileRendered(rendered), now: Self.now) }
        #expect(Self.appends(replaced).isEmpty, "no append of its own")
        #expect(replaced.contains { if case .replaceFile = $0 { true } else { false } })
        #expect(!core.snapshotMayNameFile, "the rename still to come")
        _ = core.feed(.fileReplaced(rendered, .written), now: Self.now)
        #expect(core.snapshotMayNameFile)
        _ = core.propose(8, .addItem("tea", to: .id(1)), origin: Self.client, at: Self.time)
        let next = core.pass { $0.answered(.proposal(8), unasked, at: Self.time) }
        let entries = Self.appends(next).flatMap { $0 }
        #expect(entries.contains { if case .fileShows(_, rendered.book.revision) = $0 { true } else { false } }, "the note rides it")
        #expect(entries.contains { if case .change = $0 { true } else { false } })
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }

        // A rewrite of lists that moved on while it was rendered: the note is durable first.
        let due2 = core.feed(.fileWriteForced, now: Self.now)
        var stale: RenderedFile?
        for case .renderFile(let book, let reading, let rejected, _) in due2 {
            stale = ListFileText.render(book, onto: reading, rejected: rejected)
        }
        _ = core.propose(9, .addItem("jam", to: .id(1)), origin: Self.client, at: Self.time)
        _ = core.pass { $0.answered(.proposal(9), unasked, at: Self.time) }
        let noted = core.pass { $0.feed(.fileRendered(try! #require(stale)), now: Self.now) }
        #expect(!noted.contains { if case .replaceFile = $0 { true } else { false } }, "not before its note")
        #expect(!core.snapshotMayNameFile, "the note is logged, the rename still to come")
    }

    /// Issue 38: while edits keep coming the list file is rewritten at most every
    /// `longestFileLag` (it would compete with them), and 25 ms after they stop; never left
    /// behind the lists once they stop.
    @Test func rewritesAreCoalescedWhileEditsStreamAndFollowAtOnceWhenTheyStop() {
        var core = Self.core()
        var now = Self.now
        var renders: [Duration] = []
        var timer: ContinuousClock.Instant?
        func perform(_ actions: [CoreAction]) {
            for action in actions {
                switch action {
                case .renderFile(let book, let reading, let rejected, let notes):
                    renders.append(Self.now.duration(to: now))
                    let rendered = ListFileText.render(book, onto: reading, rejected: rejected, notes: notes)
                    perform(core.pass { $0.feed(.fileRendered(rendered), now: now) })
                case .replaceFile(let rendered, _):
                    perform(core.feed(.fileReplaced(rendered, .written), now: now))
                case .scheduleWrite(let delay):
                    timer = now + delay
                default:
                    break
                }
            }
        }
        func advance(to instant: ContinuousClock.Instant) {
            while let due = timer, due <= instant {
                timer = nil
                now = due
                perform(core.feed(.writeDue, now: now))
            }
            now = instant
        }
        // An edit every 10 ms for 600 ms.
        for edit in 0..<60 {
            advance(to: Self.now + .milliseconds(10 * edit))
            _ = core.propose(edit + 10, .addItem("item \(edit)", to: .id(1)), origin: Self.client, at: Self.time)
            let asked = core.pass { $0.answered(.proposal(edit + 10), .allowed, at: Self.time) }
            #expect(!Self.appends(asked).isEmpty)
            perform(core.pass { $0.feed(.appended(compactionDue: false), now: now) })
        }
        let streamed = renders.count
        #expect((2...3).contains(streamed), "about every 250 ms while the edits came: \(renders)")
        // They stop: the file follows 25 ms after the last one, and shows every edit.
        advance(to: now + .seconds(1))
        #expect(renders.count == streamed + 1, "\(renders)")
        #expect(renders.last == .milliseconds(590 + 25))
        #expect(core.file.shown == core.durable && !core.file.dirty)
    }

    /// Issue 26, item 5: a write of the list file that failed (its directory not writable) is
    /// tried again with a backoff, with no other edit needed, and STATUS says so meanwhile.
    @Test func aFailedWriteOfTheListFileIsRetriedUntilItIsMade() throws {
        var core = Self.core()
        _ = core.propose(7, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time)
        _ = core.pass { $0.answered(.proposal(7), .allowed, at: Self.time) }
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        func render(_ actions: [CoreAction]) -> RenderedFile? {
            for case .renderFile(let book, let reading, let rejected, _) in actions {
                return ListFileText.render(book, onto: reading, rejected: rejected)
            }
            return nil
        }
        func retry(_ actions: [CoreAction]) -> Duration? {
            for case .scheduleWrite(let delay) in actions { return delay }
            return nil
        }
        func statusChanged(_ actions: [CoreAction]) -> Bool {
            actions.contains { if case .publishStatus = $0 { true } else { false } }
        }
        var rendered = try #require(render(core.feed(.fileWriteForced, now: Self.now)))
        _ = core.pass { $0.feed(.fileRendered(rendered), now: Self.now) }
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        let denied = DaemonError.cannotWriteListFile(path: "/lists.md", step: "create a temp file", errno: 13)  // EACCES
        var now = Self.now
        var delays: [Duration] = []
        for attempt in 0..<5 {
            let failed = core.feed(.fileReplaced(rendered, .failed(denied)), now: now)
            #expect(statusChanged(failed) == (attempt == 0), "told once")
            let delay = try #require(retry(failed), "attempt \(attempt): the write is tried again, unasked")
            delays.append(delay)
            now += delay
            rendered = try #require(render(core.feed(.writeDue, now: now)), "attempt \(attempt): due after the backoff")
            _ = core.pass { $0.feed(.fileRendered(rendered), now: now) }
            _ = core.pass { $0.feed(.appended(compactionDue: false), now: now) }
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1)])
        #expect(core.file.writeFailure == denied)
        let written = core.feed(.fileReplaced(rendered, .written), now: now)
        #expect(statusChanged(written) && core.file.writeFailure == nil && !core.file.dirty)
    }

    /// Issue 59: a write of the file refused (`changedWhileWriting`: the file was not what listd
    /// last saw) is followed by a read (a save that landed is taken in first) and tried again
    /// after a backoff — not at once, in a loop of reads and refused writes for as long as
    /// whatever refuses it lasts.
    @Test func aRefusedWriteIsTriedAgainWithABackoff() throws {
        var core = Self.core()
        _ = core.propose(7, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time)
        _ = core.pass { $0.answered(.proposal(7), .allowed, at: Self.time) }
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        func render(_ actions: [CoreAction]) -> RenderedFile? {
            for case .renderFile(let book, let reading, let rejected, _) in actions {
                return ListFileText.render(book, onto: reading, rejected: rejected)
            }
            return nil
        }
        let onDisk = try #require(core.file.bytes)
        var rendered = try #require(render(core.feed(.fileWriteForced, now: Self.now)))
        _ = core.pass { $0.feed(.fileRendered(rendered), now: Self.now) }
        var now = Self.now
        var delays: [Duration] = []
        for attempt in 0..<5 {
            var actions = core.feed(.fileReplaced(rendered, .changedWhileWriting), now: now)
            for case .readFile(let request) in actions {
                actions += core.pass { $0.feed(.fileRead(ListFileText.content(onDisk, request)), now: now, at: Self.time) }
            }
            #expect(render(actions) == nil, "attempt \(attempt): not written again at once")
            var delay: Duration?
            for case .scheduleWrite(let after) in actions { delay = after }
            delays.append(try #require(delay, "attempt \(attempt): tried again, unasked"))
            now += delays.last!
            rendered = try #require(render(core.feed(.writeDue, now: now)), "attempt \(attempt): due after the backoff")
            _ = core.pass { $0.feed(.fileRendered(rendered), now: now) }
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1)])
        _ = core.feed(.fileReplaced(rendered, .written), now: now)
        #expect(!core.file.dirty && core.file.refusedUntil == nil)
    }

    /// Found by UnwritableDirectoryTests under load: listd's write of the file finished while a
    /// client's change was applied and its append under way; the file was taken as up to date
    /// (it showed the durable lists), and once the change was durable nothing wrote it: the file
    /// stayed stale until the next edit.
    @Test func aWriteThatEndsWhileAChangeIsBeingMadeDurableLeavesTheFileDirty() throws {
        var core = Self.core()
        _ = core.propose(1, .addItem("bread", to: .id(1)), origin: Self.client, at: Self.time)
        _ = core.pass { $0.answered(.proposal(1), .allowed, at: Self.time) }
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }
        var rendered: RenderedFile?
        for case .renderFile(let book, let reading, let rejected, _) in core.feed(.fileWriteForced, now: Self.now) {
            rendered = ListFileText.render(book, onto: reading, rejected: rejected)
        }
        let written = try #require(rendered)
        _ = core.pass { $0.feed(.fileRendered(written), now: Self.now) }
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }  // the note of what the file will show

        // A change is applied; its append is under way when the write ends.
        _ = core.propose(2, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time)
        #expect(Self.appends(core.pass { $0.answered(.proposal(2), .allowed, at: Self.time) }).count == 1)
        _ = core.feed(.fileReplaced(written, .written), now: Self.now)
        let durable = core.pass { $0.feed(.appended(compactionDue: false), now: Self.now + .milliseconds(30)) }
        let asksForAWrite = durable.contains {
            switch $0 {
            case .renderFile, .scheduleWrite: true
            default: false
            }
        }
        // (Or a write's timer is set already: it looks again when it fires.)
        #expect(core.file.dirty && (asksForAWrite || core.file.writeScheduled), "the file lacks eggs: it is written")
    }

    @Test func aSaveArrivingWhileDelegatesDeliberateReplacesTheUndecidedOne() {
        var core = Self.core()
        _ = core.feed(.fileRecheckDue)
        let first = "# Groceries <!-- listd id=1 -->\n- milk\n- bread\n"
        let asked = Self.read(first, into: &core)
        #expect(Self.questions(asked) == ["shouldAdd bread on [\"milk\"]"])
        // A client's edit of the same list waits behind the save.
        #expect(core.propose(7, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time).isEmpty)
        // The person saves again: the old question no longer counts.
        _ = core.feed(.fileRecheckDue)
        let second = "# Groceries <!-- listd id=1 -->\n- milk\n- cake\n"
        let again = Self.read(second, into: &core)
        // The client's edit had waited behind the old save: it goes first now.
        #expect(Self.questions(again) == ["shouldAdd eggs on [\"milk\"]"])
        #expect(
            core.pass { $0.answered(Self.askers(asked)[0], Self.allowed, at: Self.time) }.isEmpty,
            "an answer about a replaced save is ignored"
        )
        let cake = core.pass { $0.answered(.proposal(7), Self.allowed, at: Self.time) }
        #expect(Self.questions(cake) == ["shouldAdd cake on [\"milk\", \"eggs\"]"])
    }

    /// Issue 26, item 3: a save that is not UTF-8, undone back to exactly the bytes listd last
    /// wrote, ends the refusal of edits at once (it was taken for listd's own echo before).
    @Test func aFileRevertedToListdsOwnBytesAfterAnInvalidSaveEndsTheRefusal() {
        var core = Self.core()
        let good = "# Groceries <!-- listd id=1 -->\n- milk\n"
        _ = core.feed(.fileRecheckDue)
        let invalid = core.pass { $0.feed(.fileRead(ListFileText.content(Array(good.utf8) + [0xFF, 0x0A], known: $0.file.shown)), now: Self.now, at: Self.time) }
        #expect(invalid.contains { if case .publishStatus = $0 { true } else { false } })
        let refused = core.propose(1, .addItem("bread", to: .id(1)), origin: Self.client, at: Self.time)
        #expect(Self.replies(refused)[1]?.hasPrefix("fileInvalid") == true, "edits are refused while the file is bad")

        _ = core.feed(.fileRecheckDue)
        let reverted = Self.read(good, into: &core)
        #expect(reverted.contains { if case .publishStatus = $0 { true } else { false } }, "STATUS says it is over")
        let proposed = core.propose(2, .addItem("bread", to: .id(1)), origin: Self.client, at: Self.time)
        #expect(Self.questions(proposed) == ["shouldAdd bread on [\"milk\"]"], "the edit is vetted, not refused")
    }

    @Test func aFailedAppendConfirmsNothingAndTheListsGoBack() {
        var core = Self.core()
        _ = core.propose(1, .addItem("bread", to: .id(1)), origin: Self.client, at: Self.time)
        #expect(Self.appends(core.pass { $0.answered(.proposal(1), .allowed, at: Self.time) }).count == 1)
        // Applied while the append is under way: shares the next one.
        _ = core.propose(2, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time)
        #expect(Self.appends(core.pass { $0.answered(.proposal(2), .allowed, at: Self.time) }).isEmpty)
        let failed = core.feed(.appendFailed(.changeLogFailed(path: "/log", step: "fdatasync", errno: 5), inDoubt: nil))
        #expect(Self.replies(failed).count == 2)
        #expect(Self.replies(failed).values.allSatisfy { $0.hasPrefix("storageFailed") })
        #expect(core.working == core.durable)
        #expect(core.working.lists[0].items == ["milk"])
        // And the next edit goes through as usual.
        _ = core.propose(3, .addItem("eggs", to: .id(1)), origin: Self.client, at: Self.time)
        #expect(Self.appends(core.pass { $0.answered(.proposal(3), .allowed, at: Self.time) }).count == 1)
    }

    @Test func aDenialWaitsForTheChangeItWasDecidedOn() {
        var core = Self.core()
        _ = core.propose(1, .addItem("bread", to: .id(1)), origin: Self.client, at: Self.time)
        _ = core.pass { $0.answered(.proposal(1), .allowed, at: Self.time) }
        // "bread" is there only once the append is done: the duplicate's denial waits for it.
        let duplicate = core.propose(2, .addItem("BREAD", to: .id(1)), origin: Self.client, at: Self.time)
        #expect(Self.replies(duplicate).isEmpty)
        #expect(Self.replies(core.pass { $0.feed(.appended(compactionDue: false), now: Self.now) }).keys.sorted() == [1, 2])
    }

    @Test func anEditOfAMissingListIsDeniedAndJournalledWithoutAQuestion() {
        var core = Self.core()
        let actions = core.propose(1, .addItem("x", to: .name("Nope")), origin: Self.client, at: Self.time)
        #expect(Self.questions(actions).isEmpty)
        #expect(Self.replies(actions)[1] == "denied(There is no list called “Nope”.)")
        #expect(actions.contains { if case .journal(.denied(.listNotFound, _, _, nil)) = $0 { true } else { false } })
    }
}
