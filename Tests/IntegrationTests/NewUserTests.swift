// What a new user hit (issue 26): each test here failed before its fix, against the real listd,
// with real editors and real delegates.
import Foundation
import Glibc
import Testing

/// The `changes` of a list notification, each as "op item…".
private func steps(_ note: [String: Any]) -> [String] {
    let changes = (note["params"] as? [String: Any])?["changes"] as? [[String: Any]] ?? []
    return changes.map { change in
        ["op", "item", "index", "with"].compactMap { change[$0].map { "\($0)" } }.joined(separator: " ")
    }
}

/// Answers `count` questions on a delegate's connection, allowing those `allows` says yes to
/// (with the reason "no" otherwise); returns each as "method item".
private func answer(
    _ count: Int,
    on delegate: LineConnection,
    allowing allows: (_ method: String, _ item: String) -> Bool
) throws -> [String] {
    var asked: [String] = []
    for _ in 0..<count {
        let question = try delegate.readObject()
        let method = question["method"] as? String ?? "?"
        let item = (question["params"] as? [String: Any])?["item"] as? String ?? "?"
        asked.append("\(method) \(item)")
        let reply = allows(method, item) ? #"{"allow":true}"# : #"{"allow":false,"reason":"no"}"#
        try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"result\":\(reply)}")
    }
    return asked
}

@Suite(.offThePool) struct LinesMovedInTheFileTests {
    /// Item 1: a line moved under a delegate that lets every question time out as allowed was
    /// asked about as a removal (allowed) and an addition (refused: the item was still there),
    /// and the item was lost. A moved line is the same item: one move, nothing asked.
    @Test func aMovedLineIsTheSameItemWhateverTheDelegatesSay() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n- eggs\n- bread\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "sleepy", "timeoutMs": 200, "onTimeout": "allow"])
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")

        try shell(in: sandbox, "sed -i -e '/^- bread$/d' -e 's/^- milk$/- bread\\n- milk/' lists.md")
        let note = try subscriber.readObject()
        #expect(note["method"] as? String == "didUpdateShoppingList")
        #expect(steps(note) == ["move bread 0"], "one move, no removal and addition: \(daemon.logOutput)")
        let reader = try LineConnection(path: sandbox.socket)
        #expect(try reader.result("getList", ["list": "Groceries"])["items"] as? [String] == ["bread", "milk", "eggs"])
        let expected = "# Groceries <!-- listd id=1 -->\n- bread\n- milk\n- eggs\n"
        #expect(try sandbox.read { $0.withoutRevisions == expected }.withoutRevisions == expected, "no mark, no line lost")
    }

    /// Item 1, with a delegate that allows removals except of milk and denies every addition:
    /// bread moves, cake is refused (its own line is marked), the removal of milk is refused
    /// (milk comes back, and a note under the heading says why), eggs goes.
    @Test func aSaveDelegatesPartlyDenyKeepsEveryItemAndMarksTheRightLines() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n- eggs\n- jam\n- bread\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "keeper"])
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")

        try shell(
            in: sandbox,
            "sed -i -e '/^- bread$/d' -e '/^- milk$/d' -e '/^- jam$/d' -e 's/^- eggs$/- bread\\n- eggs\\n- cake\\n- jam/' lists.md"
        )
        // The move of bread (allowed), the removal of milk and the addition of cake are asked
        // about, one at a time.
        let asked = try answer(3, on: delegate) { method, item in method == "shouldRemove" && item != "milk" || method == "shouldMove" }
        #expect(Set(asked) == ["shouldMove bread", "shouldRemove milk", "shouldAdd cake"])
        let expected = """
            # Groceries <!-- listd id=1 -->
            <!-- listd: not taken: “milk” stays: Denied by a delegate: keeper: no. -->
            - bread
            - [ ] milk
            - eggs
            <!-- listd: not taken: Denied by a delegate: keeper: no. You wrote: - cake -->
            - jam

            """
        #expect(try sandbox.read { $0.withoutRevisions == expected }.withoutRevisions == expected, "\((try? sandbox.read()) ?? "")\(daemon.logOutput)")
        let reader = try LineConnection(path: sandbox.socket)
        #expect(
            try reader.result("getList", ["list": "Groceries"])["items"] as? [String] == ["bread", "milk", "eggs", "jam"]
        )
    }
}

