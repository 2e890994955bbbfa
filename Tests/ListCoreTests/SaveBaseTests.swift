import Foundation
import ListFileFormat
import ListModel
import ListRPC
import Testing

@testable import ListCore

/// Issue 46: every save is merged against what its author saw — the lists at the revision its
/// headings name, rebuilt from the kept history — whoever else saved, however old the copy; a
/// copy with no usable revision brings back nothing taken off or renamed within the history. The
/// core alone, driven as the owner drives it (`SaveFromOlderCopyTests`' helpers).
@Suite struct SaveBaseTests {
    typealias Helpers = SaveFromOlderCopyTests

    static func items(_ core: ListCore) throws -> [String] { Array(try Helpers.groceries(core).items) }

    /// Case 1: B's save is taken in; then A writes the copy A read before it. Nothing of B's is
    /// undone: the added salt, the tick, the list B's save made.
    @Test func aSaveOfACopyReadBeforeAnotherPersonsSaveKeepsTheirs() throws {
        var (core, read) = Helpers.core(["rice", "oats"])
        let bSave = read.replacing("- [ ] oats", with: "- [x] oats") + "- [ ] salt\n\n# Hardware\n- [ ] nails\n"
        #expect(Helpers.save(bSave, &core).heard.isEmpty)
        #expect(try Self.items(core) == ["rice", "oats", "salt"])
        let aSave = read.replacing("- [ ] rice", with: "- [x] rice")
        let (heard, _) = Helpers.save(aSave, &core)
        // A's copy may have been read from B's save as well (its `rev=` is the same): that B's
        // changes stay is said, naming each (issue 59), never that A undid them.
        let messages = heard.flatMap(\.lines).map(\.message)
        #expect(messages.count == 3 && messages.allSatisfy { $0.contains("stays") || $0.contains("is kept") }, "\(messages)")
        let list = try Helpers.groceries(core)
        #expect(Array(list.items) == ["rice", "oats", "salt"])
        #expect(Set(list.checked) == ["rice", "oats"])
        #expect((try? core.durable.list(.name("Hardware")))?.items == ["nails"])
    }

    /// Case 2: copies 16, 50 and 500 changes old (the history keeps them): what was removed,
    /// renamed or cleared meanwhile stays so, and the copy's own tick is taken.
    @Test(arguments: [16, 50, 500])
    func anOldCopyWithinTheHistoryBringsNothingBack(changesAgo: Int) throws {
        var (core, read) = Helpers.core(["rice", "milk", "pears", "eggs"], historyLimit: 1_000)
        var id = 100
        func edit(_ edit: ListEdit) {
            Helpers.edit(edit, &core, id: id, writing: id % 7 == 0)
            id += 1
        }
        edit(.removeItem("milk", from: .id(1)))
        edit(.replaceItem("pears", with: "nashi pears", on: .id(1)))
        edit(.checkItem("eggs", on: .id(1)))
        edit(.clearChecked(.id(1)))
        for number in 0..<(changesAgo - 4) { edit(.addItem("item \(number)", to: .id(1))) }
        _ = Helpers.write(&core)
        let (heard, _) = Helpers.save(read.replacing("- [ ] rice", with: "- [x] rice"), &core)
        #expect(heard.isEmpty, "\(heard)")
        let list = try Helpers.groceries(core)
        #expect(!list.items.contains("milk") && !list.items.contains("pears") && !list.items.contains("eggs"))
        #expect(list.items.contains("nashi pears") && list.checked == ["rice"])
        #expect(list.items.count == 2 + changesAgo - 4)
    }

