import Foundation
import Glibc
import Testing

/// Issue 36: a new user's second look — the edges a person meets after the walkthrough.
@Suite(.offThePool) struct SecondLookTests {
    /// Item 10: 2,000 items read from stdin go to listd in batches it takes (it refuses a batch
    /// over 1,000 with one error naming no request); listctl never waits for a reply that will
    /// not come.
    @Test func twoThousandItemsFromStandardInputAreAllTakenIn() throws {
        let daemon = try Daemon.start()
        let items = (1...2_000).map { "item \($0)" }
        _ = try LineConnection(path: daemon.sandbox.socket).result("createList", ["name": "Big", "items": items])
        try items.joined(separator: "\n").write(toFile: daemon.sandbox.path + "/big.txt", atomically: true, encoding: .utf8)
        let socket = daemon.sandbox.socket
        // `timeout` ends a listctl that waits for ever (status 124).
        let run = try ChildProcess.run(
            "/bin/sh",
            ["-c", "cd '\(daemon.sandbox.path)' && timeout 60 '\(Binaries.listctl.path)' check Big - < big.txt"],
            environment: ["LISTD_SOCKET": socket, "PATH": "/usr/bin:/bin"]
        )
        #expect(run.status == 0, "\(run.status): \(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 2_000)
        let list = try LineConnection(path: socket).result("getList", ["list": "Big"])
        #expect((list["checked"] as? [String])?.count == 2_000)
    }
}

extension SecondLookTests {
    /// Item 10: a listd started with a lower --max-batch refuses a batch of 500 whole, with one
    /// error naming no request: listctl is not left waiting for replies that will not come, and
    /// sends the items again in batches of the size listd said it takes.
    @Test func aBatchListdRefusesWholeIsSentAgainInBatchesItTakes() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--max-batch", "100"])
        _ = try LineConnection(path: daemon.sandbox.socket).result("createList", ["name": "Big"])
        try (1...500).map { "item \($0)" }.joined(separator: "\n").write(
            toFile: daemon.sandbox.path + "/big.txt",
            atomically: true,
            encoding: .utf8
        )
        let run = try ChildProcess.run(
            "/bin/sh",
            ["-c", "cd '\(daemon.sandbox.path)' && timeout 60 '\(Binaries.listctl.path)' add Big - < big.txt"],
            environment: ["LISTD_SOCKET": daemon.sandbox.socket, "PATH": "/usr/bin:/bin"]
        )
        #expect(run.status == 0, "\(run.status): \(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 500)
        let list = try LineConnection(path: daemon.sandbox.socket).result("getList", ["list": "Big"])
        #expect((list["items"] as? [String])?.count == 500)
    }

    /// Item 3: one 1,000-character name does not make every line of `listctl lists` 1,000
    /// columns wide: the name column fits the terminal (80 columns here), the long name cut with “…”.
    @Test func aLongListNameDoesNotWidenEveryLine() throws {
        let daemon = try Daemon.start()
        let long = String(repeating: "Very long name ", count: 66)
        for name in ["Groceries", long] {
            _ = try LineConnection(path: daemon.sandbox.socket).result("createList", ["name": name, "items": ["milk"]])
        }
        let run = try listctl(["lists"], socket: daemon.sandbox.socket, environment: ["COLUMNS": "80"])
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(run.stdout)")
        #expect(lines.first?.hasPrefix("Groceries ") == true && lines.first?.hasSuffix("1 item  (id 1)") == true, "\(run.stdout)")
        #expect(lines.last?.hasPrefix("Very long name Very") == true && lines.last?.contains("…  1 item  (id 2)") == true, "\(run.stdout)")
    }
}

extension SecondLookTests {
    /// Item 4: a ticked line whose add a delegate refused is told why once — not also that its
    /// item is not on the list (the tick of an item never added).
    @Test func aTickedLineWhoseAddIsRefusedIsToldWhyOnce() throws {
        let daemon = try Daemon.start()
        _ = try LineConnection(path: daemon.sandbox.socket).result("createList", ["name": "Food", "items": ["bread"]])
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "dry", "questions": ["shouldAdd"], "onTimeout": "deny"])
        let answering = Thread {
            while let question = try? delegate.readObject(timeout: 30) {
                let answer = #"{"allow":false,"reason":"no alcohol"}"#
                try? delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"result\":\(answer)}")
            }
        }
        answering.start()
        defer { delegate.hangUp() }
        let subscriber = try LineConnection(path: daemon.sandbox.socket)
        _ = try subscriber.result("subscribe", ["events": ["didRejectFileEdit"]])
        _ = try daemon.sandbox.read { $0.contains("- [ ] bread") }
        try shell(in: daemon.sandbox, "printf -- '- [x] beer\\n' >> lists.md")
        let note = try subscriber.readObject()
        let lines = (note["params"] as? [String: Any])?["lines"] as? [[String: Any]] ?? []
        #expect(lines.map { $0["reason"] as? String } == ["deniedByDelegate"], "\(note)")
        #expect(!"\(note)".contains("is not on Food"), "\(note)")
    }
}