@Suite(.offThePool) struct StartingTests {
    /// Item 2: a second listd on the same list file (another socket) started too, and the two
    /// wrote over each other's log: after a restart a confirmed list was gone and another was
    /// there twice. The second is refused before it touches anything; the first goes on.
    @Test func aSecondListdOnTheSameListFileIsRefusedAndTheFirstGoesOn() throws {
        let sandbox = try Sandbox()
        let first = try Daemon.start(in: sandbox)
        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("createList", ["name": "Pets", "items": ["cat food"]])

        let elsewhere = try Sandbox()
        elsewhere.file = sandbox.file
        let second = Daemon(elsewhere)
        #expect(try second.startExpectingExit(timeout: 10) != 0, "the second listd must not serve")
        #expect(
            second.logOutput.contains("another listd (pid \(first.pid ?? -1)) already keeps the lists of \(sandbox.file)"),
            "\(second.logOutput)"
        )
        #expect(!FileManager.default.fileExists(atPath: elsewhere.socket), "it served nothing")

        _ = try client.result("createList", ["name": "Garden"])
        first.stop()
        try first.start()
        let lists = try LineConnection(path: sandbox.socket).result("getLists")["lists"] as? [[String: Any]] ?? []
        #expect(lists.map { $0["name"] as? String } == ["Pets", "Garden"])
        #expect(lists.map { $0["id"] as? Int } == [1, 2])
    }

    /// Everything under `path`, with each file's bytes.
    private func contents(of path: String) -> [String: Data] {
        var found: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            found[name] = FileManager.default.contents(atPath: path + "/" + name) ?? Data()
        }
        return found
    }

    /// Item 4: a listd that cannot serve its socket had already made the list file's directory,
    /// the list file, its state and change log, or rewritten an existing list file. Now it leaves
    /// the disk as it found it, and says what is wrong in words.
    @Test func aStartThatCannotServeItsSocketWritesNothingAndSaysWhy() throws {
        let serving = try Daemon.start(in: try Sandbox())
        for existingFile in [false, true] {
            let cases: [(name: String, socket: (String) -> String, says: String)] = [
                ("the socket's parent is a file", { "\($0)/blocker/listd.sock" }, "/blocker is not a directory"),
                (
                    "the path is too long", { "\($0)/" + String(repeating: "s", count: 120) + ".sock" },
                    "bytes long, and a Unix socket's path may have at most 107"
                ),
                ("another listd serves it", { _ in serving.sandbox.socket }, "another listd is already serving"),
            ]
            for (name, socket, says) in cases {
                let sandbox = try Sandbox()
                try "".write(toFile: sandbox.path + "/blocker", atomically: false, encoding: .utf8)
                if existingFile {
                    try "# Groceries\n- milk\n".write(toFile: sandbox.file, atomically: false, encoding: .utf8)
                } else {
                    sandbox.file = sandbox.path + "/data/lists.md"
                }
                sandbox.socket = socket(sandbox.path)
                let before = contents(of: sandbox.path)
                let daemon = Daemon(sandbox)
                #expect(try daemon.startExpectingExit(timeout: 10) != 0, "\(name): listd must not start")
                #expect(daemon.logOutput.contains(says), "\(name): \(daemon.logOutput)")
                #expect(contents(of: sandbox.path) == before, "\(name), file existing \(existingFile): the disk is as it was")
            }
        }
    }
}

