import Foundation
import Glibc
import Testing

/// The list file as a person edits it, with real tools, under a running listd.
@Suite(.offThePool) struct FileEditingTests {
    /// What a person wrote before listd ever ran.
    static let handWritten = """
        Notes at the top.

        # Groceries
        - milk
        - eggs

        Between lists: remember the coupons.

        # Hardware
        - nails

        """

    /// The same file once listd has tied each heading to its list.
    static let base = """
        Notes at the top.

        # Groceries <!-- listd id=1 -->
        - milk
        - eggs

        Between lists: remember the coupons.

        # Hardware <!-- listd id=2 -->
        - nails

        """

    /// A running listd on the hand-written file, and a subscriber that has seen nothing yet.
    struct Setup {
        var sandbox: Sandbox
        var daemon: Daemon
        var subscriber: LineConnection

        init() throws {
            sandbox = try Sandbox()
            try FileEditingTests.handWritten.write(toFile: sandbox.file, atomically: true, encoding: .utf8)
            daemon = try Daemon.start(in: sandbox)
            subscriber = try LineConnection(path: sandbox.socket)
            #expect(try subscriber.result("subscribe")["revision"] as? Int == 0)
            #expect(try sandbox.lines(writtenAt: 0) == FileEditingTests.base)
        }

        /// Exactly `count` notifications, and then nothing: after a quiet wait, subscribing
        /// again is answered before anything else, with the revision of the last notification
        /// (a marker that changes nothing: these tests pin revisions and the file's text).
        func notifications(_ count: Int) throws -> [[String: Any]] {
            var notes: [[String: Any]] = []
            for _ in 0..<count { notes.append(try subscriber.readObject()) }
            let fence = try subscriber.firstMessage(afterQuiet: 0.5) {
                try subscriber.send(#"{"jsonrpc":"2.0","id":"fence","method":"subscribe"}"#)
            }
            #expect(fence["id"] as? String == "fence", "more notifications than \(count): \(fence)")
            // (A rejected line is notified without a revision: the last change's is compared.)
            if let last = notes.compactMap(FileEditingTests.revision).last {
                #expect(
                    (fence["result"] as? [String: Any])?["revision"] as? Int == last,
                    "the lists changed after the last notification"
                )
            }
            return notes
        }

        /// Runs a shell command line the way a person would.
        func shell(_ command: String) throws {
            try IntegrationTests.shell(in: sandbox, command)
        }

        func lists() throws -> [[String: Any]] {
            try LineConnection(path: sandbox.socket).result("getLists")["lists"] as? [[String: Any]] ?? []
        }
    }

    /// The revision a notification says the lists are at.
    static func revision(_ note: [String: Any]) -> Int? {
        (note["params"] as? [String: Any])?["revision"] as? Int
    }

    static func summary(_ note: [String: Any]) -> String {
        let params = note["params"] as? [String: Any] ?? [:]
        let list = params["list"] as? [String: Any] ?? [:]
        let changes = (params["changes"] as? [[String: Any]] ?? []).map { change in
            change.keys.sorted().filter { $0 != "op" }.map { "\($0)=\(change[$0]!)" }.joined(separator: ",")
        }
        let origin = (params["origin"] as? [String: Any])?["kind"] as? String ?? "?"
        return
            "\(note["method"]!) #\(params["revision"]!) \(list["name"]!) \(changes.joined(separator: ";")) by \(origin)"
    }

