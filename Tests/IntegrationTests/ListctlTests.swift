import Foundation
import Glibc
import Testing

/// listctl as a person and a script use it: exact output and exit statuses.
@Suite(.offThePool) struct ListctlTests {
    @Test func humanOutputAndExitStatuses() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket

        var run = try listctl(["lists"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "No lists yet. Create one with: listctl create NAME [ITEM…]\n")

        run = try listctl(["create", "Groceries", "milk", "eggs"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Created Groceries (id 1) with 2 items.\n")

        run = try listctl(["add", "Groceries", "bread", "Milk", "jam"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stdout == "Added “bread” to Groceries.\nAdded “jam” to Groceries.\n")
        #expect(run.stderr == "listctl: denied: “milk” is already on Groceries.\n")

        run = try listctl(["replace", "groceries", "jam", "marmalade"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Replaced “jam” with “marmalade” on Groceries.\n")

        run = try listctl(["remove", "1", "eggs", "caviar"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stdout == "Removed “eggs” from Groceries.\n")
        #expect(run.stderr == "listctl: denied: “caviar” is not on Groceries.\n")

        run = try listctl(["show", "Groceries"], socket: socket)
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Groceries (id 1, revision 5, edited ") == true)
        #expect(lines.dropFirst() == ["  - [ ] milk", "  - [ ] bread", "  - [ ] marmalade"])

        run = try listctl(["create", "Hardware"], socket: socket)
        run = try listctl(["rename", "Hardware", "Tools"], socket: socket)
        #expect(run.stdout == "Renamed Hardware to Tools.\n")
        run = try listctl(["rename", "Tools", "groceries"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stderr == "listctl: denied: There is already a list called “Groceries”, so Tools keeps its name.\n")

        run = try listctl(["lists"], socket: socket)
        #expect(run.stdout == "Groceries  3 items  (id 1)\nTools      0 items  (id 2)\n")

        run = try listctl(["delete", "Tools"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Deleted Tools (0 items).\n")
        run = try listctl(["delete", "Tools"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stderr == "listctl: denied: There is no list called “Tools”.\n")
    }

    /// Issue 46, case 12: `create` reads `milk (2 l)` as `add` does — the item milk, 2 l — in
    /// one change (one undo takes the list and its amounts).
    @Test func createReadsAmountsAsAddDoes() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let run = try listctl(["create", "Pantry", "milk (2 l)", "eggs", "batteries (4)"], socket: socket)
        #expect(run.status == 0 && run.stdout == "Created Pantry (id 1) with 3 items.\n", "\(run)")
        let list = try LineConnection(path: socket).result("getList", ["list": "Pantry"])
        #expect(list["items"] as? [String] == ["milk", "eggs", "batteries"], "\(list)")
        #expect(list["quantities"] as? [String: String] == ["milk": "2 l", "batteries": "4"], "\(list)")
        #expect(list["revision"] as? Int == 1, "one change: \(list)")
        let refused = try listctl(["create", "Tools", "saw (2 (big)"], socket: socket)
        #expect(refused.status == 0, "a text whose parentheses do not pair up is an item, as for add: \(refused)")
    }

    @Test func jsonOutputForScripts() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        var run = try listctl(["create", "--json", "Groceries", "milk"], socket: socket)
        let created = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(created["id"] as? Int == 1)
        #expect(created["items"] as? [String] == ["milk"])

        run = try listctl(["add", "--json", "Groceries", "eggs", "MILK"], socket: socket)
        #expect(run.status == 1)
        let outcomes = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(outcomes.map { $0["confirmed"] as? Bool } == [true, false])
        #expect(outcomes.map { $0["item"] as? String } == ["eggs", "MILK"])
        #expect((outcomes[1]["denied"] as? [String: Any])?["reason"] as? String == "itemExists")

        run = try listctl(["show", "--json", "Nope"], socket: socket)
        #expect(run.status == 1)
        let denial = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect((denial["denied"] as? [String: Any])?["reason"] as? String == "listNotFound")

        run = try listctl(["lists", "--json"], socket: socket)
        let snapshot = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(snapshot["revision"] as? Int == 2)
    }

    @Test func usageErrorsExitWith2() throws {
        let run = try listctl(["add", "Groceries"], socket: "/nonexistent")
        #expect(run.status == 2)
        #expect(run.stderr.contains("Missing expected argument '<items> ...'"))
        #expect(try listctl(["frobnicate"], socket: "/nonexistent").status == 2)
        // Issue 47, case 7: a mistyped command is named, with the nearest one.
        let typo = try listctl(["ad", "Groceries", "flour"], socket: "/nonexistent")
        #expect(typo.status == 2)
        #expect(typo.stderr == "listctl: no command “ad”; did you mean “add”? (`listctl --help` lists them).\n", "\(typo.stderr)")
        let nestedTypo = try listctl(["web", "devcies"], socket: "/nonexistent")
        #expect(nestedTypo.stderr.hasPrefix("listctl web: no command “devcies”; did you mean “devices”?"), "\(nestedTypo.stderr)")
        #expect(try listctl(["frobnicate"], socket: "/nonexistent").stderr == "listctl: no command “frobnicate” (`listctl --help` lists them).\n")
        #expect(try listctl(["watch", "--event", "didExplode"], socket: "/nonexistent").status == 2)
        let help = try listctl(["add", "--help"], socket: "/nonexistent")
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: listctl add"))
        let overview = try listctl(["--help"], socket: "/nonexistent")
        #expect(overview.stdout.contains("household's /run/listd/listd.sock"), "which listd is named: \(overview.stdout)")
        let completion = try listctl(["--generate-completion-script", "bash"], socket: "/nonexistent")
        #expect(completion.status == 0)
        #expect(
            completion.stdout.contains("complete -o filenames -F _listctl listctl")
                || completion.stdout.contains("_listctl")
        )
    }

    @Test func unreachableListdExitsWith3AndSaysWhereAndHow() throws {
        let sandbox = try Sandbox()
        let run = try listctl(["lists"], socket: sandbox.socket)
        #expect(run.status == 3)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("cannot reach listd at \(sandbox.socket)"))
        // Root's own listd is the system unit; anyone else's, their user unit.
        let start = getuid() == 0 ? "`systemctl enable --now listd.socket`" : "`systemctl --user start listd.socket`"
        #expect(run.stderr.contains("Start it with \(start)"), "\(run.stderr)")
        // The default path comes from XDG_RUNTIME_DIR when no socket is given.
        let defaulted = try listctl(["lists"], socket: nil, environment: ["XDG_RUNTIME_DIR": sandbox.path])
        #expect(defaulted.status == 3)
        #expect(defaulted.stderr.contains("\(sandbox.path)/listd/listd.sock"))
    }

    /// Exit status 4: listd went away before it answered (killed while a delegate deliberates on
    /// listctl's edit), and listctl says so.
    @Test func listdGoingAwayMidEditExitsWith4() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        let delegate = try LineConnection(path: socket)
        _ = try delegate.result("registerDelegate", ["name": "slow", "timeoutMs": 10_000])
        var environment = ProcessInfo.processInfo.environment
        environment["LISTD_SOCKET"] = socket
        let child = try ChildProcess(Binaries.listctl.path, ["add", "Groceries", "milk"], environment: environment)
        // listctl's edit is in flight once the delegate is asked about it.
        #expect(try delegate.readObject()["method"] as? String == "shouldAdd")
        daemon.kill()
        let status = child.wait(timeout: 15)
        #expect(status == 4, "listctl exited with \(status.map(String.init) ?? "nothing within 15 s")")
        let stderr = readToEnd(child.stderr)
        #expect(stderr.hasPrefix("listctl: "), "\(stderr)")
        #expect(stderr.contains("closed") || stderr.contains("lost"), "\(stderr)")
    }

    @Test func watchSinceFirstPrintsWhatWasMissed() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let client = try LineConnection(path: socket)
        _ = try client.result("createList", ["name": "Groceries"])
        _ = try client.result("addItem", ["list": 1, "item": "milk"])
        _ = try client.result("addItem", ["list": 1, "item": "eggs"])
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--json", "--since", "1", "--socket", socket])
        defer { watch.signal(SIGTERM) }
        let reader = LineReader(watch.stdout)
        func next() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(try reader.line().utf8)) as? [String: Any])
        }
        let subscribed = try next()
        #expect(subscribed["event"] as? String == "subscribed")
        #expect(subscribed["since"] as? Int == 1)
        #expect(subscribed["revision"] as? Int == 3)
        #expect(subscribed["instance"] as? String == (try client.result("hello")["instance"] as? String))
        #expect(try next()["changes"] as? [[String: String]] == [["op": "add", "item": "milk"]])
        #expect(try next()["changes"] as? [[String: String]] == [["op": "add", "item": "eggs"]])
        _ = try client.result("addItem", ["list": 1, "item": "bread"])
        let live = try next()
        #expect(live["revision"] as? Int == 4)

        let tooOld = try listctl(["watch", "--since", "99"], socket: socket)
        #expect(tooOld.status == 1)
        #expect(tooOld.stderr.contains("Cannot resume"))
    }

    /// Issue 35, case 11: `watch` is a brief subscriber: each change of a big paste is printed at
    /// the size of the change, not of the list (the whole list in every line made a 10,000-line
    /// paste take 18 s to print and `--json` write hundreds of megabytes).
    @Test func watchPrintsEachChangeOfABigPasteAtTheSizeOfTheChange() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let client = try LineConnection(path: socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--json", "--socket", socket])
        defer { watch.signal(SIGTERM) }
        let reader = LineReader(watch.stdout)
        #expect(try reader.line().contains("subscribed"))
        let shown = try daemon.sandbox.read(when: { $0.contains("milk") })
        let pasted = (1...3_000).map { "- item \($0)\n" }.joined()
        try (shown + pasted).write(toFile: daemon.sandbox.file, atomically: false, encoding: .utf8)
        var longest = 0
        var items: [String] = []
        for _ in 0..<3_000 {
            let line = try reader.line(timeout: 60)
            longest = max(longest, line.utf8.count)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            items += ((object["changes"] as? [[String: Any]]) ?? []).compactMap { $0["item"] as? String }
            #expect((object["list"] as? [String: Any])?["name"] as? String == "Groceries")
        }
        #expect(items == (1...3_000).map { "item \($0)" })
        #expect(longest < 400, "a line of \(longest) bytes")
    }

    @Test func watchPrintsEveryChangeWithItsOrigin() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--json", "--socket", socket])
        defer { watch.signal(SIGTERM) }
        let human = try ChildProcess(
            Binaries.listctl.path,
            ["watch", "--socket", socket, "--event", "didUpdateShoppingList"]
        )
        defer { human.signal(SIGTERM) }
        // Both watchers print a first line once subscribed.
        let reader = LineReader(watch.stdout)
        let subscribed = try #require(
            try JSONSerialization.jsonObject(with: Data(try reader.line().utf8)) as? [String: Any]
        )
        #expect(subscribed["event"] as? String == "subscribed")
        #expect(subscribed["revision"] as? Int == 0)
        let humanReader = LineReader(human.stdout)
        #expect(try humanReader.line().hasPrefix("Watching 0 lists from revision 0"))

        let probe = try LineConnection(path: socket)
        _ = try probe.result("createList", ["name": "Groceries"])
        let add = try listctl(["add", "Groceries", "milk"], socket: socket)
        #expect(add.status == 0)

        let first = try #require(try JSONSerialization.jsonObject(with: Data(try reader.line().utf8)) as? [String: Any])
        #expect(first["event"] as? String == "didCreateShoppingList")
        #expect(first["revision"] as? Int == 1)
        let second = try #require(
            try JSONSerialization.jsonObject(with: Data(try reader.line().utf8)) as? [String: Any]
        )
        #expect(second["event"] as? String == "didUpdateShoppingList")
        #expect((second["origin"] as? [String: Any])?["name"] as? String == "listctl")
        #expect(second["changes"] as? [[String: String]] == [["op": "add", "item": "milk"]])

        let line = try humanReader.line()
        #expect(line.hasPrefix("#2 Groceries: added “milk” (by listctl (pid "))
    }
}