@Suite(.offThePool) struct UnwritableDirectoryTests {
    /// Item 5: while the list file's directory is not writable listd serves from its log; once it
    /// is writable again the file caught up only at the next edit. Now it is written within a
    /// second or so, unasked. (Root ignores directory modes: as root, listd runs as nobody.)
    @Test func theListFileCatchesUpOnceItsDirectoryIsWritableAgain() throws {
        let sandbox = try Sandbox()
        let daemon = Daemon(sandbox)
        if geteuid() == 0 {
            #expect(chown(sandbox.path, 65_534, 65_534) == 0)
            daemon.launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        }
        try daemon.start()
        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        #expect(try sandbox.read(when: { $0.contains("- [ ] milk") }, timeout: 30).contains("- [ ] milk"))

        #expect(chmod(sandbox.path, 0o500) == 0)
        defer { chmod(sandbox.path, 0o700) }
        #expect(try client.result("addItem", ["list": "Groceries", "item": "eggs"])["items"] as? [String] == ["milk", "eggs"])
        #expect(daemon.logShows("could not write the list file", within: 30), "\(daemon.logOutput)")
        #expect(!(try sandbox.read()).contains("eggs"))

        #expect(chmod(sandbox.path, 0o700) == 0)
        let caughtUp = try sandbox.read(when: { $0.contains("- [ ] eggs") }, timeout: 30)
        #expect(caughtUp.contains("- [ ] eggs"), "no edit came, and the file caught up: \(daemon.logOutput)")
        #expect(daemon.logShows("is written again", within: 30))
    }
}

/// Items 6–8 and watch --exec's output: listctl's delegate and watch with commands that do not
/// read their input, do not exist, or answer too late.
@Suite(.offThePool) struct ListctlCommandTests {
    /// Item 6: a command that exits without reading its question (here: over the 64 KiB a pipe
    /// holds, with a list of 2,000 items) killed listctl with SIGPIPE, the denying delegate was
    /// gone and the next edits went through. It still votes with its exit status.
    @Test func aCommandThatReadsNothingStillVotesAndListctlLives() throws {
        let daemon = try Daemon.start()
        let sandbox = daemon.sandbox
        let items = (0..<2_000).map { "item number \($0) with a long enough name to fill the pipe" }
        _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Big", "items": items])
        let delegate = try ChildProcess(
            Binaries.listctl.path,
            ["delegate", "--json", "--socket", sandbox.socket, "--question", "shouldAdd", "--", "false"]
        )
        defer { delegate.signal(SIGTERM) }
        let watch = try ChildProcess(
            Binaries.listctl.path,
            ["watch", "--socket", sandbox.socket, "--exec", "--", "sh", "-c", "echo seen"]
        )
        defer { watch.signal(SIGTERM) }
        let watched = LineReader(watch.stdout)
        #expect(try watched.line().hasPrefix("Watching 1 list"))
        // The delegate is registered once a question reaches it: wait for its first vote.
        let output = LineReader(delegate.stdout)
        for round in 0..<3 {
            let denied = try listctl(["add", "Big", "cake \(round)"], socket: sandbox.socket)
            #expect(denied.status == 1, "round \(round): \(denied.stdout) \(denied.stderr)")
            let vote = try JSONSerialization.jsonObject(with: Data(try output.line().utf8)) as? [String: Any] ?? [:]
            #expect(vote["question"] as? String == "shouldAdd" && vote["item"] as? String == "cake \(round)")
            #expect(vote["vote"] as? String == "deny" && vote["counted"] as? Bool == true, "\(vote)")
            #expect(!delegate.hasExited, "round \(round): listctl delegate died (\(delegate.exitStatus ?? 0))")
        }
        // watch --exec: each change ran the command, whose output is watch's; listctl lives on.
        _ = try listctl(["remove", "Big", "item number 1 with a long enough name to fill the pipe"], socket: sandbox.socket)
        _ = try listctl(["remove", "Big", "item number 2 with a long enough name to fill the pipe"], socket: sandbox.socket)
        #expect(try watched.line() == "seen")
        #expect(try watched.line() == "seen")
        #expect(!watch.hasExited, "listctl watch died (\(watch.exitStatus ?? 0))")
    }

    /// Item 7: a command that cannot be run is a usage error, before anything is registered.
    @Test func aCommandThatCannotBeRunIsAUsageError() throws {
        let daemon = try Daemon.start()
        for arguments in [["delegate", "--", "no-such-command"], ["watch", "--exec", "--", "./no-such-script.sh"]] {
            let run = try ChildProcess(
                Binaries.listctl.path,
                [arguments[0], "--socket", daemon.sandbox.socket] + arguments.dropFirst()
            )
            defer { run.signal(SIGKILL) }
            #expect(run.wait(timeout: 10) == 2, "\(arguments): it must not register and wait")
            #expect(try LineReader(run.stderr).line(timeout: 1).contains("cannot run “\(arguments.last!)”"))
        }
    }

