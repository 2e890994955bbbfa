import Foundation
import Testing

/// Issue 59: the list file never lies. Each numbered case as a person hits it, on the real listd,
/// with real editors and shells: `cat >>`, `sed -i`, `mv` of an editor's buffer over the file, `cp`
/// of a copy, vim in tmux; restarts by SIGTERM. A save is waited for by its `saveTaken` line in
/// the change log (listd logs each save it takes in), never by a sleep.
@Suite(.offThePool, .serialized) struct FileNeverLiesTests {
    typealias Older = OlderCopyTests

    /// How many saves listd has taken in (its change log's `saveTaken` lines).
    static func savesTaken(_ sandbox: Sandbox) -> Int {
        let log = (try? String(contentsOfFile: sandbox.path + "/.lists.md.listd-log", encoding: .utf8)) ?? ""
        return log.components(separatedBy: "\"listd\":\"saveTaken\"").count - 1
    }

    /// Runs `save` (a person's save) and waits until listd has taken it in. What it writes back
    /// (a note) is waited for by the caller, as the text it expects (`sandbox.read(when:)`).
    @discardableResult
    static func saved(_ sandbox: Sandbox, _ daemon: Daemon, _ save: () throws -> Void) throws -> String {
        let before = savesTaken(sandbox)
        try save()
        try Older.waitUntil("listd to take the save in") { savesTaken(sandbox) > before }
        return try sandbox.read()
    }

    /// An editor's buffer written over the file as vim with `backupcopy=no` writes it: a new
    /// file renamed over the list file.
    static func write(_ text: String, over sandbox: Sandbox) throws {
        let buffer = sandbox.path + "/buffer.tmp"
        try text.write(toFile: buffer, atomically: false, encoding: .utf8)
        try shell(in: sandbox, "mv buffer.tmp lists.md")
    }

    /// Case 1: a new list with a section appended to the file (`cat >>`, in place) — listd died
    /// with SIGSEGV at this save and again at every start. Now the list is made with its section,
    /// and listd takes the next save and starts again on the file.
    @Test func aNewListWithASectionAppendedIsMade() throws {
        let (sandbox, daemon, client) = try Older.start("# Groceries\n- milk\n")
        defer { withExtendedLifetime(daemon) {} }
        _ = try Self.saved(sandbox, daemon) {
            try shell(in: sandbox, "printf '\\n# Party\\n## Drinks\\n- [ ] beer\\n- [x] wine\\n' >> lists.md")
        }
        let party = try client.result("getList", ["list": "Party"])
        #expect(party["items"] as? [String] == ["beer", "wine"], "\(party)")
        #expect(party["checked"] as? [String] == ["wine"], "\(party)")
        #expect((party["sections"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Drinks"], "\(party)")
        // The next save is taken, and a restart starts on this file.
        _ = try Self.saved(sandbox, daemon) { try shell(in: sandbox, "sed -i 's/^- \\[ \\] beer$/- [x] beer/' lists.md") }
        #expect(try Older.list(client, "Party").checked.sorted() == ["beer", "wine"])
        #expect(daemon.stop() == 0)
        try daemon.start()
        let again = try LineConnection(path: sandbox.socket)
        #expect(try Older.list(again, "Party").items == ["beer", "wine"])
    }

    /// Case 2: one buffer saved three times — milk → milk (2 l) → milk (1 l) → milk. The last
    /// save put back listd's own text of the revision its notes name, and was taken as "no
    /// change": the file came back with 1 l, without a word. Now it is taken or said.
    @Test func aRevertOfOnesOwnSaveIsTakenOrSaid() throws {
        let (sandbox, daemon, client) = try Older.start("# Groceries\n- [ ] milk\n- [ ] eggs\n")
        defer { withExtendedLifetime(daemon) {} }
        let buffer = try sandbox.read()
        _ = try Self.saved(sandbox, daemon) { try Self.write(buffer.replacing("- [ ] milk", with: "- [ ] milk (2 l)"), over: sandbox) }
        _ = try Self.saved(sandbox, daemon) { try Self.write(buffer.replacing("- [ ] milk", with: "- [ ] milk (1 l)"), over: sandbox) }
        #expect(try Older.list(client, "Groceries").quantities["milk"] == "1 l")
        try Self.saved(sandbox, daemon) { try Self.write(buffer, over: sandbox) }
        let amount = try Older.list(client, "Groceries").quantities["milk"]
        let after = try sandbox.read(when: { amount == nil || $0.contains("<!-- listd: not taken: “milk”") })
        #expect(amount == nil || after.contains("<!-- listd: not taken: “milk”"), "amount \(amount ?? "none"):\n\(after)")
    }