    /// Case 3: the history is what a restart recovers — a core started anew from the same
    /// history reads an open copy against its revision (`ListCore.init(recovered:)`).
    @Test func aCopyReadBeforeARestartIsReadAgainstItsRevisionAfterIt() throws {
        var (core, read) = Helpers.core(["rice", "milk"], historyLimit: 1_000)
        Helpers.edit(.removeItem("milk", from: .id(1)), &core)
        Helpers.edit(.addItem("salt", to: .id(1)), &core, id: 8)
        // A restart: a new core on the durable lists and the history.
        let recovered = RecoveredLists(
            instance: "i",
            book: core.durable,
            history: core.history,
            shownByFile: core.durable,
            lastShown: core.durable,
            isFirstStart: false,
            problems: []
        )
        var restarted = ListCore(recovered: recovered, filePath: "/lists.md")
        let (heard, _) = Helpers.save(read + "- [ ] flour\n", &restarted)
        #expect(heard.isEmpty, "\(heard)")
        #expect(try Self.items(restarted).sorted() == ["flour", "rice", "salt"])
    }

    /// Case 4: a copy whose notes a tool stripped is read against the lists as they are (issue
    /// 59: it is not sure of its base): nothing done since it was read is undone — salt, which
    /// it lacks, stays and that is said; milk, which it still shows, is not brought back — and
    /// its own tick is taken.
    @Test func aCopyWithoutNotesTakesItsTicksAndUndoesNothing() throws {
        var (core, read) = Helpers.core(["rice", "oats", "milk", "tea", "jam"], historyLimit: 1_000)
        Helpers.edit(.addItem("salt", to: .id(1)), &core, id: 7)
        Helpers.edit(.checkItem("oats", on: .id(1)), &core, id: 8)
        Helpers.edit(.removeItem("milk", from: .id(1)), &core, id: 9)
        let stripped = read.replacing(#/ <!-- listd[^>]*-->/#, with: "").replacing("- [ ] rice", with: "- [x] rice")
        #expect(!stripped.contains("rev="))
        let (heard, _) = Helpers.save(stripped, &core)
        let messages = heard.flatMap(\.lines).map(\.message)
        #expect(messages.contains { $0.hasPrefix("“salt” was not taken off") }, "\(messages)")
        let list = try Helpers.groceries(core)
        #expect(Array(list.items) == ["rice", "oats", "tea", "jam", "salt"])
        #expect(Set(list.checked) == ["rice", "oats"])
    }

    /// Case 4, far from anything kept: what it shows that the history took off or renamed is not
    /// brought back, and each such line is reported with who took it off.
    @Test func aCopyFarFromAnythingKeptBringsBackNothingRemovedWithinTheHistory() throws {
        var (core, _) = Helpers.core(["rice", "milk", "pears"], historyLimit: 1_000)
        Helpers.edit(.removeItem("milk", from: .id(1)), &core, id: 7)
        Helpers.edit(.replaceItem("pears", with: "nashi pears", on: .id(1)), &core, id: 8)
        let copy = "# Groceries\n- rice\n- milk\n- pears\n- kale\n- leeks\n- figs\n- plums\n- dates\n"
        let (heard, _) = Helpers.save(copy, &core)
        let list = try Helpers.groceries(core)
        #expect(!list.items.contains("milk") && !list.items.contains("pears"), "\(list.items)")
        #expect(list.items.contains("kale") && list.items.contains("dates") && list.items.contains("nashi pears"))
        let messages = heard.flatMap(\.lines).map(\.message)
        #expect(messages.contains { $0.contains("“milk” was taken off Groceries by test on") && $0.contains("not brought back") }, "\(messages)")
        #expect(messages.contains { $0.contains("“pears” was changed to “nashi pears”") && $0.contains("not brought back") }, "\(messages)")
    }

    /// Case 5: a backup of the file restored 20 changes later re-creates no deleted list and
    /// re-adds no removed item.
    @Test func aBackupRestoredLaterBringsNothingBack() throws {
        var (core, backup) = Helpers.core(["rice", "milk"], historyLimit: 1_000)
        let withHardware = try #require(Helpers.edit(.createList(name: "Hardware", items: ["nails"]), &core, id: 7))
        Helpers.edit(.deleteList(.name("Hardware")), &core, id: 8)
        Helpers.edit(.removeItem("milk", from: .id(1)), &core, id: 9)
        for number in 0..<18 { Helpers.edit(.addItem("item \(number)", to: .id(1)), &core, id: 10 + number) }
        for copy in [backup, withHardware] {
            let (heard, _) = Helpers.save(copy, &core)
            #expect(heard.isEmpty, "\(heard)")
            #expect((try? core.durable.list(.name("Hardware"))) == nil)
            #expect(try !Self.items(core).contains("milk"))
            #expect(try Self.items(core).count == 19)
        }
    }

    /// Case 8: what a save did not take is said naming the right item — from the history, not
    /// the diff's guess (pears was taken off; tea, next to it, was renamed green tea).
    @Test func anEditOfAnItemTakenOffMeanwhileNamesThatItem() throws {
        var (core, read) = Helpers.core(["pears", "tea"], historyLimit: 1_000)
        Helpers.edit(.removeItem("pears", from: .id(1)), &core, id: 7)
        Helpers.edit(.replaceItem("tea", with: "green tea", on: .id(1)), &core, id: 8)
        let (heard, _) = Helpers.save(read.replacing("- [ ] pears", with: "- [x] pears"), &core)
        let messages = heard.flatMap(\.lines).map(\.message)
        #expect(messages.contains { $0.contains("“pears” was taken off Groceries") }, "\(messages)")
        #expect(!messages.contains { $0.contains("green tea") }, "\(messages)")
    }

    /// Case 8: the person's removal of an item renamed meanwhile is said, not dropped.
    @Test func aRemovalOfAnItemRenamedMeanwhileIsSaid() throws {
        var (core, read) = Helpers.core(["rice", "pears", "tea", "jam"], historyLimit: 1_000)
        Helpers.edit(.replaceItem("pears", with: "nashi pears", on: .id(1)), &core, id: 7)
        Helpers.edit(.moveItem("nashi pears", on: .id(1), after: "jam"), &core, id: 8)
        let (heard, _) = Helpers.save(read.replacing("- [ ] pears\n", with: ""), &core)
        let messages = heard.flatMap(\.lines).map(\.message)
        #expect(messages.contains { $0.contains("“pears” was changed to “nashi pears”") }, "\(messages)")
        #expect(try Self.items(core).contains("nashi pears"))
    }

    /// Case 8: an add of what was added meanwhile keeps the person's amount and section.
    @Test func anAddOfWhatWasAddedMeanwhileKeepsItsAmountAndSection() throws {
        var (core, read) = Helpers.core(["rice"], historyLimit: 1_000)
        Helpers.edit(.addItem("milk", to: .id(1)), &core, id: 7)
        Helpers.edit(.addItem("eggs", to: .id(1)), &core, id: 8)
        let (heard, _) = Helpers.save(read + "- [ ] milk (2 l)\n## Dairy\n- [ ] eggs\n", &core)
        #expect(heard.isEmpty, "\(heard)")
        let list = try Helpers.groceries(core)
        #expect(list.quantities["milk"] == "2 l", "\(list)")
        #expect(list.sections.map(\.name) == ["Dairy"] && list.section(named: "Dairy").map { list.sections[$0].count } == 1, "\(list)")
        #expect(list.sectionName(list.section(ofItemAt: list.items.firstIndex(of: "eggs")!)) == "Dairy", "\(list)")
    }

    /// Case 8: a line not taken is said again when the same stale buffer is saved again (the
    /// person never saw the note listd wrote into the file).
    @Test func aLineNotTakenIsSaidAgainWhenSavedAgain() throws {
        var (core, read) = Helpers.core(["rice", "eggs"], historyLimit: 1_000)
        Helpers.edit(.removeItem("eggs", from: .id(1)), &core, id: 7)
        let stale = read.replacing("- [ ] eggs", with: "- [x] eggs")
        let first = Helpers.save(stale, &core).heard.flatMap(\.lines).map(\.message)
        #expect(first.contains { $0.contains("“eggs” was taken off") }, "\(first)")
        let again = Helpers.save(stale + "- [ ] tea\n", &core).heard.flatMap(\.lines).map(\.message)
        #expect(again.contains { $0.contains("“eggs” was taken off") }, "\(again)")
        #expect(try Self.items(core) == ["rice", "tea"])
    }

    /// Case 8: an offline edit that moves an item taken off meanwhile is denied `changedMeanwhile`
    /// with why, not `itemNotFound`.
    @Test func aMoveOfAnItemTakenOffMeanwhileIsChangedMeanwhile() throws {
        var (core, _) = Helpers.core(["rice", "milk"], historyLimit: 1_000)
        let base = core.durable
        Helpers.edit(.removeItem("milk", from: .id(1)), &core, id: 7)
        let request = ClientEdit(
            edit: .moveItemInto("milk", on: .id(1), section: "Dairy", before: nil),
            origin: Helpers.client,
            base: SaveBase(book: base, kind: .revision)
        )
        var replies: [Result<EditOutcome, EditFailure>] = []
        for action in core.propose(9, request, at: Helpers.time) + core.feed(.passEnded) {
            if case .reply(9, let outcome) = action { replies.append(outcome) }
        }
        guard case .failure(.denied(.changedMeanwhile(let why)))? = replies.first else {
            Issue.record("\(replies)")
            return
        }
        #expect(why.contains("“milk” was taken off Groceries"), "\(why)")
    }

    /// A core whose Groceries has `sections` (Dairy first, then Bakery), each with its items, and
    /// the file it wrote.
    static func core(sections: KeyValuePairs<String, [String]>) throws -> (ListCore, String) {
        var (core, _) = Helpers.core(sections.flatMap(\.value), historyLimit: 1_000)
        var id = 7
        for (name, items) in sections {
            let edits: [ListEdit] = [.addSection(name, on: .id(1), before: nil)]
                + items.map { .moveItemInto($0, on: .id(1), section: name, before: nil) }
            for edit in edits {
                Helpers.edit(edit, &core, id: id)
                id += 1
            }
        }
        let read = try #require(Helpers.write(&core) ?? Optional(ListFileWriter.text(for: core.durable, onto: core.file.reading)))
        return (core, read)
    }

    /// Case 7: moving the last item of a section under an empty section's `##` line is made
    /// though an item was added after it meanwhile (the move was dropped without a word).
    @Test func aMoveIntoAnEmptySectionIsMadeWhateverWasAddedMeanwhile() throws {
        var (core, read) = try Self.core(sections: ["Dairy": ["milk", "butter"], "Bakery": []])
        #expect(read.contains("## Dairy\n- [ ] milk\n- [ ] butter\n## Bakery"), "\(read)")
        Helpers.edit(.addItem("cheese", to: .id(1), section: "Dairy"), &core, id: 20)
        let moved = read.replacing("- [ ] butter\n## Bakery\n", with: "## Bakery\n- [ ] butter\n")
        let (heard, _) = Helpers.save(moved, &core)
        #expect(heard.isEmpty, "\(heard)")
        let list = try Helpers.groceries(core)
        let butter = try #require(list.items.firstIndex(of: "butter"))
        #expect(list.sectionName(list.section(ofItemAt: butter)) == "Bakery", "\(list)")
    }

    /// Case 7: an item added under `## Dairy` in a copy read before Dairy was renamed Fridge goes
    /// into Fridge: a section is itself through its renames, not a second Dairy.
    @Test func anAddUnderASectionRenamedMeanwhileGoesToItByIdentity() throws {
        var (core, _) = Helpers.core(["milk"], historyLimit: 1_000)
        Helpers.edit(.addSection("Dairy", on: .id(1), before: nil), &core, id: 7)
        let read = try #require(Helpers.edit(.moveItemInto("milk", on: .id(1), section: "Dairy", before: nil), &core, id: 8))
        Helpers.edit(.renameSection("Dairy", on: .id(1), to: "Fridge"), &core, id: 9)
        let (heard, _) = Helpers.save(read.replacing("- [ ] milk\n", with: "- [ ] milk\n- [ ] cheese\n"), &core)
        #expect(heard.isEmpty, "\(heard)")
        let list = try Helpers.groceries(core)
        #expect(list.sections.map(\.name) == ["Fridge"], "\(list)")
        #expect(list.sectionName(list.section(ofItemAt: try #require(list.items.firstIndex(of: "cheese")))) == "Fridge", "\(list)")
    }

    /// Case 7: a `##` block moved above another in an old copy is the section moved: rolls, added
    /// to Bakery meanwhile, stays in Bakery (it went into Dairy).
    @Test func aMovedSectionBlockTakesWhatWasAddedToItMeanwhile() throws {
        var (core, read) = try Self.core(sections: ["Dairy": ["milk", "butter"], "Bakery": ["bread"]])
        #expect(read.contains("## Dairy\n- [ ] milk\n- [ ] butter\n## Bakery\n- [ ] bread\n"), "\(read)")
        Helpers.edit(.addItem("rolls", to: .id(1), section: "Bakery"), &core, id: 20)
        let moved = read.replacing("## Dairy\n- [ ] milk\n- [ ] butter\n## Bakery\n- [ ] bread\n", with: "## Bakery\n- [ ] bread\n## Dairy\n- [ ] milk\n- [ ] butter\n")
        let (heard, _) = Helpers.save(moved, &core)
        #expect(heard.isEmpty, "\(heard)")
        let list = try Helpers.groceries(core)
        func section(_ item: String) -> String { list.sectionName(list.section(ofItemAt: list.items.firstIndex(of: item)!)) }
        #expect(list.sections.map(\.name) == ["Bakery", "Dairy"], "\(list)")
        #expect(section("rolls") == "Bakery" && section("bread") == "Bakery", "\(list)")
        #expect(section("milk") == "Dairy" && section("butter") == "Dairy", "\(list)")
    }

    /// A save read off the loop, then taken in after another change became durable (another
    /// machine's, a client's): that change counts in the merge too — the removal of pears, renamed
    /// meanwhile, is said, not taken for "both removed it".
    @Test func whatBecameDurableWhileASaveWasReadCountsInItsMerge() throws {
        var (core, read) = Helpers.core(["pears", "tea"], historyLimit: 1_000)
        _ = core.feed(.fileRecheckDue)
        let content = ListFileText.content(Array(read.replacing("- [ ] pears\n", with: "").utf8), core.readRequest)
        Helpers.edit(.replaceItem("pears", with: "nashi pears", on: .id(1)), &core, id: 7, writing: false)
        var heard: [FileRejectionParams] = []
        let taken = core.pass { $0.feed(.fileRead(content), now: Helpers.now, at: Helpers.time) }
        Helpers.settle(taken, &core, heard: &heard)
        let messages = heard.flatMap(\.lines).map(\.message)
        #expect(messages.contains { $0.contains("“pears” was changed to “nashi pears”") }, "\(messages)")
        #expect(try Self.items(core).contains("nashi pears"))
    }

    /// The item a line of the file shows, if it is an item line.
    static func item(ofLine line: String) -> String? {
        for prefix in ["- [ ] ", "- [x] ", "- "] where line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
        return nil
    }

    /// A property, for random interleavings of client edits, restarts, and two editors who read
    /// the file at some moment and save their (edited) copy later: every confirmed edit a save
    /// did not touch survives, and nothing removed within the history comes back.
    @Test(arguments: 0..<60)
    func randomInterleavingsLoseNothingAndBringNothingBack(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var (core, text) = Helpers.core((0..<6).map { "item\($0)" }, historyLimit: 1_000)
        var copies: [String?] = [nil, nil]
        var everAdded = Set((0..<6).map { "item\($0)" })
        var clientRemoved: Set<String> = []
        var editorDeleted: Set<String> = []
        var clientTicked: Set<String> = []
        var fresh = 0
        var id = 100
        func freshName(_ who: String) -> String {
            fresh += 1
            return "\(who)\(fresh)"
        }
        let tracing = ProcessInfo.processInfo.environment["TRACE_SEED"] == "\(seed)"
        func trace(_ text: @autoclosure () -> String) { if tracing { print("TRACE", text()) } }
        for step in 0..<30 {
            let list = try Helpers.groceries(core)
            trace("step \(step): \(Array(list.items)) ticked \(list.checkedItems)")
            switch random.next(upTo: 6) {
            case 0, 1:
                // A client edits.
                let items = Array(list.items)
                let pick = items.isEmpty ? nil : items[random.next(upTo: items.count)]
                switch (random.next(upTo: 3), pick) {
                case (1, let item?):
                    trace("client removes \(item)")
                    text = Helpers.edit(.removeItem(item, from: .id(1)), &core, id: id) ?? text
                    clientRemoved.insert(item)
                    clientTicked.remove(item)
                case (2, let item?):
                    trace("client ticks \(item)")
                    text = Helpers.edit(.checkItem(item, on: .id(1)), &core, id: id) ?? text
                    clientTicked.insert(item)
                default:
                    let name = freshName("client")
                    trace("client adds \(name)")
                    text = Helpers.edit(.addItem(name, to: .id(1)), &core, id: id) ?? text
                    everAdded.insert(name)
                }
                id += 1
            case 2:
                // An editor reads the file.
                let editor = random.next(upTo: 2)
                copies[editor] = text
                trace("editor \(editor) reads:\n\(text)")
            case 3, 4:
                // An editor saves its copy: ticks a line, deletes one, adds one.
                let editor = random.next(upTo: 2)
                guard let copy = copies[editor] else { continue }
                var lines = copy.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let itemLines = lines.indices.filter { Self.item(ofLine: lines[$0]) != nil }
                if !itemLines.isEmpty, random.next(upTo: 2) == 0 {
                    let at = itemLines[random.next(upTo: itemLines.count)]
                    editorDeleted.insert(Self.item(ofLine: lines[at])!)
                    lines.remove(at: at)
                } else if let at = itemLines.first(where: { lines[$0].hasPrefix("- [ ] ") || !lines[$0].hasPrefix("- [") }) {
                    lines[at] = "- [x] " + Self.item(ofLine: lines[at])!
                }
                let name = freshName("editor")
                lines.insert("- [ ] \(name)", at: lines.count - 1)
                everAdded.insert(name)
                let saved = lines.joined(separator: "\n")
                trace("editor \(editor) saves:\n\(saved)")
                if tracing, case .bytes(_, _, _, let edits?) = ListFileText.content(Array(saved.utf8), core.readRequest) {
                    trace("base \(edits.base.kind) \(Array(edits.base.book.lists[0].items)) versions \(core.file.versions.map { "\($0.revision ?? -1)/\($0.isSave)/\($0.through)" }) edits \(edits.edits.map(\.edit))")
                }
                let (heard, written) = Helpers.save(saved, &core)
                trace("heard \(heard.flatMap(\.lines).map(\.message)); written \(written != nil)")
                // An add the save asked for may be reported instead (a line the diff took for
                // a retype of an item changed meanwhile): then it is not expected.
                if heard.flatMap(\.lines).contains(where: { $0.text.contains(name) }) { everAdded.remove(name) }
                // The editor's buffer is what it saved (listd's rewrite, if any, is on disk).
                copies[editor] = saved
                text = written ?? saved
            default:
                // listd restarts: a new core from the durable lists and the history.
                trace("restart")
                let recovered = RecoveredLists(
                    instance: "i",
                    book: core.durable,
                    history: core.history,
                    shownByFile: core.file.shown,
                    lastShown: core.file.shown,
                    isFirstStart: false,
                    problems: []
                )
                var restarted = ListCore(recovered: recovered, filePath: "/lists.md")
                var heard: [FileRejectionParams] = []
                let started = restarted.start(
                    ListFileText.content(Array(text.utf8), known: core.file.shown, withEdits: false),
                    recognized: core.file.shown,
                    byNote: true,
                    firstStart: false,
                    now: Helpers.now,
                    at: Helpers.time
                )
                text = Helpers.settle(started, &restarted, heard: &heard) ?? text
                core = restarted
            }
            let after = try Helpers.groceries(core)
            for item in clientRemoved {
                #expect(!after.items.contains(item), "seed \(seed), step \(step): \(item), taken off by a client, came back")
            }
            for item in everAdded.subtracting(clientRemoved).subtracting(editorDeleted) {
                #expect(after.items.contains(item), "seed \(seed), step \(step): \(item) was lost; \(Array(after.items))")
            }
            for item in clientTicked where after.items.contains(item) && !editorDeleted.contains(item) {
                #expect(after.isChecked(item), "seed \(seed), step \(step): the client's tick of \(item) was undone")
            }
        }
    }

    /// The soak's seed 3563452083: a buffer saved `bread (1 l)`, then another buffer read at the
    /// same revision saved so often that listd no longer keeps the first save; the first buffer
    /// then took the amount off. Read against listd's text of the revision or the other's saves
    /// (none shows the amount), that was no change, and the amount stayed without a word. A
    /// copy that may have been read from a save listd forgot is now read as one with no usable
    /// revision: the amount's removal is said, naming the item.
    @Test func aSaveMadeFromASaveListdNoLongerKeepsIsNotReadAgainstAnother() throws {
        var (core, read) = Helpers.core(["rice", "bread"], historyLimit: 1_000)
        let withAmount = read.replacing("- [ ] bread", with: "- [ ] bread (1 l)")
        #expect(Helpers.save(withAmount, &core).heard.isEmpty)
        #expect(try Helpers.groceries(core).quantities["bread"] != nil)
        // Another buffer, read at the same revision, saved again and again (each save differs).
        var other = read
        for number in 0..<CoreLimits.standard.keptFileVersions {
            other += "- [ ] item \(number)\n"
            Helpers.save(other, &core)
        }
        let (heard, _) = Helpers.save(read, &core)
        let messages = heard.flatMap(\.lines).map(\.message)
        let list = try Helpers.groceries(core)
        #expect(list.quantities["bread"] == nil || messages.contains { $0.contains("“bread”") }, "\(messages)")
        // Nothing the other buffer added is taken off by a copy that did not show it.
        #expect((0..<CoreLimits.standard.keptFileVersions).allSatisfy { list.items.contains("item \($0)") })
    }

    /// The soak's seed 2992101707: the same copy, read without its revision, types a new list
    /// under a name a client gave a list since: not that list (given the copy's items as if the
    /// person had typed them into it), but a new list, refused as the name is taken, and said.
    @Test func aNewListTypedInACopyReadWithoutItsRevisionIsNotAListMadeSince() throws {
        var (core, read) = Helpers.core(["rice", "bread"], historyLimit: 1_000)
        #expect(Helpers.save(read.replacing("- [ ] bread", with: "- [ ] bread (1 l)"), &core).heard.isEmpty)
        var other = read
        for number in 0..<CoreLimits.standard.keptFileVersions {
            other += "- [ ] item \(number)\n"
            Helpers.save(other, &core)
        }
        Helpers.edit(.createList(name: "Hardware", items: ["nails"]), &core, id: 60)
        let (heard, _) = Helpers.save(read + "\n# Hardware\n- [ ] glue\n", &core)
        let messages = heard.flatMap(\.lines).map(\.message)
        #expect(try core.durable.list(.name("Hardware")).items == ["nails"])
        #expect(messages.contains { $0.contains("There is already a list called “Hardware”") }, "\(messages)")
    }

    /// The kept texts of the file drop listd's own older ones before a person's save: the
    /// history gives listd's lists back, and nothing else holds the save's text.
    @Test func keptTextsDropListdsOwnBeforeAPersonsSave() {
        var state = FileState(limits: .standard)
        state.keptVersions = 3
        func version(_ revision: Int, save: Bool) -> FileVersion {
            FileVersion(revision: Revision(revision), book: ListBook(), text: Array("\(revision)".utf8), isSave: save)
        }
        state.remember(version(1, save: true))
        for revision in 2...4 { state.remember(version(revision, save: false)) }
        #expect(state.versions.map { String(decoding: $0.text, as: UTF8.self) } == ["1", "3", "4"])
        // With one text of listd's left, the oldest save goes.
        state.remember(version(5, save: true))
        let dropped = state.remember(version(6, save: true))
        #expect(dropped.map { String(decoding: $0.text, as: UTF8.self) } == ["1"])
    }
}