    /// Item 8: an answer that came after listd's time limit is reported as timed out (listd
    /// applied --on-timeout), and when listd stops consulting the delegate listctl says so and
    /// exits with status 4.
    @Test func lateAnswersAreReportedAsTimedOutAndADroppedDelegateExitsWithFour() throws {
        let daemon = try Daemon.start()
        let sandbox = daemon.sandbox
        _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Groceries"])
        let delegate = try ChildProcess(
            Binaries.listctl.path,
            [
                "delegate", "--socket", sandbox.socket, "--timeout", "200", "--on-timeout", "deny", "--name", "slow",
                "--", "sh", "-c", "sleep 0.5",
            ]
        )
        defer { delegate.signal(SIGTERM) }
        let output = LineReader(delegate.stdout)
        #expect(try output.line().hasPrefix("Registered as delegate “slow”"))
        #expect(try listctl(["add", "Groceries", "milk"], socket: sandbox.socket).status == 1)
        let line = try output.line()
        #expect(line.hasPrefix("shouldAdd “milk” on Groceries: timed out after "), "\(line)")
        #expect(line.contains("listd applied --on-timeout and denied it (the command allowed, too late)"), "\(line)")
        #expect(try listctl(["add", "Groceries", "eggs"], socket: sandbox.socket).status == 1)
        #expect(try listctl(["add", "Groceries", "jam"], socket: sandbox.socket).status == 1)
        #expect(delegate.wait(timeout: 10) == 4, "dropped after three timeouts: exit 4")
        let errors = LineReader(delegate.stderr)
        #expect(try errors.line().hasPrefix("listctl: listd no longer consults delegate “slow”"))
    }
}