    /// Case 3: A and B read the file at the same revision and both tick milk and eggs; A also
    /// takes aspirin off and adds soap, and saves (`cp` of A's copy). B's later save (`mv` of
    /// B's buffer) brought aspirin back and took soap off. Now both stay as A left them, and B
    /// is told, naming each.
    @Test func anotherPersonsSaveIsNeverTakenForOnesOwn() throws {
        let (sandbox, daemon, client) = try Older.start("# Groceries\n- [ ] milk\n- [ ] eggs\n- [ ] aspirin\n- [ ] tea\n")
        defer { withExtendedLifetime(daemon) {} }
        let read = try sandbox.read()
        let ticks = read.replacing("- [ ] milk", with: "- [x] milk").replacing("- [ ] eggs", with: "- [x] eggs")
        let aCopy = sandbox.path + "/a-copy.md"
        try (ticks.replacing("- [ ] aspirin\n", with: "") + "- [ ] soap\n").write(toFile: aCopy, atomically: false, encoding: .utf8)
        _ = try Self.saved(sandbox, daemon) { try shell(in: sandbox, "cp a-copy.md lists.md") }
        try Self.saved(sandbox, daemon) { try Self.write(ticks, over: sandbox) }
        let after = try sandbox.read(when: { $0.contains("“aspirin”") && $0.contains("“soap”") })
        let list = try Older.list(client, "Groceries")
        #expect(!list.items.contains("aspirin") && list.items.contains("soap"), "\(list.items)")
        #expect(Set(list.checked) == ["milk", "eggs"])
        #expect(after.contains("“aspirin”") && after.contains("“soap”"), "\(after)")
    }

    /// Case 4: a copy whose notes a tool stripped (`sed -i` on a copy), after Groceries was
    /// renamed Food and a new Groceries made, in which the person only ticked milk: it deleted
    /// Food and replaced the new list's items. Now the tick is taken and nothing else is done;
    /// what the copy implies is said.
    @Test func aCopyWithoutNotesTicksAndUndoesNothing() throws {
        let (sandbox, daemon, client) = try Older.start("# Groceries\n- [ ] milk\n- [ ] eggs\n")
        defer { withExtendedLifetime(daemon) {} }
        try shell(in: sandbox, "cp lists.md backup.md && sed -i 's/ <!-- listd[^>]*-->//' backup.md")
        _ = try client.result("renameList", ["list": "Groceries", "name": "Food"])
        _ = try client.result("createList", ["name": "Groceries", "items": ["rice"]])
        _ = try sandbox.read(when: { $0.contains("rice") })
        try Self.saved(sandbox, daemon) {
            try shell(in: sandbox, "sed -i 's/^- \\[ \\] milk$/- [x] milk/' backup.md && cp backup.md lists.md")
        }
        let after = try sandbox.read(when: { $0.contains("<!-- listd: not taken:") })
        let lists = try client.result("getLists")["lists"] as? [[String: Any]] ?? []
        #expect(lists.compactMap { $0["name"] as? String }.sorted() == ["Food", "Groceries"], "\(lists)")
        #expect(try Older.list(client, "Food").items == ["milk", "eggs"])
        #expect(try Older.list(client, "Groceries").items == ["rice"], "the new list keeps its items")
        #expect(after.contains("<!-- listd: not taken:"), "what the copy implies is said:\n\(after)")
    }

