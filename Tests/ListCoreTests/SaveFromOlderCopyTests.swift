import ListFileFormat
import ListModel
import ListRPC
import Testing

@testable import ListCore

/// Issue 35: a save made from a copy of the list file read before other changes is read against
/// that copy, and never undoes what was done meanwhile. The core on its own, driven as the owner
/// drives it (no delegates: the rules decide).
@Suite struct SaveFromOlderCopyTests {
    static let client = ChangeOrigin.client(pid: 1, uid: 1, name: "test")
    static let time = Timestamp(millisecondsSinceEpoch: 1_000)
    static let now = ContinuousClock.now

    /// A core whose file shows `items` on Groceries, written by the core itself (so its headings
    /// carry their revision); returns the file's text.
    static func core(_ items: [String], historyLimit: Int = 10) -> (ListCore, String) {
        var book = ListBook()
        _ = try? book.apply(.createList(name: "Groceries", items: items), at: time, origin: client)
        var core = ListCore(recovered: ListCoreTests.recovered(book, historyLimit: historyLimit), filePath: "/lists.md")
        let text = ListFileWriter.text(for: book, onto: nil)
        var heard: [FileRejectionParams] = []
        let started = core.feed(.started(ListFileText.content(Array(text.utf8), known: book), recognized: nil, byNote: false, firstStart: false), now: now, at: time)
        settle(started, &core, heard: &heard)
        return (core, write(&core) ?? text)
    }

    /// Everything due is done: appends complete, and a due rewrite of the file is made, as the
    /// owner's shells would. Returns the file's new text when it was written.
    @discardableResult
    static func settle(
        _ actions: [CoreAction],
        _ core: inout ListCore,
        heard: inout [FileRejectionParams],
        writing: Bool = true
    ) -> String? {
        var pending = actions + core.feed(.passEnded)
        var written: String?
        var rounds = 0
        while !pending.isEmpty {
            rounds += 1
            if rounds > 50 {
                Issue.record("the core did not settle: \(pending.map { "\($0)".prefix(60) })")
                return written
            }
            var next: [CoreAction] = []
                        for action in pending {
                switch action {
                case .append: next += core.pass { $0.feed(.appended(compactionDue: false), now: now) }
                case .announceRejection(let rejection): heard.append(rejection)
                case .renderFile(let book, let reading, let rejected, let notes):
                    let rendered = ListFileText.render(book, onto: reading, rejected: rejected, notes: notes)
                    next += core.pass { $0.feed(.fileRendered(rendered), now: now) }
                case .replaceFile(let rendered, _):
                    written = String(decoding: rendered.bytes, as: UTF8.self)
                    next += core.feed(.fileReplaced(rendered, .written), now: now)
                case .scheduleWrite where writing: next += core.feed(.fileWriteForced, now: now)
                default: break
                }
            }
            // The end of the owner's pass: what it decided goes to the log.
            pending = next.isEmpty ? core.feed(.passEnded) : next
        }
        return written
    }

    static func write(_ core: inout ListCore) -> String? {
        var heard: [FileRejectionParams] = []
        return settle(core.feed(.fileWriteForced, now: now), &core, heard: &heard)
    }

    /// A client's edit, and the file listd wrote after it.
    @discardableResult
    static func edit(_ edit: ListEdit, _ core: inout ListCore, id: Int = 7, writing: Bool = true) -> String? {
        var heard: [FileRejectionParams] = []
        return settle(core.propose(id, edit, origin: client, at: time), &core, heard: &heard, writing: writing)
    }

    /// A person's save of `text`: what `didRejectFileEdit` said of it, and the file listd wrote
    /// back, if it did.
    @discardableResult
    static func save(_ text: String, _ core: inout ListCore) -> (heard: [FileRejectionParams], written: String?) {
        var heard: [FileRejectionParams] = []
        _ = core.feed(.fileRecheckDue)
        let read = core.pass { $0.feed(.fileRead(ListFileText.content(Array(text.utf8), $0.readRequest)), now: now, at: time) }
        let written = settle(read, &core, heard: &heard)
        return (heard, written)
    }

    static func groceries(_ core: ListCore) throws -> ShoppingList { try core.durable.list(.id(1)) }