/// Items 9–12: listctl's command line as people type it.
@Suite(.offThePool) struct ListctlTrapsTests {
    /// Item 9: `-fresh fish` printed the help and exited 0 (read as flags, -h among them).
    @Test func aWordThatLooksLikeAnOptionIsAUsageErrorThatSaysHowToPassIt() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries"], socket: socket)
        for word in ["-fresh fish", "-sunscreen", "--bogus"] {
            let run = try listctl(["add", "Groceries", word], socket: socket)
            #expect(run.status == 2, "\(word): \(run.stdout)")
            #expect(run.stdout.isEmpty, "\(word): no help, nothing done")
            #expect(run.stderr.contains("put it after --: listctl add"), "\(word): \(run.stderr)")
        }
        #expect(try listctl(["add", "Groceries", "-fresh fish"], socket: socket).stderr.contains(#"listctl add Groceries -- "-fresh fish""#))
        #expect(try listctl(["add", "Groceries", "--", "-fresh fish", "-sunscreen"], socket: socket).status == 0)
        let shown = try LineConnection(path: socket).result("getList", ["list": "Groceries"])
        #expect(shown["items"] as? [String] == ["-fresh fish", "-sunscreen"])
    }

    /// listctl checks words that start with - itself (item 9): every option a subcommand's help
    /// names must pass that check.
    @Test func everyOptionInTheHelpIsKnown() throws {
        for command in ["lists", "show", "create", "rename", "delete", "add", "remove", "replace", "watch", "delegate"] {
            let help = try listctl([command, "--help"], socket: "/nonexistent").stdout
            // The OPTIONS section only: the discussion above it may wrap a line onto "--…".
            let optionsSection = help.components(separatedBy: "OPTIONS:").last ?? ""
            let options = optionsSection.split(separator: "\n").compactMap { line -> String? in
                let word = line.drop { $0 == " " }.prefix { $0 != " " && $0 != "," && $0 != "=" }
                return word.hasPrefix("--") ? String(word) : nil
            }
            #expect(options.contains("--socket"), "\(command): \(help)")
            for option in options {
                let run = try listctl([command, option], socket: "/nonexistent")
                #expect(!run.stderr.contains("unknown option"), "\(command) \(option): \(run.stderr)")
            }
        }
    }

    /// Item 10: the options every subcommand takes, before the subcommand (as `git -C`).
    @Test func sharedOptionsMayComeBeforeTheSubcommand() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let created = try listctl(["--socket", socket, "create", "Groceries", "milk"], socket: nil)
        #expect(created.status == 0, "\(created.stderr)")
        let shown = try listctl(["--json", "--socket=\(socket)", "show", "Groceries"], socket: nil)
        #expect(shown.status == 0, "\(shown.stderr)")
        let list = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        #expect(list?["items"] as? [String] == ["milk"])
    }

    /// Item 11: a list named with digits could not be addressed ("There is no list with id 2026").
    @Test func aListIsNamedFirstAndDigitsAreAnIdOnlyWhenNoListHasThatName() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries", "milk"], socket: socket)
        _ = try listctl(["create", "2026", "fireworks"], socket: socket)
        _ = try listctl(["create", "1", "one"], socket: socket)
        #expect(try listctl(["show", "2026"], socket: socket).stdout.contains("- [ ] fireworks"))
        #expect(try listctl(["add", "2026", "champagne"], socket: socket).stdout == "Added “champagne” to 2026.\n")
        #expect(try listctl(["show", "1"], socket: socket).stdout.hasPrefix("1 (id 3"), "the name wins over the id")
        #expect(try listctl(["show", "2"], socket: socket).stdout.hasPrefix("2026 (id 2"), "no list is called 2: id 2")
        let missing = try listctl(["show", "99"], socket: socket)
        #expect(missing.status == 1 && missing.stderr.contains("There is no list called “99”."), "\(missing.stderr)")
    }

    /// Item 12: `-` added an item called "-"; it reads one item per line from stdin, as one batch.
    @Test func aDashReadsItemsFromStandardInput() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries", "milk"], socket: socket)
        let run = try ChildProcess.run(
            "/bin/sh",
            ["-c", "printf 'eggs\\n\\n  \\nbread\\nmilk\\n' | '\(Binaries.listctl.path)' add --socket '\(socket)' Groceries -"]
        )
        #expect(run.status == 1, "milk is there already: \(run.stderr)")
        #expect(run.stdout == "Added “eggs” to Groceries.\nAdded “bread” to Groceries.\n")
        #expect(run.stderr == "listctl: denied: “milk” is already on Groceries.\n")
        let shown = try LineConnection(path: socket).result("getList", ["list": "Groceries"])
        #expect(shown["items"] as? [String] == ["milk", "eggs", "bread"])
    }
}

/// Item 13: watch prints what --event names, and goes on through a restart of listd.
@Suite(.offThePool) struct ListctlWatchTests {
    @Test func watchPrintsDeniedChangesWhenAskedFor() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries"], socket: socket)
        let delegate = try ChildProcess(
            Binaries.listctl.path,
            ["delegate", "--socket", socket, "--name", "diet", "--", "sh", "-c", "echo no sweets; exit 1"]
        )
        defer { delegate.signal(SIGTERM) }
        #expect(try LineReader(delegate.stdout).line().hasPrefix("Registered as delegate “diet”"))
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--socket", socket, "--event", "didDenyChange"])
        defer { watch.signal(SIGTERM) }
        let output = LineReader(watch.stdout)
        #expect(try output.line().hasPrefix("Watching 1 list"))
        #expect(try listctl(["add", "Groceries", "cake"], socket: socket).status == 1)
        let line = try output.line()
        #expect(line.hasPrefix("Denied shouldAdd “cake” on Groceries (by listctl"), "\(line)")
        #expect(line.hasSuffix("): diet: no sweets"), "\(line)")
    }

    /// listd restarts: watch says so once on stderr, reconnects, and prints every change after
    /// the last one it printed, once, in order (one made before it is back among them).
    @Test func watchReconnectsAndResumesWithNothingLostOrTwice() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries"], socket: socket)
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--socket", socket])
        defer { watch.signal(SIGTERM) }
        let once = try ChildProcess(Binaries.listctl.path, ["watch", "--no-reconnect", "--socket", socket])
        defer { once.signal(SIGTERM) }
        let output = LineReader(watch.stdout)
        #expect(try output.line().hasPrefix("Watching 1 list"))
        #expect(try LineReader(once.stdout).line().hasPrefix("Watching 1 list"))
        _ = try listctl(["add", "Groceries", "milk"], socket: socket)
        #expect(try output.line().hasPrefix("#2 Groceries: added “milk”"))

        daemon.stop()
        #expect(once.wait(timeout: 10) == 4, "--no-reconnect: status 4 when listd goes away")
        try daemon.start()
        _ = try listctl(["add", "Groceries", "eggs"], socket: socket)
        _ = try listctl(["add", "Groceries", "bread"], socket: socket)
        #expect(try output.line().hasPrefix("#3 Groceries: added “eggs”"))
        #expect(try output.line().hasPrefix("#4 Groceries: added “bread”"))
        _ = try listctl(["add", "Groceries", "fence"], socket: socket)
        #expect(try output.line().hasPrefix("#5 Groceries: added “fence”"), "nothing twice before it")
        #expect(!watch.hasExited)
        #expect(try LineReader(watch.stderr).line().contains("reconnecting to resume after revision 2"))
    }
}