    /// An in-place save racing listd's rewrite (issue 59): the editor opened the file, listd then
    /// swapped its text in for a client's edit, and the editor truncates and writes through what
    /// it opened. The save lands in the file swapped out: listd puts it back and takes it in,
    /// keeping the client's edit the copy never showed. (Before, it was lost without a word.)
    @Test func anInPlaceSaveThroughAFileOpenedBeforeListdsRewriteIsTakenIn() throws {
        let setup = try Setup()
        // Closed once, by the save or by the defer on a throw: a second close(2) could close a
        // descriptor another test running alongside has just opened (it did, in CI).
        let editor = open(setup.sandbox.file, O_RDWR | O_CLOEXEC)
        try #require(editor >= 0)
        var editorOpen = true
        defer { if editorOpen { close(editor) } }
        _ = try LineConnection(path: setup.sandbox.socket).result("addItem", ["list": 1, "item": "bread"])
        // The rewrite is made (the file shows bread) while the editor still holds the old file.
        let deadline = Date().addingTimeInterval(10)
        while try !setup.sandbox.readLines().contains("- [ ] bread"), Date() < deadline { usleep(10_000) }
        #expect(try setup.sandbox.readLines().contains("- [ ] bread"))
        let save = Array(Self.base.replacingOccurrences(of: "- nails", with: "- nails\n- glue").utf8)
        #expect(ftruncate(editor, 0) == 0 && pwrite(editor, save, save.count, 0) == save.count)
        close(editor)
        editorOpen = false
        var items: [String: [String]] = [:]
        while Date() < deadline.addingTimeInterval(5) {
            items = Dictionary(uniqueKeysWithValues: try setup.lists().map { ($0["name"] as! String, $0["items"] as? [String] ?? []) })
            if items["Hardware"]?.contains("glue") == true { break }
            usleep(20_000)
        }
        #expect(items["Hardware"] == ["nails", "glue"], "the save through the old file was lost: \(items)")
        #expect(items["Groceries"] == ["milk", "eggs", "bread"], "\(items)")
        // The file is written again to show the lists: bread back beside the person's glue.
        var shown = try setup.sandbox.readLines()
        while !(shown.contains("- glue") && shown.contains("bread")), Date() < deadline.addingTimeInterval(10) {
            usleep(20_000)
            shown = try setup.sandbox.readLines()
        }
        #expect(shown.contains("- glue") && shown.contains("bread"), "\(shown)")
    }

    @Test func vimWithBackupcopyYesReplacesAnItemInPlace() throws {
        let setup = try Setup()
        try setup.shell("vim -Nu NONE -n -es -c 'set backupcopy=yes' -c '%s/^- eggs$/- duck eggs/' -c 'wq' lists.md")
        let notes = try setup.notifications(1)
        #expect(notes.map(Self.summary) == ["didUpdateShoppingList #1 Groceries item=eggs,with=duck eggs by file"])
        // listd did not need to rewrite the file: it is exactly what vim wrote.
        #expect(try setup.sandbox.readLines() == Self.base.replacingOccurrences(of: "- eggs", with: "- duck eggs"))
    }

    @Test func vimWithBackupcopyNoAddsAnItemWhereItWasTyped() throws {
        let setup = try Setup()
        try setup.shell(
            "vim -Nu NONE -n -es -c 'set backupcopy=no writebackup' -c '/^- milk/s/$/\\r- bread/' -c 'wq' lists.md"
        )
        let notes = try setup.notifications(1)
        #expect(notes.map(Self.summary) == ["didUpdateShoppingList #1 Groceries item=bread by file"])
        #expect(try setup.lists().first?["items"] as? [String] == ["milk", "bread", "eggs"])
        #expect(try setup.sandbox.readLines() == Self.base.replacingOccurrences(of: "- milk\n", with: "- milk\n- bread\n"))
        #expect(!FileManager.default.fileExists(atPath: setup.sandbox.path + "/lists.md~"))
    }