    @Test func aSaveFromACopyReadBeforeAConfirmedAddKeepsTheAdd() throws {
        var (core, read) = Self.core(["rice", "milk"])
        // Meanwhile a client adds salt, and listd rewrites the file.
        let rewritten = try #require(Self.edit(.addItem("salt", to: .id(1)), &core))
        #expect(rewritten.contains("salt"))
        // The person ticks rice in the copy they read, adds flour, and saves over.
        let (heard, written) = Self.save(read.replacing("- [ ] rice", with: "- [x] rice") + "- [ ] flour\n", &core)
        let list = try Self.groceries(core)
        #expect(list.items == ["rice", "milk", "flour", "salt"] || list.items == ["rice", "milk", "salt", "flour"], "\(list.items)")
        #expect(list.checked == ["rice"])
        #expect(heard.isEmpty, "nothing in conflict: \(heard)")
        // The file then shows both: the person's lines and salt.
        let after = try #require(written)
        #expect(after.contains("- [ ] salt") && after.contains("flour") && after.contains("- [x] rice"), "\(after)")
    }

    /// A second save from the same buffer may have been made from the first save or from the
    /// revision its headings name (another person who read that revision and typed jam and tea
    /// saves the very same text): what the two readings disagree on — bread, which the first
    /// save added — stays as it is and is said (issue 59: nothing guessed), and the file is
    /// written again; a save of that file takes the removal.
    @Test func aSecondSaveFromTheSameBufferTakesWhatEveryReadingAgreesOn() throws {
        var (core, read) = Self.core(["rice", "milk"])
        let first = read + "- [ ] bread\n- [ ] jam\n- [ ] tea\n"
        #expect(Self.save(first, &core).heard.isEmpty)
        #expect(try Self.groceries(core).items == ["rice", "milk", "bread", "jam", "tea"])
        let second = first.replacing("- [ ] bread\n", with: "") + "- [ ] honey\n"
        let (heard, written) = Self.save(second, &core)
        #expect(heard.flatMap(\.lines).map(\.message).contains { $0.contains("“bread” stays on Groceries") }, "\(heard)")
        let kept = Array(try Self.groceries(core).items)
        // (honey goes at the copy's index, so before tea while bread stays: order is not content)
        #expect(kept.sorted() == ["bread", "honey", "jam", "milk", "rice", "tea"], "\(kept)")
        let rewritten = try #require(written)
        #expect(Self.save(rewritten.replacing("- [ ] bread\n", with: ""), &core).heard.isEmpty)
        let taken = Array(try Self.groceries(core).items)
        #expect(taken.sorted() == ["honey", "jam", "milk", "rice", "tea"], "\(taken)")
    }

    @Test func aRemovalOfWhatWasChangedMeanwhileIsNotMadeAndIsSaid() throws {
        var (core, read) = Self.core(["rice", "milk", "pears"])
        Self.edit(.checkItem("milk", on: .id(1)), &core, id: 7)
        Self.edit(.replaceItem("pears", with: "nashi pears", on: .id(1)), &core, id: 8)
        _ = Self.write(&core)
        // The old copy drops milk and pears, and ticks rice.
        let (heard, written) = Self.save(
            read.replacing("- [ ] milk\n", with: "").replacing("- [ ] pears\n", with: "").replacing("- [ ] rice", with: "- [x] rice"),
            &core
        )
        let list = try Self.groceries(core)
        #expect(list.items == ["rice", "milk", "nashi pears"])
        #expect(list.checked == ["rice", "milk"])
        let messages = heard.flatMap(\.lines).map(\.message)
        #expect(messages.contains { $0.contains("“milk” was ticked off") }, "\(messages)")
        #expect(messages.contains { $0.contains("“pears” was changed to “nashi pears”") }, "\(messages)")
        #expect(heard.flatMap(\.lines).allSatisfy { $0.reason == "changedMeanwhile" })
        // Both are noted in the file, under the list's heading, which shows the lists again.
        let after = try #require(written)
        #expect(after.contains("<!-- listd: not taken: “milk” was ticked off"), "\(after)")
        #expect(after.contains("- [x] milk") && after.contains("- [ ] nashi pears"), "\(after)")
    }