/// Items 16–19: errors a person can act on.
@Suite(.offThePool) struct ActionableErrorTests {
    /// Item 16: a save that is not UTF-8 is reported by line (what an editor shows), not only by
    /// byte offset: in the notification's lines, its message, the denial and the journal.
    @Test func aFileThatIsNotUTF8IsReportedByLine() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")
        var bytes = Array("# Groceries <!-- listd id=1 -->\n- milk\n- caf".utf8)
        bytes += [0xE9] + Array(" au lait\n- eggs\n".utf8)  // Latin-1 é on line 3
        try Data(bytes).write(to: URL(fileURLWithPath: sandbox.path + "/latin1.md"))
        try shell(in: sandbox, "cp latin1.md lists.md")
        let note = try subscriber.readObject()
        let params = note["params"] as? [String: Any] ?? [:]
        #expect(params["reason"] as? String == "fileInvalid")
        let lines = params["lines"] as? [[String: Any]] ?? []
        #expect(lines.map { $0["line"] as? Int } == [3], "\(params)")
        #expect(lines.first?["text"] as? String == "- caf\u{FFFD} au lait")
        // Issue 36, item 4: clients print a line's message after its number; it does not repeat it.
        #expect((lines.first?["message"] as? String)?.hasPrefix("It is not UTF-8 text (its byte 6 cannot be read)") == true, "\(params)")
        #expect((params["message"] as? String ?? "").contains("Line 3 is not UTF-8 text"), "\(params)")
        let denial = try LineConnection(path: sandbox.socket).error("addItem", ["list": "Groceries", "item": "tea"])
        #expect((denial["message"] as? String ?? "").hasPrefix("Line 3 of the list file"), "\(denial)")
        #expect((denial["data"] as? [String: Any])?["line"] as? Int == 3)
        #expect(daemon.logShows("Line 3 is not UTF-8 text"))
    }

    /// Item 17: `1. toothpaste` was kept silently as a note, and so was `-sunscreen`: an
    /// ordered-list line is an item, and `-sunscreen` is a line not taken, marked with why.
    @Test func orderedItemsAreItemsAndADashWithoutASpaceIsMarked() throws {
        let sandbox = try Sandbox()
        try "# Bathroom\n- soap\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")
        try shell(in: sandbox, "sed -i 's/^- soap$/- soap\\n1. toothpaste\\n2) floss\\n-sunscreen/' lists.md")
        var methods: [String] = []
        for _ in 0..<3 { methods.append(try subscriber.readObject()["method"] as? String ?? "?") }
        #expect(methods == ["didUpdateShoppingList", "didUpdateShoppingList", "didRejectFileEdit"])
        let list = try LineConnection(path: sandbox.socket).result("getList", ["list": "Bathroom"])
        #expect(list["items"] as? [String] == ["soap", "toothpaste", "floss"])
        let expected = """
            # Bathroom <!-- listd id=1 -->
            - soap
            1. toothpaste
            2) floss
            <!-- listd: not taken: An item needs a space after its dash: write “- sunscreen” to add it. You wrote: -sunscreen -->

            """
        #expect(try sandbox.read { $0.withoutRevisions == expected }.withoutRevisions == expected)
    }

    /// Item 18: -32602 named Swift types ("must be a Array<JSONValue>", "Cannot initialize
    /// DelegateQuestion from invalid String value"): now the parameter and what it must be.
    @Test func invalidParamsSayWhatIsExpectedInWords() throws {
        let daemon = try Daemon.start()
        let connection = try LineConnection(path: daemon.sandbox.socket)
        let cases: [(method: String, params: [String: Any], param: String, says: String)] = [
            (
                "registerDelegate", ["name": "d", "questions": ["shouldFly"]], "questions",
                "questions: unknown question “shouldFly”; known: shouldCreate, shouldRename"
            ),
            ("registerDelegate", ["name": "d", "lists": "Groceries"], "lists", "lists must be an array of list names or ids."),
            ("registerDelegate", ["name": "d", "onTimeout": "maybe"], "onTimeout", "onTimeout: “maybe” is neither “allow” nor “deny”."),
            ("registerDelegate", ["name": "d", "timeoutMs": "soon"], "timeoutMs", "timeoutMs must be an integer (milliseconds)."),
            ("addItem", ["list": "Groceries"], "item", "addItem needs “item”: a string."),
            ("addItem", ["list": ["Groceries"], "item": "milk"], "list", "list: a list is named by its id (a number) or its name (a string)."),
            ("subscribe", ["since": "yesterday"], "since", "since must be an integer (a revision)."),
        ]
        for (method, params, param, says) in cases {
            let error = try connection.error(method, params)
            let message = error["message"] as? String ?? ""
            #expect(error["code"] as? Int == -32602)
            #expect(message.contains(says), "\(method) \(params): \(message)")
            #expect((error["data"] as? [String: Any])?["param"] as? String == param, "\(method): \(error)")
            for swift in ["Array<", "JSONValue", "Cannot initialize", "TimeoutVerdict", "DelegateQuestion", "Int"] {
                #expect(!message.contains(swift), "\(method): \(message)")
            }
        }
    }

    /// Item 19: a client that sent no name was journalled as `by (pid N, uid U)`.
    @Test func aClientWithoutANameIsJournalledByItsPid() throws {
        let daemon = try Daemon.start()
        let connection = try LineConnection(path: daemon.sandbox.socket)
        _ = try connection.result("createList", ["name": "Groceries"])
        #expect(daemon.logShows("created list “Groceries” (revision 1, by pid \(getpid()) (uid \(geteuid())))"), "\(daemon.logOutput)")
    }
}

