// When the store compacts and fetches, as the core decides: one thing at a time with the
// appends, a compaction before the next append, never while the list file may not be named.
import ListModel
import Testing

@testable import ListCore

@Suite struct StoreWorkTests {
    typealias Core = ListCoreTests

    static func has(_ actions: [CoreAction], _ kind: String) -> Bool {
        actions.contains { action in
            switch action {
            case .compact: kind == "compact"
            case .append: kind == "append"
            case .fetchRemote: kind == "fetch"
            default: false
            }
        }
    }

    /// An edit allowed and handed to the log; returns the pass's actions.
    static func edit(_ item: String, _ id: Int, _ core: inout ListCore) -> [CoreAction] {
        _ = core.propose(id, .addItem(item, to: .name("Groceries")), origin: Core.client, at: Core.time)
        return core.pass { $0.answered(.proposal(id), .allowed, at: Core.time) }
    }

    @Test func aCompactionTheStoreAsksForRunsBeforeTheNextAppendWhichWaitsForIt() {
        var core = Core.core()
        #expect(Self.has(Self.edit("bread", 1, &core), "append"))
        let done = core.feed(.appended(compactionDue: true), now: Core.now)
        #expect(!Self.has(done, "compact"), "not inside the append's own event")
        let passEnd = core.feed(.passEnded)
        #expect(Self.has(passEnd, "compact"), "the pass's end compacts: \(passEnd)")
        let waiting = Self.edit("eggs", 2, &core)
        #expect(!Self.has(waiting, "append"), "the append waits for the compaction")
        let due = core.commitDue
        #expect(!due, "and no pass is due for it meanwhile")
        #expect(!Self.has(core.feed(.passEnded), "compact"), "one compaction at a time")
        core.feed(.compacted)
        #expect(Self.has(core.feed(.passEnded), "append"), "then the batch goes")
    }

    @Test func noCompactionWhileTheListFileCannotBeNamedNorWithoutTheStoresWord() {
        var core = Core.core()
        _ = Self.edit("bread", 1, &core)
        core.feed(.appended(compactionDue: false), now: Core.now)
        #expect(!Self.has(core.feed(.passEnded), "compact"), "the store did not ask")
        _ = Self.edit("eggs", 2, &core)
        core.feed(.appended(compactionDue: true), now: Core.now)
        // listd's own write of the file under way: a snapshot naming the file before it would
        // drop the note that names the file after it.
        let write = core.feed(.fileWriteForced, now: Core.now)
        guard case .renderFile(let book, let reading, let rejected, let notes)? = write.first(where: { if case .renderFile = $0 { true } else { false } }) else {
            Issue.record("no write asked for: \(write)")
            return
        }
        let rendered = ListFileText.render(book, onto: reading, rejected: rejected, notes: notes)
        let replacing = core.feed(.fileRendered(rendered), now: Core.now)
        #expect(replacing.contains { if case .replaceFile = $0 { true } else { false } }, "\(replacing)")
        #expect(!Self.has(core.feed(.passEnded), "compact"), "not while the write is under way")
        core.feed(.fileReplaced(rendered, .written), now: Core.now)
        #expect(Self.has(core.feed(.passEnded), "compact"), "once it is done")
    }

    @Test func aFetchWaitsForTheAppendAndAnAppendForTheFetch() {
        var core = Core.core()
        core.feed(.remoteWoke)
        #expect(Self.has(core.feed(.passEnded), "fetch"))
        let held = Self.edit("bread", 1, &core)
        #expect(!Self.has(held, "append"), "the store has one connection: the append waits")
        core.feed(.fetched([]))
        #expect(Self.has(core.feed(.passEnded), "append"))
        core.feed(.remoteWoke)
        #expect(!Self.has(core.feed(.passEnded), "fetch"), "not while the append is out")
        core.feed(.appended(compactionDue: false), now: Core.now)
        #expect(Self.has(core.feed(.passEnded), "fetch"))
    }
}