    @Test func anEditOfAnItemRemovedMeanwhileIsMarkedOnItsLine() throws {
        var (core, read) = Self.core(["rice", "milk"])
        Self.edit(.removeItem("milk", from: .id(1)), &core)
        _ = Self.write(&core)
        let (heard, written) = Self.save(read.replacing("- [ ] milk", with: "- [ ] oat milk"), &core)
        #expect(try Self.groceries(core).items == ["rice"])
        #expect(heard.flatMap(\.lines).map(\.message).contains { $0.contains("“milk” was taken off Groceries") })
        let after = try #require(written)
        #expect(after.contains("<!-- listd: not taken: “milk” was taken off Groceries") && after.contains("You wrote: - [ ] oat milk"), "\(after)")
    }

    /// Seed 50360385 of the save model: a copy read before a client retyped leeks as "leeks
    /// bio", saved with flour's line taken out and leeks retyped the same way. The diff pairs the
    /// gone flour with the new line (a retype to a text the list has already): refused as one
    /// change, flour's removal went unsaid. Split, flour comes off and the rest is as it was.
    @Test func aLineRemovedBesideARetypeMadeMeanwhileIsTakenOff() throws {
        var (core, read) = Self.core(["rice", "oats", "flour", "leeks", "onions", "wine"])
        Self.edit(.replaceItem("leeks", with: "leeks bio", on: .id(1)), &core)
        let copy = read.replacing("- [ ] flour\n", with: "").replacing("- [ ] leeks\n", with: "- [x] leeks bio\n")
        let (heard, _) = Self.save(copy, &core)
        let list = try Self.groceries(core)
        let said = heard.flatMap(\.lines).map(\.message)
        #expect(!list.items.contains("flour") || said.contains { $0.contains("flour") }, "flour's removal neither done nor said: \(list.items), \(said)")
        #expect(!list.items.contains("flour"), "\(list.items), \(said)")
        #expect(Array(list.items) == ["rice", "oats", "leeks bio", "onions", "wine"] && list.checked == ["leeks bio"], "\(list.items) \(list.checked)")
    }

    /// Older than the kept history (limit 10 here: 30 changes ago), and far from anything kept.
    @Test func aCopyOlderThanTheHistoryAndFarFromItOnlyAddsAndTicks() throws {
        var (core, read) = Self.core(["rice", "milk"])
        for number in 0..<30 {
            Self.edit(.addItem("item \(number)", to: .id(1)), &core, id: 10 + number)
            _ = Self.write(&core)
        }
        let copy = read.replacing("- [ ] milk\n", with: "").replacing("- [ ] rice", with: "- [x] rice")
            + "- [ ] tea\n- [ ] coffee\n- [ ] jam\n- [ ] honey\n"
        let (heard, _) = Self.save(copy, &core)
        let list = try Self.groceries(core)
        #expect(list.items.contains("milk"), "a removal from a copy too old to tell is not made")
        #expect(list.items.contains("item 0") && list.items.contains("tea") && list.checked == ["rice"])
        #expect(heard.flatMap(\.lines).map(\.message).contains { $0.contains("older") || $0.contains("oldest") })
    }