    @Test func vimWithItsDefaultsProbesWith4913AndIsSeenOnce() throws {
        let setup = try Setup()
        // backupcopy=auto: vim first creates and deletes a file named 4913 to test the directory.
        try setup.shell("vim -Nu NONE -n -es -c '%s/^- milk$/- whole milk/' -c 'wq' lists.md")
        #expect(
            try setup.notifications(1).map(Self.summary) == [
                "didUpdateShoppingList #1 Groceries item=milk,with=whole milk by file"
            ]
        )
        #expect(try setup.sandbox.readLines() == Self.base.replacingOccurrences(of: "- milk", with: "- whole milk"))
        #expect(!FileManager.default.fileExists(atPath: setup.sandbox.path + "/4913"))
    }

    @Test func sedInPlaceRemovesAnItem() throws {
        let setup = try Setup()
        try setup.shell("sed -i '/^- nails$/d' lists.md")
        #expect(
            try setup.notifications(1).map(Self.summary) == ["didUpdateShoppingList #1 Hardware item=nails by file"]
        )
        #expect(try setup.lists().last?["items"] as? [String] == [])
    }

    @Test func aChangedHeadingIsARenameOfTheSameList() throws {
        let setup = try Setup()
        try setup.shell("sed -i 's/^# Groceries/# Food/' lists.md")
        let notes = try setup.notifications(1)
        #expect(notes.map(Self.summary) == ["didRenameShoppingList #1 Food from=Groceries,to=Food by file"])
        #expect(try setup.lists().first?["id"] as? Int == 1)
    }

    @Test func mvOverTheFileAppliesEveryChangeInFileOrder() throws {
        let setup = try Setup()
        let edited = Self.base
            .replacingOccurrences(
                of: "# Hardware <!-- listd id=2 -->\n- nails",
                with: "# Tools <!-- listd id=2 -->\n- hammer\n- nails"
            )
            .replacingOccurrences(of: "- milk\n", with: "")
        try edited.write(toFile: setup.sandbox.path + "/draft.md", atomically: false, encoding: .utf8)
        try setup.shell("mv draft.md lists.md")
        #expect(
            try setup.notifications(3).map(Self.summary) == [
                "didUpdateShoppingList #1 Groceries item=milk by file",
                "didRenameShoppingList #2 Tools from=Hardware,to=Tools by file",
                "didUpdateShoppingList #3 Tools item=hammer by file",
            ]
        )
        #expect(try setup.sandbox.readLines() == edited)
    }

    @Test func cpOverTheFileCreatesAList() throws {
        let setup = try Setup()
        try (Self.base + "\n# Party\n- cake\n- balloons\n").write(
            toFile: setup.sandbox.path + "/other.md",
            atomically: false,
            encoding: .utf8
        )
        try setup.shell("cp other.md lists.md")
        let notes = try setup.notifications(1)
        #expect(notes.map(Self.summary) == ["didCreateShoppingList #1 Party  by file"])
        let list = (notes[0]["params"] as? [String: Any])?["list"] as? [String: Any]
        #expect(list?["items"] as? [String] == ["cake", "balloons"])
        #expect(list?["id"] as? Int == 3)
        // The new heading is tied to its list in the file.
        #expect(try setup.sandbox.lines(writtenAt: 1) == Self.base + "\n# Party <!-- listd id=3 -->\n- cake\n- balloons\n")
    }

    @Test func aTruncateFollowedByADelayedWriteNeverMakesListsVanish() throws {
        let setup = try Setup()
        let edited = Self.base.replacingOccurrences(of: "- eggs\n", with: "- eggs\n- jam\n")
        try edited.write(toFile: setup.sandbox.path + "/new.md", atomically: false, encoding: .utf8)
        try setup.shell(": > lists.md; sleep 0.6; cat new.md > lists.md")
        #expect(try setup.notifications(1).map(Self.summary) == ["didUpdateShoppingList #1 Groceries item=jam by file"])
        #expect(try setup.sandbox.readLines() == edited)
    }

    @Test func aWriterThatPausesMidSaveIsWaitedFor() throws {
        let setup = try Setup()
        let edited = Self.base.replacingOccurrences(of: "- nails\n", with: "- nails\n- glue\n")
        let middle = edited.index(edited.startIndex, offsetBy: edited.count / 2)
        try String(edited[..<middle]).write(toFile: setup.sandbox.path + "/part1", atomically: false, encoding: .utf8)
        try String(edited[middle...]).write(toFile: setup.sandbox.path + "/part2", atomically: false, encoding: .utf8)
        // Half the file, a pause far longer than the quiet period, the rest, then the close.
        try setup.shell("exec 3>lists.md; cat part1 >&3; sleep 0.5; cat part2 >&3; exec 3>&-")
        #expect(try setup.notifications(1).map(Self.summary) == ["didUpdateShoppingList #1 Hardware item=glue by file"])
        #expect(try setup.sandbox.readLines() == edited)
    }

    /// Writes into the file are seen on the file itself (its inode, watched again whenever a new
    /// file takes the name: listd's own first write here replaced it): a program that writes and
    /// keeps the file open is read once it has gone quiet, with no close to announce it.
    @Test func aWriteIntoTheFileThatIsNeverClosedIsReadOnceQuiet() throws {
        let setup = try Setup()
        try setup.shell(
            "sh -c 'exec 3>>lists.md; printf -- \"- glue\\n\" >&3; echo $$ > writer.pid; exec sleep 30' >/dev/null 2>&1 &"
        )
        defer { try? setup.shell("kill $(cat writer.pid)") }
        #expect(try setup.notifications(1).map(Self.summary) == ["didUpdateShoppingList #1 Hardware item=glue by file"])
    }

    /// An emptied file (truncated, and nothing written after) is written back once it has stayed
    /// empty for 2 s, the time a save in progress gets to fill it; nothing is lost or notified.
    @Test func anEmptiedFileIsWrittenBackAfterTwoSeconds() throws {
        let setup = try Setup()
        let emptied = Date()
        try setup.shell(": > lists.md")
        let text = try setup.sandbox.read(when: { $0.withoutRevisions == Self.base }, timeout: 10).withoutRevisions
        let waited = Date().timeIntervalSince(emptied)
        #expect(text == Self.base, "written back")
        // A lower bound only: a slow machine makes the wait longer, never shorter.
        #expect(waited >= 1.9, "written back after \(waited) s, inside the 2 s a save gets")
        #expect(try setup.notifications(0).isEmpty)
        #expect(try setup.lists().count == 2)
    }

    @Test func deletingTheFileDoesNotDeleteTheLists() throws {
        let setup = try Setup()
        try setup.shell("rm lists.md")
        var restored = false
        for _ in 0..<100 where !restored {
            usleep(50_000)
            restored = (try? setup.sandbox.readLines()) == Self.base
        }
        #expect(restored)
        #expect(try setup.notifications(0).isEmpty)
        #expect(try setup.lists().count == 2)
        #expect(setup.daemon.logShows("was deleted; writing the lists back"))
    }

    @Test func aDuplicateTypedByHandIsReportedAndMarkedInTheFile() throws {
        let setup = try Setup()
        try setup.shell("sed -i 's/^- eggs$/- eggs\\n- MILK \\n- bread/' lists.md")
        let notes = try setup.notifications(2)
        #expect(Self.summary(notes[0]) == "didUpdateShoppingList #1 Groceries item=bread by file")
        #expect(notes[1]["method"] as? String == "didRejectFileEdit")
        let params = try #require(notes[1]["params"] as? [String: Any])
        #expect(params["reason"] as? String == "linesNotTaken")
        let line = try #require((params["lines"] as? [[String: Any]])?.first)
        #expect(line["line"] as? Int == 6)
        #expect(line["text"] as? String == "- MILK ")
        #expect(line["reason"] as? String == "itemExists")
        #expect(line["message"] as? String == "“milk” is already on Groceries.")
        #expect(
            try setup.sandbox.readLines()
                == Self.base.replacingOccurrences(
                    of: "- eggs\n",
                    with:
                        "- eggs\n<!-- listd: not taken: “milk” is already on Groceries. You wrote: - MILK  -->\n- bread\n"
                )
        )
        #expect(
            setup.daemon.logShows("not taken from the list file, line 6: “milk” is already on Groceries.")
        )
    }

    @Test func aFileThatIsNotUTF8IsNeverOverwrittenAndEditsWaitForTheFix() throws {
        let setup = try Setup()
        var bad = Array(Self.base.utf8)
        bad.insert(0xFF, at: 20)
        try Data(bad).write(to: URL(fileURLWithPath: setup.sandbox.path + "/bad.md"))
        try setup.shell("cp bad.md lists.md")
        let notes = try setup.notifications(1)
        #expect(notes[0]["method"] as? String == "didRejectFileEdit")
        let params = notes[0]["params"] as? [String: Any]
        #expect(params?["reason"] as? String == "fileInvalid")
        #expect(params?["byteOffset"] as? Int == 20)
        #expect(setup.daemon.logShows("Line 3 is not UTF-8 text"))

        let client = try LineConnection(path: setup.sandbox.socket)
        let denial = try client.error("addItem", ["list": 1, "item": "tea"])
        #expect(denial["code"] as? Int == 1008)
        #expect((denial["data"] as? [String: Any])?["reason"] as? String == "fileInvalid")
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.sandbox.file)) == Data(bad))
        // Reads still work, from the last good state.
        #expect(try client.result("getList", ["list": 1])["items"] as? [String] == ["milk", "eggs"])

        // The person fixes the file (and adds an item): listd takes it in and edits work again.
        try Self.base.replacingOccurrences(of: "- nails", with: "- nails\n- glue").write(
            toFile: setup.sandbox.file,
            atomically: false,
            encoding: .utf8
        )
        #expect(try setup.notifications(1).map(Self.summary) == ["didUpdateShoppingList #1 Hardware item=glue by file"])
        _ = try client.result("addItem", ["list": 1, "item": "tea"])
    }

    @Test func notesAndOrderSurviveEditsFromBothSides() throws {
        let setup = try Setup()
        let client = try LineConnection(path: setup.sandbox.socket)
        _ = try client.result("addItem", ["list": "Groceries", "item": "bread"])
        _ = try client.result("removeItem", ["list": "Hardware", "item": "nails"])
        _ = try client.result("createList", ["name": "Party", "items": ["cake"]])
        let created = try #require(try setup.notifications(3).last.flatMap(Self.revision))
        let expected = """
            Notes at the top.

            # Groceries <!-- listd id=1 -->
            - milk
            - eggs
            - [ ] bread

            Between lists: remember the coupons.

            # Hardware <!-- listd id=2 -->

            # Party <!-- listd id=3 -->
            - [ ] cake

            """
        #expect(try setup.sandbox.lines(writtenAt: created) == expected)
        // A person's edit between the lists keeps everything else as it was.
        try setup.shell(
            "sed -i 's/^Between lists: remember the coupons./Between lists: coupons are in the drawer./' lists.md"
        )
        #expect(try setup.notifications(0).isEmpty)
        _ = try client.result("deleteList", ["list": "Hardware"])
        let deleted = try #require(try setup.notifications(1).last.flatMap(Self.revision))
        #expect(
            try setup.sandbox.lines(writtenAt: deleted)
                == expected
                .replacingOccurrences(of: "remember the coupons.", with: "coupons are in the drawer.")
                .replacingOccurrences(of: "# Hardware <!-- listd id=2 -->\n\n", with: "")
        )
    }

    @Test func aHundredSavesInABurstAreEachApplied() throws {
        let setup = try Setup()
        try setup.shell("for i in $(seq 1 100); do printf -- '- item %s\\n' $i >> lists.md; done")
        let notes = try setup.notifications(100)
        #expect(
            notes.map(Self.summary) == (1...100).map { "didUpdateShoppingList #\($0) Hardware item=item \($0) by file" }
        )
        #expect(try setup.sandbox.readLines() == Self.base + (1...100).map { "- item \($0)\n" }.joined())
    }

    @Test func listdsOwnWritesAreNotEchoed() throws {
        let setup = try Setup()
        let client = try LineConnection(path: setup.sandbox.socket)
        for item in ["tea", "coffee", "cocoa"] { _ = try client.result("addItem", ["list": 1, "item": item]) }
        let notes = try setup.notifications(3)
        #expect(
            notes.map(Self.summary) == [
                "didUpdateShoppingList #1 Groceries item=tea by client",
                "didUpdateShoppingList #2 Groceries item=coffee by client",
                "didUpdateShoppingList #3 Groceries item=cocoa by client",
            ]
        )
    }

    /// listd tells its own writes of the file from a person's (the rename from its temp file):
    /// they are never reported as saves to be read. The watcher logs each save it reports; with
    /// no settle wait, a write of listd's taken for a save would be its own report, before the
    /// person's save that follows as the marker.
    @Test func listdsOwnWritesAreNotReportedAsSaves() throws {
        let sandbox = try Sandbox()
        try Self.handWritten.write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox, arguments: ["--log-level", "debug", "--settle-ms", "0"])
        let client = try LineConnection(path: sandbox.socket)
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")
        for item in ["tea", "coffee", "cocoa"] { _ = try client.result("addItem", ["list": 1, "item": item]) }
        for _ in 0..<3 { _ = try subscriber.readObject() }
        let written = try sandbox.read { $0.contains("- [ ] cocoa\n") }
        #expect(written.contains("- [ ] cocoa\n"), "listd wrote the file")
        // The marker: a person's save, reported once. It is one rename (mv), written and closed
        // before: with no settle wait, a writer that closes the file after renaming it (as
        // Foundation's atomic write does) makes two reports of one save.
        let draft = sandbox.path + "/draft.md"
        try written.replacingOccurrences(of: "- nails", with: "- glue").write(
            toFile: draft,
            atomically: false,
            encoding: .utf8
        )
        #expect(rename(draft, sandbox.file) == 0, "mv draft.md lists.md")
        #expect(
            Self.summary(try subscriber.readObject())
                == "didUpdateShoppingList #4 Hardware item=nails,with=glue by file"
        )
        #expect(daemon.logShows("list file settled"))
        let reports = daemon.logOutput.components(separatedBy: "list file settled").count - 1
        #expect(reports == 1, "\(reports) saves reported: listd's own writes were taken for saves\n\(daemon.logOutput)")
    }

    @Test func aPersonsSaveIsTakenInBeforeListdsOwnEdit() throws {
        let setup = try Setup()
        let client = try LineConnection(path: setup.sandbox.socket)
        // The save is written (its write has returned) before the edit is sent: the save is
        // revision 1, the edit 2, although the save still has its settle wait to go.
        try Self.base.replacingOccurrences(of: "- nails", with: "- nails\n- glue").write(
            toFile: setup.sandbox.file,
            atomically: false,
            encoding: .utf8
        )
        let reply = try client.result("addItem", ["list": "Groceries", "item": "tea"])
        #expect(reply["items"] as? [String] == ["milk", "eggs", "tea"])
        #expect(reply["revision"] as? Int == 2, "the edit came second")
        #expect(
            try setup.notifications(2).map(Self.summary) == [
                "didUpdateShoppingList #1 Hardware item=glue by file",
                "didUpdateShoppingList #2 Groceries item=tea by client",
            ]
        )
        let text = try setup.sandbox.read { $0.contains("- eggs\n- [ ] tea\n") }
        #expect(text.contains("- nails\n- glue\n"))
        #expect(text.contains("- eggs\n- [ ] tea\n"))
    }

    @Test func aSymlinkedListFileIsFollowedAndStaysALink() throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.path + "/real", withIntermediateDirectories: true)
        try Self.handWritten.write(toFile: sandbox.path + "/real/lists.md", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.file,
            withDestinationPath: sandbox.path + "/real/lists.md"
        )
        let daemon = try Daemon.start(in: sandbox)
        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("subscribe")
        try Self.base.replacingOccurrences(of: "- nails", with: "- glue").write(
            toFile: sandbox.path + "/real/lists.md",
            atomically: true,
            encoding: .utf8
        )
        let note = try client.readObject()
        #expect(Self.summary(note) == "didUpdateShoppingList #1 Hardware item=nails,with=glue by file")
        _ = try client.result("addItem", ["list": 1, "item": "tea"])
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: sandbox.file) == sandbox.path + "/real/lists.md"
        )
        #expect(try sandbox.read { $0.contains("- eggs\n- [ ] tea\n") }.contains("- eggs\n- [ ] tea\n"))
        _ = daemon
    }

    @Test func editsMadeWhileListdWasStoppedAreTakenInAtStart() throws {
        let setup = try Setup()
        #expect(setup.daemon.stop() == 0)
        try setup.shell("sed -i 's/^- milk$/- oat milk/' lists.md")
        try setup.daemon.start()
        let client = try LineConnection(path: setup.sandbox.socket)
        let lists = try client.result("getLists")
        #expect(lists["revision"] as? Int == 1)
        #expect((lists["lists"] as? [[String: Any]])?.first?["items"] as? [String] == ["oat milk", "eggs"])
        #expect(
            setup.daemon.logShows(
                "replaced “milk” with “oat milk” on Groceries (revision 1, by the list file)"
            )
        )
    }

    @Test func listctlWatchShowsFileMadeChangesWithTheirOrigin() throws {
        let setup = try Setup()
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--socket", setup.sandbox.socket])
        defer { watch.signal(SIGTERM) }
        let reader = LineReader(watch.stdout)
        #expect(try reader.line().hasPrefix("Watching 2 lists"))
        try setup.shell("sed -i 's/^- eggs$/- eggs\\n- eggs/' lists.md && sed -i 's/^- nails$/- screws/' lists.md")
        var lines: [String] = []
        for _ in 0..<2 { lines.append(try reader.line()) }
        #expect(lines.contains("List file edit not taken: line 6: “eggs” is already on Groceries."))
        #expect(lines.contains("#1 Hardware: replaced “nails” with “screws” (by the list file)"))
    }
}