    /// Case 4, another machine: its `lists.md` copied over this one's (`cp`). Its notes' ids and
    /// revisions were taken as this listd's: its Groceries (id 1) renamed this machine's Pantry
    /// (id 1) and rewrote its items. Now listd's notes name the listd that wrote them (`of=`),
    /// and another's are read as none: the copy adds what it shows, and every removal, rename
    /// or deletion it implies is said, not done.
    @Test func anotherMachinesFileIsACopyWithoutNotes() throws {
        let (other, otherDaemon, _) = try Older.start("# Groceries\n- [ ] milk\n- [x] bread\n\n# Hardware\n- [ ] nails\n")
        defer { withExtendedLifetime(otherDaemon) {} }
        let (sandbox, daemon, client) = try Older.start("# Pantry\n- [ ] rice\n- [ ] tea\n\n# Groceries\n- [ ] milk\n- [ ] eggs\n")
        defer { withExtendedLifetime(daemon) {} }
        let theirs = try other.read()
        #expect(theirs.contains("# Groceries <!-- listd id=1 "), "\(theirs)")
        try Self.saved(sandbox, daemon) { try shell(in: sandbox, "cp '\(other.file)' lists.md") }
        let after = try sandbox.read(when: { $0.contains("<!-- listd: not taken:") && $0.contains("Hardware <!-- listd") })
        let lists = try client.result("getLists")["lists"] as? [[String: Any]] ?? []
        #expect(lists.compactMap { $0["name"] as? String }.sorted() == ["Groceries", "Hardware", "Pantry"], "\(lists)")
        #expect(try Older.list(client, "Pantry").items == ["rice", "tea"], "this machine's list 1 is untouched")
        let groceries = try Older.list(client, "Groceries")
        #expect(groceries.items.sorted() == ["bread", "eggs", "milk"], "its bread added, eggs kept (its removal said)")
        #expect(groceries.checked == ["bread"])
        #expect(try Older.list(client, "Hardware").items == ["nails"])
        #expect(after.contains("“eggs”") && after.contains("Pantry"), "what the copy implies is said:\n\(after)")
        // Written back, every heading names this listd, none the other's.
        func tag(_ text: String) -> Set<Substring> {
            Set(text.split(separator: "\n").compactMap { line in line.firstRange(of: " of=").map { line[$0.upperBound...].prefix(8) } })
        }
        #expect(tag(after).count == 1 && tag(after) != tag(theirs), "\(after)")
    }

    /// Case 5: a buffer saved, listd restarted (an upgrade), the same buffer saved again with one
    /// more line: its own `## Fridge` and new list were refused as duplicates and marked out, and
    /// the file stopped showing the lists. Now the second save is read against the first across
    /// the restart (the change log keeps the saves' texts).
    @Test func aBufferSavedAgainAfterARestartIsReadAsBefore() throws {
        let (sandbox, daemon, client) = try Older.start("# Groceries\n- [ ] milk\n")
        defer { withExtendedLifetime(daemon) {} }
        let first = try sandbox.read() + "## Fridge\n- [ ] butter\n\n# Party\n- [ ] beer\n"
        _ = try Self.saved(sandbox, daemon) { try Self.write(first, over: sandbox) }
        #expect(daemon.stop() == 0)
        try daemon.start()
        let again = try LineConnection(path: sandbox.socket)
        try Self.saved(sandbox, daemon) { try Self.write(first + "- [ ] crisps\n", over: sandbox) }
        let after = try sandbox.read()
        #expect(!after.contains("not taken"), "\(after)")
        #expect(try Older.list(again, "Party").items == ["beer", "crisps"])
        let groceries = try again.result("getList", ["list": "Groceries"])
        #expect((groceries["sections"] as? [[String: Any]])?.count == 1, "\(groceries)")
        withExtendedLifetime(client) {}
    }

    /// Case 6: the person takes milk off and retypes eggs as "free-range eggs" while a phone
    /// ticks milk: read as one retype of milk, eggs went, free-range eggs never came, and the
    /// note blamed milk. Now milk stays (ticked: said), eggs go, free-range eggs are added.
    @Test func aRemovedLineBesideARetypedOneIsNotOneRetype() throws {
        let (sandbox, daemon, client) = try Older.start("# Groceries\n- [ ] rice\n- [ ] milk\n- [ ] eggs\n- [ ] tea\n")
        defer { withExtendedLifetime(daemon) {} }
        let read = try sandbox.read()
        _ = try client.result("checkItem", ["list": "Groceries", "item": "milk"])
        _ = try sandbox.read(when: { $0.contains("[x] milk") })
        let edited = read.replacing("- [ ] milk\n", with: "").replacing("- [ ] eggs", with: "- [ ] free-range eggs")
        try Self.saved(sandbox, daemon) { try Self.write(edited, over: sandbox) }
        let after = try sandbox.read(when: { $0.contains("“milk”") })
        let list = try Older.list(client, "Groceries")
        #expect(list.items.contains("milk") && list.checked == ["milk"], "\(list)")
        #expect(list.items.contains("free-range eggs") && !list.items.contains("eggs"), "\(list.items)")
        #expect(after.contains("“milk”"), "\(after)")
    }
}