    /// For random histories of client edits and a person's save of an older copy: every change a
    /// client made that the save did not touch is still there, and every line the person changed
    /// is applied or reported.
    @Test(arguments: 0..<100)
    func randomHistoriesLoseNothingConfirmed(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let start = (0..<8).map { "item\($0)" }
        var (core, read) = Self.core(start)
        let base = try Self.groceries(core)
        // Clients: adds, removals, ticks, renames; the file rewritten now and then.
        var id = 100
        for step in 0..<random.next(upTo: 6) + 1 {
            let list = try Self.groceries(core)
            let item = list.items[random.next(upTo: list.items.count)]
            let edit: ListEdit =
                switch random.next(upTo: 5) {
                case 0: .addItem("client\(step)", to: .id(1))
                case 1: .removeItem(item, from: .id(1))
                case 2: .checkItem(item, on: .id(1))
                case 3: .setQuantity(item, on: .id(1), quantity: "2 kg")
                default: .replaceItem(item, with: "renamed\(step)", on: .id(1))
                }
            // The file rewritten after some of them: the copy the person has is then older.
            Self.edit(edit, &core, id: id, writing: random.next(upTo: 2) == 0)
            id += 1
        }
        let now = try Self.groceries(core)
        // The person, on the copy they read: removes, ticks, retypes and adds lines.
        var lines = read.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var removed: [String] = []
        var ticked: [String] = []
        var retyped: [(String, String)] = []
        var added: [String] = []
        var amounts: [String] = []
        for item in base.items {
            guard let at = lines.firstIndex(of: "- [ ] \(item)") else { continue }
            switch random.next(upTo: 6) {
            case 4:
                lines[at] = "- [ ] \(item) (3)"
                amounts.append(item)
            case 0:
                lines.remove(at: at)
                removed.append(item)
            case 1:
                lines[at] = "- [x] \(item)"
                ticked.append(item)
            case 2:
                lines[at] = "- [ ] \(item) person"
                retyped.append((item, "\(item) person"))
            default: break
            }
        }
        for number in 0..<random.next(upTo: 3) {
            lines.insert("- [ ] person\(number)", at: lines.count - 1)
            added.append("person\(number)")
        }
        let (heard, _) = Self.save(lines.joined(separator: "\n"), &core)
        let after = try Self.groceries(core)
        let reported = heard.flatMap(\.lines).map { "\($0.text) \($0.message)" }
        func said(_ item: String) -> Bool { reported.contains { $0.contains(item) } }
        let touched = Set(removed + ticked + retyped.map(\.0))
        // What clients did stands.
        for item in now.items where !base.items.contains(item) {
            #expect(after.items.contains(item), "seed \(seed): the client's \(item) was lost; \(after.items)")
        }
        for item in base.items where !now.items.contains(item) {
            #expect(!after.items.contains(item), "seed \(seed): the client's removal of \(item) was undone")
        }
        // A tick stays with its item, also when the person retyped its text.
        let retypedTo = Dictionary(retyped, uniquingKeysWith: { first, _ in first })
        for item in now.checked where !base.checked.contains(item) && now.items.contains(item) {
            #expect(after.isChecked(retypedTo[item] ?? item) || after.isChecked(item), "seed \(seed): the client's tick of \(item) was undone")
        }
        for item in now.items where base.items.contains(item) && !touched.contains(item) {
            #expect(after.items.contains(item), "seed \(seed): \(item), untouched by the save, is gone")
        }
        // What the person did is applied or said.
        for item in removed { #expect(!after.items.contains(item) || said(item), "seed \(seed): removal of \(item)") }
        for item in ticked { #expect(after.isChecked(item) || said(item), "seed \(seed): tick of \(item)") }
        for (old, new) in retyped { #expect(after.items.contains(new) || said(old), "seed \(seed): \(old) → \(new)") }
        for item in added { #expect(after.items.contains(item) || said(item), "seed \(seed): add of \(item)") }
        for item in amounts { #expect(after.quantities[item] == "3" || said(item), "seed \(seed): amount of \(item)") }
        for item in now.items where now.quantities[item] != base.quantities[item] && after.items.contains(item) {
            #expect(after.quantities[item] == now.quantities[item], "seed \(seed): the client's amount of \(item) was undone")
        }
    }

    /// Case 5: a list in the file whose name the lists have already, and that the file never
    /// showed (a listd attaching to shared lists with lists of its own), is not taken, and
    /// neither is anything under it: its ticks do not tick the list of that name.
    @Test func nothingUnderAHeadingNotTakenIsApplied() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "Groceries", items: ["milk", "bread"]), at: Self.time, origin: Self.client)
        var core = ListCore(recovered: ListCoreTests.recovered(book, lastShown: ListBook()), filePath: "/lists.md")
        let own = "# Groceries <!-- listd id=1 -->\n- [x] milk\n- eggs\n## Dairy\n- cream (1 l)\n"
        var heard: [FileRejectionParams] = []
        let started = core.feed(.started(ListFileText.content(Array(own.utf8), known: ListBook(), withEdits: false), recognized: nil, byNote: false, firstStart: false), now: Self.now, at: Self.time)
        Self.settle(started, &core, heard: &heard)
        let list = try Self.groceries(core)
        #expect(list.items == ["milk", "bread"] && list.checked.isEmpty && list.sections.isEmpty, "\(list)")
        // (The file names no revision: bread, which it lacks, is not taken off, and that is said.)
        #expect(heard.flatMap(\.lines).map(\.reason) == ["changedMeanwhile", "listExists", "listRejected", "listRejected", "listRejected", "listRejected"], "\(heard)")
    }
}

/// A small seeded generator: the same seed gives the same history.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next(upTo bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