extension SecondLookTests {
    /// Item 4: `--help` names the defaults root gets too (root uses /run/listd/listd.sock), and a
    /// negative number is refused for what it is, not taken for a missing value.
    @Test func helpNamesRootsDefaultsAndANegativeNumberIsRefusedInWords() throws {
        let listctlHelp = try ChildProcess.run(Binaries.listctl.path, ["lists", "--help"])
        #expect(listctlHelp.stdout.contains("/run/listd/listd.sock for root"), "\(listctlHelp.stdout)")
        let listdHelp = try ChildProcess.run(Binaries.listd.path, ["--help"])
        #expect(listdHelp.stdout.contains("/run/listd/listd.sock for root"), "\(listdHelp.stdout)")
        #expect(listdHelp.stdout.contains("/var/lib/listd/lists.md for root"), "\(listdHelp.stdout)")
        let sandbox = try Sandbox()
        let run = try ChildProcess.run(
            Binaries.listd.path,
            ["--settle-ms", "-5", "--socket", sandbox.socket, "--file", sandbox.file]
        )
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("--settle-ms must be between 0 and 10000."), "\(run.stderr)")
        #expect(!run.stderr.contains("Missing value"), "\(run.stderr)")
    }
}

extension SecondLookTests {
    /// Item 8: a change of thousands of steps is one short line in `undo`, `log` and `watch` (a
    /// count of each kind, the first items named); every step with `--verbose`.
    @Test func aChangeOfThousandsOfStepsIsSummarised() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let items = (1...2_000).map { "item \($0)" }
        let connection = try LineConnection(path: socket)
        _ = try connection.result("createList", ["name": "Big", "items": items])
        try items.joined(separator: "\n").write(toFile: daemon.sandbox.path + "/big.txt", atomically: true, encoding: .utf8)
        try shell(in: daemon.sandbox, "'\(Binaries.listctl.path)' --socket '\(socket)' check Big - < big.txt > /dev/null")
        #expect(try listctl(["clear", "Big"], socket: socket).stdout == "Cleared 2,000 checked items from Big.\n")
        let undo = try listctl(["undo"], socket: socket)
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(
            undo.stdout == "Undid #2002 (Big: removed 2,000 items (“item 1”, “item 2”, “item 3” and 1,997 more)) as #2003.\n",
            "\(undo.stdout.prefix(300))"
        )
        let log = try listctl(["log", "--limit", "2"], socket: socket)
        let lines = log.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines.allSatisfy { $0.count < 250 }, "\(log.stdout.prefix(600))")
        #expect(lines.last?.contains("added 2,000 items (“item 1”, “item 2”, “item 3” and 1,997 more), checked 2,000 items (") == true, "\(log.stdout.prefix(600))")
        let verbose = try listctl(["log", "--limit", "1", "--verbose"], socket: socket)
        #expect(verbose.stdout.contains("checked “item 2000”"), "every step with --verbose")
        // Read until the two changes are said (a fence, not a time: a full parallel run once
        // took more than the 5 s this gave watch), then stopped as a person stops it.
        let watch = try ChildProcess(Binaries.listctl.path, ["--socket", socket, "watch", "--since", "2001"])
        defer { watch.signal(SIGINT) }
        let output = LineReader(watch.stdout)
        var said: [String] = []
        while said.count < 2 {
            let line = try output.line(timeout: 60)
            if line.hasPrefix("#") { said.append(line) }
        }
        #expect(said.allSatisfy { $0.count < 250 }, "\(said)")
        #expect(said.first?.hasPrefix("#2002 Big: removed 2,000 items (“item 1”") == true, "\(said)")
    }
}

extension SecondLookTests {
    /// Whether process `pid` is gone (or a zombie: dead, not yet reaped).
    private func isGone(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// Item 9: SIGTERM (a service manager) or Ctrl-C to `listctl delegate` and `watch --exec` ends
    /// the command it is running, and what that command started, with it.
    @Test(arguments: [("delegate", SIGTERM), ("watch", SIGINT)])
    func stoppingListctlEndsTheCommandItRuns(mode: String, signal: Int32) throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        // Through a close-on-exec descriptor (`Sandbox.script`): the other case of this test
        // starts its listctl meanwhile, and one that inherited the file open for writing made
        // running it fail with "Text file busy".
        let script = try daemon.sandbox.script("slow.sh", "cat > /dev/null\nsleep 20 &\necho $! > '\(daemon.sandbox.path)/sleep.pid'\nwait\n")
        let arguments = mode == "delegate" ? ["delegate", "--timeout", "30000", "--", script] : ["watch", "--exec", "--", script]
        let listctl = try ChildProcess(Binaries.listctl.path, ["--socket", socket] + arguments)
        // Its first line says it is registered, or subscribed.
        let first = try LineReader(listctl.stdout).line()
        #expect(first.hasPrefix(mode == "delegate" ? "Registered as delegate" : "Watching 1 list"), "\(first)")
        // An edit: a question for the delegate (its reply waits), a notification for watch.
        let editor = try LineConnection(path: socket)
        try editor.send(#"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Groceries","item":"tea"}}"#)
        let pidFile = daemon.sandbox.path + "/sleep.pid"
        let deadline = Date().addingTimeInterval(10)
        var sleeper: pid_t?
        while sleeper == nil, Date() < deadline {
            sleeper = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if sleeper == nil { usleep(20_000) }
        }
        guard let sleeper else { throw TestFailure("the command did not start within 10 s") }
        listctl.signal(signal)
        #expect(listctl.wait(timeout: 10) != nil, "listctl ends")
        let gone = Date().addingTimeInterval(5)
        while !isGone(sleeper), Date() < gone { usleep(20_000) }
        #expect(isGone(sleeper), "the command's sleep ended with listctl")
        if !isGone(sleeper) { kill(sleeper, SIGKILL) }
    }
}
