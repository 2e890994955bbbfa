import ListFileFormat
import ListModel
import ListRPC
import Testing

@testable import ListCore

/// The core with a shared store (`--share`): others' changes taken in, an append others got
/// ahead of decided again, a save kept while the server is gone, a COMMIT in doubt. Pure: events
/// in, actions out.
@Suite struct ListCoreSharedTests {
    typealias Core = ListCoreTests
    static let other = ChangeOrigin.client(pid: 9, uid: 9, name: "upstairs")

    /// The core of `ListCoreTests` with no delegate: every edit is decided by the rules.
    static func core() -> ListCore {
        var core = Core.core()
        core.panel = DelegatePanel()
        return core
    }

    /// `edits` made on another machine on top of `book`, as that machine committed them.
    static func remote(_ edits: [ListEdit], on book: ListBook) -> [RemoteChange] {
        var book = book
        return edits.compactMap { edit in
            (try? book.applyRecorded(edit, at: Core.time, origin: other))?.map {
                RemoteChange(record: $0.record, machine: "upstairs:/lists.md")
            }
        }
    }

    static func reads(_ actions: [CoreAction]) -> Bool {
        actions.contains { if case .readFile = $0 { true } else { false } }
    }

    /// Issue 35, case 13: an edit the rules deny is not answered before this listd has taken in
    /// what the database had committed when it came: an edit naming a list another machine just
    /// created is then applied; one the rules still deny is denied, once.
    @Test func aDenialWaitsUntilTheDatabaseHasBeenCaughtUpWith() throws {
        var core = Self.core()
        core.fetchesBeforeDenying = true
        func fetches(_ actions: [CoreAction]) -> Bool { actions.contains { if case .fetchRemote = $0 { true } else { false } } }
        let salt = core.propose(5, .addItem("salt", to: .name("Pantry")), origin: Core.client, at: Core.time)
        #expect(Core.replies(salt).isEmpty, "not answered: Pantry may be on its way here")
        let milk = core.propose(6, .addItem("milk", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(Core.replies(milk).isEmpty)
        #expect(fetches(core.feed(.passEnded)), "the pass's end fetches, once for both")
        #expect(!fetches(core.feed(.passEnded)), "one fetch at a time")
        let pantry = Self.remote([.createList(name: "Pantry", items: [])], on: core.durable)
        var actions = core.feed(.fetched(pantry), at: Core.time)
        #expect(!fetches(actions))
        actions += core.feed(.passEnded)
        actions += core.pass { $0.feed(.appended(compactionDue: false), now: Core.now) }
        let replies = Core.replies(actions)
        #expect(replies[5] == "ok [\"salt\"]", "\(replies)")
        #expect(replies[6]?.contains("already on Groceries") == true, "still a duplicate: denied: \(replies)")
        #expect(core.heldDenials.isEmpty && core.decidedAfterFetch.isEmpty)
        // An edit held after the fetch began waits for another one.
        _ = core.propose(7, .addItem("milk", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(fetches(core.feed(.passEnded)))
        _ = core.propose(8, .addItem("milk", to: .id(1)), origin: Core.client, at: Core.time)
        let later = core.feed(.fetched([]), at: Core.time)
        #expect(Core.replies(later).keys.sorted() == [7])
        #expect(fetches(core.feed(.passEnded)), "another fetch, for the edit held since")
        // The server gone: denied as edits are then.
        let failed = core.feed(.fetchFailed(.unavailable("the server is gone")))
        #expect(Core.replies(failed)[8]?.contains("unavailable") == true, "\(failed)")
    }

    @Test func changesCommittedElsewhereArePublishedAndShownButNotWhileAnAppendIsOut() throws {
        var core = Self.core()
        let tea = Self.remote([.addItem("tea", to: .id(1))], on: core.durable)
        let takenTea = core.remoteCommitted(tea, now: Core.now)
        let taken = try #require(takenTea)
        guard case .publish(let changes, let records, let before)? = taken.first else {
            Issue.record("published first: \(taken)")
            return
        }
        #expect(changes.map(\.revision) == [2])
        #expect(records == tea.map(\.record))
        #expect(before.lists[0].items == ["milk"], "made on the lists before them")
        #expect(core.durable.lists[0].items == ["milk", "tea"] && core.working == core.durable)
        #expect(core.file.dirty, "the list file is to show them")

        _ = core.propose(1, .addItem("bread", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(Core.appends(core.feed(.passEnded)).count == 1)
        let eggs = Self.remote([.addItem("eggs", to: .id(1))], on: core.durable)
        let whileOut = core.remoteCommitted(eggs, now: Core.now)
        #expect(whileOut == nil, "not while this listd's own append is out")
        // Nor changes that do not follow the durable lists (a fetch something overtook).
        _ = core.pass { $0.feed(.appended(compactionDue: false), now: Core.now) }
        let overtaken = core.remoteCommitted(eggs, now: Core.now)
        #expect(overtaken == nil)
    }

    @Test func anAppendOthersGotAheadOfIsDecidedAgainOnTheListsTheyLeave() {
        var core = Self.core()
        let before = core.durable
        // Sent: bread; decided while it was out: eggs (its own batch, not yet sent).
        _ = core.propose(1, .addItem("bread", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(Core.appends(core.feed(.passEnded)).count == 1)
        _ = core.propose(2, .addItem("eggs", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(Core.appends(core.feed(.passEnded)).isEmpty, "one append at a time")
        // Another machine committed bread and tea first.
        let remote = Self.remote([.addItem("bread", to: .id(1)), .addItem("tea", to: .id(1))], on: before)
        let actions = core.feed(.appendBehind(remote), now: Core.now, at: Core.time)
        guard case .publish(let changes, _, _)? = actions.first else {
            Issue.record("theirs published first: \(actions)")
            return
        }
        #expect(changes.map(\.revision) == [2, 3])
        #expect(Core.replies(actions) == [1: "denied(“bread” is already on Groceries.)"], "theirs came first")
        let sent = Core.appends(actions + core.feed(.passEnded))
        #expect(sent.count == 1, "eggs, decided again, goes in the next append")
        guard case .change(let record)? = sent.first?.first else {
            Issue.record("a change: \(sent)")
            return
        }
        #expect(record.revision == 4, "after theirs")
        #expect(record.operation == .add(id: 1, item: "eggs", at: 3))
        let appended = core.pass { $0.feed(.appended(compactionDue: false), now: Core.now) }
        #expect(Core.replies(appended) == [2: "ok [\"milk\", \"bread\", \"tea\", \"eggs\"]"])
    }

    /// A save taken in whose append fails is read again; meanwhile the person went on saving: the
    /// file's state goes back to before the save, but not what is under way now — the second
    /// save is still settling (a read now would catch the editor mid-write), and a write timer
    /// that fired meanwhile is not taken for pending (no write would ever be scheduled again).
    @Test func aFailedSavesFileStateGoesBackButNotWhatIsUnderWayNow() {
        var core = Self.core()
        let start = Core.now
        // A client's edit made durable: a write of the file is due in 25 ms, its timer set.
        _ = core.propose(1, .addItem("bread", to: .id(1)), origin: Core.client, at: Core.time)
        _ = core.feed(.passEnded)
        let done = core.feed(.appended(compactionDue: false), now: start)
        #expect(done.contains { if case .scheduleWrite = $0 { true } else { false } }, "\(done)")
        // A person's save, taken in before the timer fires; its append goes out.
        let saved = Core.read("# Groceries <!-- listd id=1 -->\n- milk\n- bread\n- tea\n", into: &core)
        #expect(Core.appends(saved).count == 1)
        // The timer fires (no write: the save's changes are on their way), and the person saves again.
        let fired = core.feed(.writeDue, now: start + .milliseconds(30))
        #expect(!fired.contains { if case .renderFile = $0 { true } else { false } })
        _ = core.feed(.fileChanged([.written]), now: start + .milliseconds(31), at: Core.time)
        // The append fails (the server is up again already): the save is to be read again...
        let failed = core.feed(.appendFailed(.shareUnavailable(server: "listd@db:5432/lists", detail: "deadline passed"), inDoubt: nil))
        #expect(!Self.reads(failed), "...not while the person is still saving")
        #expect(!core.file.settle.isSettled && core.file.readWanted)
        #expect(!core.file.writeScheduled, "the timer that fired is not pending")
        // Once the second save settles, it is read.
        let settled = core.feed(.settleCheckDue, now: start + .seconds(3))
        #expect(Self.reads(settled), "\(settled)")
    }

    @Test func aSaveWhoseAppendFindsTheServerGoneIsReadAgainOnlyOnceItIsBack() {
        var core = Self.core()
        let saved = Core.read("# Groceries <!-- listd id=1 -->\n- milk\n- bread\n", into: &core)
        #expect(Core.appends(saved).count == 1)
        _ = core.feed(.storeStatusChanged(connected: false), now: Core.now)
        let failed = core.feed(.appendFailed(.shareUnavailable(server: "listd@db:5432/lists", detail: "gone"), inDoubt: nil))
        #expect(!Self.reads(failed), "not read again while the server is gone (it would fail again, and again)")
        #expect(core.file.heldForStore)
        let touched = core.feed(.fileRecheckDue)
        #expect(!Self.reads(touched), "a further save waits too")
        let due = core.feed(.fileWriteForced, now: Core.now)
        #expect(!due.contains { if case .renderFile = $0 { true } else { false } }, "and the person's file is not written over")
        let back = core.feed(.storeStatusChanged(connected: true), now: Core.now)
        #expect(Self.reads(back), "read once the server is back")
        #expect(!core.file.heldForStore)
    }

    /// The append under way was on a connection that was lost and made again before the append
    /// failed (its deadline passed after the reconnection): the save is read again at once, not
    /// held for a reconnection that has already been (which held it, and the file, for good).
    @Test func aSaveWhoseAppendFailsAfterTheServerIsBackIsReadAgainAtOnce() {
        var core = Self.core()
        let saved = Core.read("# Groceries <!-- listd id=1 -->\n- milk\n- bread\n", into: &core)
        #expect(Core.appends(saved).count == 1)
        #expect(!Self.reads(core.feed(.storeStatusChanged(connected: false), now: Core.now)))
        #expect(!Self.reads(core.feed(.storeStatusChanged(connected: true), now: Core.now)), "nothing held yet")
        let failed = core.feed(.appendFailed(.shareUnavailable(server: "listd@db:5432/lists", detail: "deadline passed"), inDoubt: nil))
        #expect(Self.reads(failed), "read again now: the server is back")
        #expect(!core.file.heldForStore)
    }

    @Test func aCommitInDoubtIsConfirmedOnlyOnceFoundMadeAndTheListsHaveIt() throws {
        var core = Self.core()
        let before = core.durable
        _ = core.propose(1, .addItem("bread", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(Core.appends(core.feed(.passEnded)).count == 1)
        let failure = DaemonError.shareUnavailable(server: "listd@db:5432/lists", detail: "gone")
        let failed = core.feed(.appendFailed(failure, inDoubt: 2))
        #expect(Core.replies(failed).isEmpty, "neither confirmed nor refused while in doubt")
        let made = core.feed(.inDoubtResolved(2, made: true))
        #expect(made.isEmpty, "made, but not in the lists here yet")
        var mine = before
        let record = try #require(try mine.applyRecorded(.addItem("bread", to: .id(1)), at: Core.time, origin: Core.client))
        let takenMine = core.remoteCommitted([RemoteChange(record: record.record, machine: "here")], now: Core.now)
        let taken = try #require(takenMine)
        #expect(Core.replies(taken) == [1: "ok [\"milk\", \"bread\"]"])

        _ = core.propose(2, .addItem("eggs", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(Core.appends(core.feed(.passEnded)).count == 1)
        _ = core.feed(.appendFailed(failure, inDoubt: 3))
        let notMade = core.feed(.inDoubtResolved(3, made: false))
        #expect(Core.replies(notMade).count == 1 && Core.replies(notMade).values.allSatisfy { $0.hasPrefix("unavailable") })
        #expect(core.durable.lists[0].items == ["milk", "bread"])
    }

    /// A doubt is bounded: the held edit is answered when the bound's timer fires (its outcome
    /// not known), and a check that ends later answers nothing twice. At a stop, what is still
    /// held is answered at once.
    @Test func aCommitInDoubtIsAnsweredWhenItsBoundPassesOrListdStops() {
        var core = Self.core()
        let failure = DaemonError.shareUnavailable(server: "listd@db:5432/lists", detail: "gone")
        _ = core.propose(1, .addItem("bread", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(Core.appends(core.feed(.passEnded)).count == 1)
        let failed = core.feed(.appendFailed(failure, inDoubt: 2))
        // The journal says it may have been made, not that it was not applied.
        let journal = failed.compactMap { action -> String? in
            switch action {
            case .journal(.inDoubt(_, let edits)): "in doubt \(edits)"
            case .journal(.storageFailed(_, let edits)): "failed \(edits)"
            default: nil
            }
        }
        #expect(journal == ["failed 0", "in doubt 1"])
        let bounds = failed.compactMap { if case .boundDoubt(let revision, let after) = $0 { "\(revision) \(after)" } else { nil } }
        #expect(bounds == ["2 \(CoreLimits.standard.inDoubtAnswerBound)"])
        let passed = core.feed(.inDoubtBoundPassed(2))
        #expect(Core.replies(passed).count == 1 && Core.replies(passed)[1]?.hasPrefix("outcomeUnknown") == true)
        #expect(passed.contains { if case .journal(.outcomeUnknown(1, _)) = $0 { true } else { false } })
        #expect(Core.replies(core.feed(.inDoubtResolved(2, made: false))).isEmpty, "answered once")

        _ = core.propose(2, .addItem("eggs", to: .id(1)), origin: Core.client, at: Core.time)
        #expect(Core.appends(core.feed(.passEnded)).count == 1)
        _ = core.feed(.appendFailed(failure, inDoubt: 2))
        let stopping = core.feed(.repliesDue)
        #expect(Core.replies(stopping)[2]?.contains("listd stopped") == true, "\(Core.replies(stopping))")
        #expect(Core.replies(core.feed(.inDoubtBoundPassed(2))).isEmpty)
    }
}