extension LinesMovedInTheFileTests {
    /// Item 1, across lists: a line cut from Groceries and pasted under Hardware, under a delegate
    /// that allows removals and denies additions, was lost from both. The removal is made only if
    /// the addition is: bread stays on Groceries, and the pasted line is marked.
    @Test func aLineMovedToAnotherListIsNotLostWhenItsAdditionIsRefused() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n- bread\n\n# Hardware\n- nails\n".write(
            toFile: sandbox.file,
            atomically: true,
            encoding: .utf8
        )
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "keeper"])
        try shell(in: sandbox, "sed -i -e '/^- bread$/d' -e 's/^- nails$/- nails\\n- bread/' lists.md")
        let asked = try answer(2, on: delegate) { method, _ in method == "shouldRemove" }
        #expect(Set(asked) == ["shouldRemove bread", "shouldAdd bread"])
        let expected = """
            # Groceries <!-- listd id=1 -->
            - milk
            - [ ] bread

            # Hardware <!-- listd id=2 -->
            - nails
            <!-- listd: not taken: Denied by a delegate: keeper: no. You wrote: - bread -->

            """
        #expect(try sandbox.read { $0.withoutRevisions == expected }.withoutRevisions == expected, "\((try? sandbox.read()) ?? "")\(daemon.logOutput)")
        let lists = try LineConnection(path: sandbox.socket).result("getLists")["lists"] as? [[String: Any]] ?? []
        #expect(lists.map { $0["items"] as? [String] ?? [] } == [["milk", "bread"], ["nails"]])
    }
}