/// A queue overflow makes listd re-read the whole file: nothing is missed.
@Suite(.offThePool, .serialized) struct InotifyOverflowTests {
    static let limitPath = "/proc/sys/fs/inotify/max_queued_events"
    static var canLowerTheLimit: Bool { access(limitPath, W_OK) == 0 }

    static let lowerTheLimit = "root, to lower fs.inotify.max_queued_events"
    /// The limit as it was, kept while it is lowered: a test process that dies then leaves it
    /// here, and the next run puts it back before anything else.
    static let savedLimitPath = "/var/tmp/listd-tests-inotify-limit.saved"

    static func restoreALimitLeftLowered() throws {
        guard let saved = try? String(contentsOfFile: savedLimitPath, encoding: .utf8) else { return }
        try saved.write(toFile: limitPath, atomically: false, encoding: .utf8)
        unlink(savedLimitPath)
    }

    @Test(.enabled(if: Requirement.runs(canLowerTheLimit, needing: lowerTheLimit)))
    func anOverflowedQueueStillMissesNoChange() throws {
        try Requirement.check(Self.canLowerTheLimit, needing: Self.lowerTheLimit)
        let sandbox = try Sandbox()
        try FileEditingTests.handWritten.write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        // The limit applies to inotify instances created while it is set: only this listd's,
        // as other tests wait for the lock before making theirs.
        let lock = InotifyLimitLock(.exclusive)
        try Self.restoreALimitLeftLowered()
        let original = try String(contentsOfFile: Self.limitPath, encoding: .utf8)
        try original.write(toFile: Self.savedLimitPath, atomically: true, encoding: .utf8)
        try "4\n".write(toFile: Self.limitPath, atomically: false, encoding: .utf8)
        let daemon = Daemon(sandbox)
        let started = Result { try daemon.startWithoutLock(arguments: ["--settle-ms", "200"]) }
        try Self.restoreALimitLeftLowered()
        lock.release()
        #expect(try String(contentsOfFile: Self.limitPath, encoding: .utf8) == original, "the limit is back")
        try started.get()

        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("subscribe")
        let script = "for i in $(seq 1 50); do printf -- '- item %s\\n' $i >> \(sandbox.file); done"
        #expect(try ChildProcess.run("/bin/sh", ["-c", script]).status == 0)
        var revisions: [Int] = []
        for _ in 0..<50 {
            revisions.append(try #require(FileEditingTests.revision(try client.readObject())))
        }
        #expect(revisions == Array(1...50))
        #expect(daemon.logShows("inotify queue overflowed"))
    }
}
