import Foundation
import Testing

/// Issue 46: every save is merged against what its author saw — the lists at the revision its
/// headings name, rebuilt from the history on disk — whoever else saved, however old the copy,
/// across restarts. Each case as a household hits it, with the real listd and real editors (vim
/// in tmux answering its prompt, `sed -i`, `cp`), in the order the people did it.
@Suite(.serialized) struct MergeBaseTests {
    typealias Older = OlderCopyTests

    static func items(_ client: LineConnection, _ list: String = "Pantry") throws -> [String] { try Older.list(client, list).items }

    /// A client's edit, and listd's rewrite of the file after it (the fence: a copy read before
    /// it is then one rewrite older, as an editor open meanwhile is).
    static func edit(_ client: LineConnection, _ sandbox: Sandbox, _ method: String, _ params: [String: Any]) throws {
        let revision = try #require(try client.result(method, params)["revision"] as? Int)
        _ = try sandbox.lines(writtenAt: revision)
    }

    /// Case 1: A opens the file in vim; B ticks oats, adds salt and a list with `sed -i`, and
    /// listd takes that in; A ticks rice and writes the copy read before B's save ("write anyway?
    /// y"). Nothing of B's is undone.
    @Test func twoPeopleSavingKeepBothSaves() async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- rice\n- oats\n")
            defer { withExtendedLifetime(daemon) {} }
            let vim = try Older.VimInTmux(sandbox.file)
            try Older.waitUntil("vim to show the file") { try vim.screen().contains("oats") }
            try shell(in: sandbox, #"sed -i 's/^- \(\[ \] \)\{0,1\}oats$/- [x] oats\n- salt/; $a \\n# Hardware\n- nails' lists.md"#)
            try Older.waitUntil("B's save to be taken in") {
                let hardware = (try? client.result("getList", ["list": "Hardware"])) != nil
                return try hardware && Self.items(client).contains("salt")
            }
            // And written back by listd (the new list's heading gets its id): then A writes.
            _ = try sandbox.read(when: { $0.contains("# Hardware <!-- listd id=") }, timeout: 10)
            try vim.type(":%s/^- rice/- [x] rice/", "Enter")
            try vim.type(":w", "Enter")
            try Older.waitUntil("vim's warning that the file changed") { try vim.screen().contains("Do you really want to write to it") }
            try vim.type("y", "Enter")
            try Older.waitUntil("A's tick to be taken in") { try Older.list(client, "Pantry").checked.contains("rice") }
            let pantry = try Older.list(client, "Pantry")
            #expect(pantry.items == ["rice", "oats", "salt"], "\(pantry)")
            #expect(Set(pantry.checked) == ["rice", "oats"], "\(pantry)")
            #expect(try Self.items(client, "Hardware") == ["nails"])
            #expect(!daemon.logOutput.contains("removed “salt”") && !daemon.logOutput.contains("deleted"), "\(daemon.logOutput)")
        }
    }

    /// Case 2: a copy read 16, 50 and 500 changes ago (an editor open over lunch), written back
    /// with a tick: what was taken off, renamed or cleared meanwhile stays so.
    @Test(arguments: [16, 50, 500])
    func anOldCopyBringsNothingBack(changesAgo: Int) async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- rice\n- milk\n- pears\n- eggs\n")
            defer { withExtendedLifetime(daemon) {} }
            try shell(in: sandbox, "cp lists.md copy.md")
            try Self.edit(client, sandbox, "removeItem", ["list": "Pantry", "item": "milk"])
            try Self.edit(client, sandbox, "replaceItem", ["list": "Pantry", "item": "pears", "with": "nashi pears"])
            try Self.edit(client, sandbox, "checkItem", ["list": "Pantry", "item": "eggs"])
            try Self.edit(client, sandbox, "clearChecked", ["list": "Pantry"])
            for number in 0..<(changesAgo - 4) { try Self.edit(client, sandbox, "addItem", ["list": "Pantry", "item": "item \(number)"]) }
            try shell(in: sandbox, #"sed -i 's/^- \(\[ \] \)\{0,1\}rice$/- [x] rice/' copy.md && cp copy.md lists.md"#)
            try Older.waitUntil("the tick to be taken in") { try Older.list(client, "Pantry").checked == ["rice"] }
            let items = try Self.items(client)
            #expect(!items.contains("milk") && !items.contains("pears") && !items.contains("eggs"), "\(items)")
            #expect(items.contains("nashi pears") && items.count == 2 + changesAgo - 4, "\(items)")
        }
    }

    /// Case 3: listd restarts (SIGTERM: an upgrade; SIGKILL: a crash) between the person's read
    /// and their save: the removal made before the restart stays.
    @Test(arguments: [false, true])
    func aRestartBetweenReadAndSaveBringsNothingBack(killed: Bool) async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- rice\n- milk\n")
            defer { withExtendedLifetime(daemon) {} }
            try shell(in: sandbox, "cp lists.md copy.md")
            try Self.edit(client, sandbox, "removeItem", ["list": "Pantry", "item": "milk"])
            try Self.edit(client, sandbox, "addItem", ["list": "Pantry", "item": "salt"])
            if killed { daemon.kill() } else { daemon.stop() }
            try daemon.start()
            let after = try LineConnection(path: sandbox.socket)
            try shell(in: sandbox, #"sed -i 's/^- \(\[ \] \)\{0,1\}rice$/- [x] rice/' copy.md && cp copy.md lists.md"#)
            try Older.waitUntil("the tick to be taken in") { try Older.list(after, "Pantry").checked == ["rice"] }
            #expect(try Self.items(after) == ["rice", "salt"])
        }
    }

    /// Case 3: a save made while listd was stopped is read against its own `rev=`: the partner's
    /// salt stays, the removed milk stays removed, the tick is taken.
    @Test func aSaveWhileListdIsStoppedIsReadAgainstItsOwnRevision() async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- rice\n- milk\n")
            defer { withExtendedLifetime(daemon) {} }
            try shell(in: sandbox, "cp lists.md copy.md")
            _ = try client.result("removeItem", ["list": "Pantry", "item": "milk"])
            _ = try client.result("addItem", ["list": "Pantry", "item": "salt"])
            daemon.stop()
            try shell(in: sandbox, #"sed -i 's/^- \(\[ \] \)\{0,1\}rice$/- [x] rice/' copy.md && cp copy.md lists.md"#)
            try daemon.start()
            let after = try LineConnection(path: sandbox.socket)
            try Older.waitUntil("the tick to be taken in") { try Older.list(after, "Pantry").checked == ["rice"] }
            #expect(try Self.items(after) == ["rice", "salt"])
            #expect(!daemon.logOutput.contains("replaced “salt”") && !daemon.logOutput.contains("removed “salt”"), "\(daemon.logOutput)")
        }
    }

    /// Case 4: a copy whose notes a tool stripped is matched to the kept lists closest to it:
    /// nothing done since it was read is undone.
    @Test func aCopyWithItsNotesStrippedUndoesNothing() async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- rice\n- oats\n- milk\n- tea\n")
            defer { withExtendedLifetime(daemon) {} }
            try shell(in: sandbox, "cp lists.md copy.md")
            try Self.edit(client, sandbox, "addItem", ["list": "Pantry", "item": "salt"])
            try Self.edit(client, sandbox, "checkItem", ["list": "Pantry", "item": "oats"])
            try Self.edit(client, sandbox, "removeItem", ["list": "Pantry", "item": "milk"])
            try shell(in: sandbox, #"sed -i 's/ <!--.*-->//; s/^- \(\[ \] \)\{0,1\}rice$/- [x] rice/' copy.md && cp copy.md lists.md"#)
            try Older.waitUntil("the tick to be taken in") { try Older.list(client, "Pantry").checked.contains("rice") }
            let pantry = try Older.list(client, "Pantry")
            #expect(pantry.items == ["rice", "oats", "tea", "salt"], "\(pantry)")
            #expect(Set(pantry.checked) == ["rice", "oats"], "\(pantry)")
        }
    }

    /// Case 5: a backup restored over the file 20 changes later re-creates no deleted list and
    /// re-adds no removed item; listd writes the lists back over it.
    @Test func aBackupRestoredLaterBringsNothingBack() async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- rice\n- milk\n")
            defer { withExtendedLifetime(daemon) {} }
            _ = try client.result("createList", ["name": "Hardware", "items": ["nails"]])
            _ = try sandbox.read(when: { $0.contains("nails") })
            try shell(in: sandbox, "cp lists.md lists.md.bak")
            try Self.edit(client, sandbox, "deleteList", ["list": "Hardware"])
            try Self.edit(client, sandbox, "removeItem", ["list": "Pantry", "item": "milk"])
            for number in 0..<18 { try Self.edit(client, sandbox, "addItem", ["list": "Pantry", "item": "item \(number)"]) }
            try shell(in: sandbox, "cp lists.md.bak lists.md")
            // The fence: listd writes the lists back over the backup (which lacks item 17).
            let text = try sandbox.read(when: { $0.contains("item 17") && !$0.contains("nails") }, timeout: 10)
            #expect(!text.contains("milk") && !text.contains("Hardware"), "\(text)")
            #expect((try? client.result("getList", ["list": "Hardware"])) == nil)
            #expect(try !Self.items(client).contains("milk"))
        }
    }

    /// Case 6: a file holding only a newline (an emptied buffer saved) deletes nothing: listd
    /// writes the lists back, as for a 0-byte file.
    @Test func aFileOfWhiteSpaceAloneIsWrittenBack() async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- rice\n- milk\n")
            defer { withExtendedLifetime(daemon) {} }
            try shell(in: sandbox, "printf '\\n  \\n' > lists.md")
            let text = try sandbox.read(when: { $0.contains("milk") }, timeout: 10)
            #expect(text.contains("# Pantry"), "\(text)")
            #expect(try Self.items(client) == ["rice", "milk"])
            #expect(!daemon.logOutput.contains("deleted Pantry") && !daemon.logOutput.contains("deleted “Pantry”"), "\(daemon.logOutput)")
        }
    }

    /// The sections of `list`, each with its items: "Dairy: milk, butter".
    static func sections(_ client: LineConnection, _ list: String = "Pantry") throws -> [String] {
        let got = try client.result("getList", ["list": list])
        return ((got["sections"] as? [[String: Any]]) ?? []).map { "\($0["name"] ?? ""): \((($0["items"] as? [String]) ?? []).joined(separator: ", "))" }
    }

    /// Case 7, with sed on an old copy: the `## Bakery` block moved above `## Dairy` takes rolls,
    /// added to Bakery meanwhile, with it; a line added under `## Dairy` after Dairy was renamed
    /// Fridge goes into Fridge; the last item moved under an empty section's `##` goes into it
    /// though an item was added after it meanwhile.
    @Test func sectionsAreThemselvesInAnOldCopy() async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n## Dairy\n- milk\n- butter\n## Bakery\n- bread\n## Tins\n")
            defer { withExtendedLifetime(daemon) {} }
            try shell(in: sandbox, "cp lists.md copy.md")
            try Self.edit(client, sandbox, "addItem", ["list": "Pantry", "item": "rolls", "section": "Bakery"])
            try Self.edit(client, sandbox, "addItem", ["list": "Pantry", "item": "cream", "section": "Dairy"])
            // The Bakery block above Dairy.
            try shell(in: sandbox, #"sed -i '/^## Bakery/,/bread$/d; /^## Dairy/i ## Bakery\n- [ ] bread' copy.md && cp copy.md lists.md"#)
            try Older.waitUntil("the block move to be taken in") { try Self.sections(client).first?.hasPrefix("Bakery") == true }
            var sections = try Self.sections(client)
            #expect(sections == ["Bakery: bread, rolls", "Dairy: milk, butter, cream", "Tins: "], "\(sections)")

            // Dairy renamed Fridge at home; a copy read before (once listd wrote the file) adds
            // cheese under ## Dairy.
            _ = try sandbox.read(when: { $0.contains("## Bakery\n- [ ] bread\n- [ ] rolls\n") })
            try shell(in: sandbox, "cp lists.md copy.md")
            try Self.edit(client, sandbox, "renameSection", ["list": "Pantry", "section": "Dairy", "to": "Fridge"])
            try shell(in: sandbox, #"sed -i 's/^- \(\[ \] \)\{0,1\}milk$/- milk\n- cheese/' copy.md && cp copy.md lists.md"#)
            try Older.waitUntil("cheese to be added") { try Self.items(client).contains("cheese") }
            sections = try Self.sections(client)
            #expect(sections.count == 3 && sections[1].hasPrefix("Fridge: ") && sections[1].contains("cheese"), "\(sections)")

            // The last item of Fridge (cream) moved under the empty ## Tins in a copy read before
            // yoghurt was added to Fridge.
            _ = try sandbox.read(when: { $0.contains("## Fridge") && $0.contains("cheese") })
            try shell(in: sandbox, "cp lists.md copy.md")
            try Self.edit(client, sandbox, "addItem", ["list": "Pantry", "item": "yoghurt", "section": "Fridge"])
            try shell(in: sandbox, #"sed -i '/cream$/d; s/^## Tins.*$/&\n- [ ] cream/' copy.md && cp copy.md lists.md"#)
            try Older.waitUntil("cream to move") { try Self.sections(client).last?.contains("cream") == true }
            sections = try Self.sections(client)
            #expect(sections.last == "Tins: cream", "\(sections)")
        }
    }

    /// Case 8, with sed on an old copy: a tick of an item taken off meanwhile is reported naming
    /// it (not the item renamed next to it), and said again when the same stale copy is saved
    /// again.
    @Test func whatIsNotTakenIsSaidNamingTheRightItemAndSaidAgain() async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- pears\n- tea\n")
            defer { withExtendedLifetime(daemon) {} }
            let subscriber = try LineConnection(path: sandbox.socket)
            _ = try subscriber.result("subscribe", ["events": ["didRejectFileEdit"]])
            try shell(in: sandbox, "cp lists.md copy.md")
            try Self.edit(client, sandbox, "removeItem", ["list": "Pantry", "item": "pears"])
            try Self.edit(client, sandbox, "replaceItem", ["list": "Pantry", "item": "tea", "with": "green tea"])
            try shell(in: sandbox, #"sed -i 's/^- \(\[ \] \)\{0,1\}pears$/- [x] pears/' copy.md"#)
            for _ in 0..<2 {
                try shell(in: sandbox, "cp copy.md lists.md")
                let rejection = try subscriber.readObject()
                let messages = ((rejection["params"] as? [String: Any])?["lines"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
                #expect(messages.contains { $0.contains("“pears” was taken off Pantry") }, "\(messages)")
                #expect(!messages.contains { $0.contains("green tea") }, "\(messages)")
                _ = try sandbox.read(when: { $0.contains("not taken") })
            }
            #expect(try Self.items(client) == ["green tea"])
        }
    }
}

extension MergeBaseTests {
    /// The soak's seeds 752175798 and 2633312658: a person added pepper from a copy of listd's
    /// text, and, listd stopped, took it out again — their buffer now byte for byte listd's text
    /// from before. The start recognised that older text by its note as listd's own and wrote
    /// the lists over it: pepper stayed, without a word. A text written after listd's last word
    /// in its own files is a save, whatever listd wrote before.
    @Test func aRevertToListdsOwnEarlierTextWhileStoppedIsASave() async throws {
        try await offThePool {
            let (sandbox, daemon, client) = try Older.start("# Pantry\n- rice\n- milk\n")
            defer { withExtendedLifetime(daemon) {} }
            try shell(in: sandbox, "cp lists.md copy.md && cp lists.md buffer.md && echo '- [ ] pepper' >> buffer.md && cp buffer.md lists.md")
            try Older.waitUntil("pepper to be taken in") { try Older.list(client, "Pantry").items.contains("pepper") }
            daemon.stop()
            try shell(in: sandbox, "cp copy.md lists.md")
            try daemon.start()
            let after = try LineConnection(path: sandbox.socket)
            let items = try Older.list(after, "Pantry").items
            let file = try String(contentsOfFile: sandbox.file, encoding: .utf8)
            #expect(!items.contains("pepper") || file.contains("“pepper”"), "\(items)\n\(file)")
        }
    }
}
