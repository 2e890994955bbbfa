import Foundation
import Glibc
import Testing

/// Every limit has a clear error, and nothing a client sends crashes or wedges listd.
@Suite(.offThePool) struct LimitsTests {
    /// listd still answers, and is the same process.
    private func stillServes(_ daemon: Daemon) throws {
        let hello = try LineConnection(path: daemon.sandbox.socket).result("hello")
        #expect(hello["pid"] as? Int32 == daemon.pid)
    }

    @Test func aLineOverTheLimitGetsAnErrorThenTheConnectionCloses() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--max-line-bytes", "2048"])
        let connection = try LineConnection(path: daemon.sandbox.socket)
        try connection.send(
            #"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":""# + String(repeating: "x", count: 3000)
                + #""}}"#
        )
        let error = try #require(try connection.readObject()["error"] as? [String: Any])
        #expect((error["message"] as? String)?.contains("longer than 2048 bytes") == true, "\(error)")
        #expect(try connection.readLine() == nil, "closed")
        try stillServes(daemon)
    }

    @Test func connectionsOverTheLimitGetAnErrorLineAndAreClosed() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--max-connections", "3"])
        // The start-up probe's connection may still be closing: three that all answer are open.
        let open = try served(daemon, connections: 3)
        let extra = try LineConnection(path: daemon.sandbox.socket)
        let refused = try extra.readObject()
        let error = try #require(refused["error"] as? [String: Any])
        #expect(error["code"] as? Int == -32000)
        #expect((error["message"] as? String)?.contains("at most 3 connections") == true)
        #expect(try extra.readLine() == nil, "closed")
        #expect(daemon.logShows("refused a client: 3 connections are open already"))
        // One leaves; a newcomer is served (once listd has seen it leave).
        open[0].hangUp()
        _ = try served(daemon, connections: 1)
    }

    /// Issue 61, case 4: every refused client was a log line (2,000 in 0.94 s). The first ten of
    /// each reason a minute are; the rest are counted, and said in one line once the minute ends.
    @Test func aFloodOfRefusedClientsCostsAFewLogLines() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--max-connections", "3"])
        let open = try served(daemon, connections: 3)
        for _ in 0..<2_000 {
            let extra = try LineConnection(path: daemon.sandbox.socket)
            extra.hangUp()
        }
        // The fence: one more refused client, read to its end, after all of them.
        let last = try LineConnection(path: daemon.sandbox.socket)
        #expect((try last.readObject()["error"] as? [String: Any]) != nil)
        #expect(try last.readLine() == nil)
        let lines = daemon.logOutput.components(separatedBy: "refused a client: 3 connections are open already").count - 1
        #expect(lines == 10, "\(lines) lines for 2,001 refused clients")
        _ = open
    }

    /// `count` new connections that listd serves, trying again (for 10 s) while one is refused
    /// because a connection that was closed is still counted.
    private func served(_ daemon: Daemon, connections count: Int) throws -> [LineConnection] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let connections = try (0..<count).map { _ in try LineConnection(path: daemon.sandbox.socket) }
            if connections.allSatisfy({ (try? $0.call("hello"))?["result"] != nil }) { return connections }
            guard Date() < deadline else { throw TestFailure("\(count) connections were not served within 10 s") }
        }
    }

    /// Issue 61, case 5: a connection that never says who it is and sends nothing is let go
    /// once idle past `--idle-ms`, told why; one that said hello, a subscriber and a delegate
    /// stay however quiet they are.
    @Test func aQuietConnectionThatNeverSaidHelloIsLetGo() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--idle-ms", "300"])
        let socket = daemon.sandbox.socket
        let greeted = try LineConnection(path: socket)
        _ = try greeted.result("hello", ["name": "quiet but known"])
        let subscriber = try LineConnection(path: socket)
        _ = try subscriber.result("subscribe")
        let delegate = try LineConnection(path: socket)
        _ = try delegate.result("registerDelegate", ["name": "keeper", "questions": ["shouldRemove"]])
        let asked = try LineConnection(path: socket)
        _ = try asked.result("getLists")  // a request, but no hello
        let silent = try LineConnection(path: socket)
        // The fence: each unknown connection is told, then closed.
        for connection in [silent, asked] {
            let error = try #require(try connection.readObject(timeout: 10)["error"] as? [String: Any])
            #expect(error["code"] as? Int == -32002)
            #expect((error["message"] as? String)?.contains("sent nothing for 300 ms and never said hello") == true, "\(error)")
            #expect(try connection.readLine(timeout: 10) == nil, "closed")
        }
        #expect(daemon.logShows("let a client go: it sent nothing for 300 ms"))
        // The known ones stay: an edit reaches the subscriber, and the delegate is still asked.
        _ = try greeted.result("createList", ["name": "Groceries", "items": ["milk"]])
        #expect((try subscriber.readObject()["method"] as? String) == "didCreateShoppingList")
        try greeted.send(#"{"jsonrpc":"2.0","id":9,"method":"removeItem","params":{"list":1,"item":"milk"}}"#)
        let question = try delegate.readObject()
        #expect(question["method"] as? String == "shouldRemove", "\(question)")
    }

    @Test func aSubscriberThatStopsReadingIsDisconnectedAndNobodyElseWaits() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--max-outbound-bytes", "65536"])
        let socket = daemon.sandbox.socket
        let editor = try LineConnection(path: socket)
        _ = try editor.result("hello", ["name": "editor"])
        _ = try editor.result("createList", ["name": "Big"])
        let stalled = try LineConnection(path: socket)
        _ = try stalled.result("subscribe")  // and then never reads again
        let reader = try LineConnection(path: socket)
        _ = try reader.result("subscribe")
        // Each notification carries the whole list: they soon add up to megabytes.
        let filler = String(repeating: "x", count: 900)
        for index in 0..<100 {
            _ = try editor.result("addItem", ["list": 1, "item": "\(index) \(filler)"])
            #expect((try reader.readObject()["params"] as? [String: Any])?["revision"] as? Int == index + 2)
        }
        #expect(daemon.logShows("disconnecting a client that stopped reading"))
        // Past the limit, or behind and taking nothing for 3 s: whichever comes first (a loaded
        // machine makes these 100 edits slower than the grace).
        #expect(daemon.logShows("the limit is 65536") || daemon.logShows("it took nothing for", within: 0))
        // The stalled client finds its connection ended after what was already sent: the end
        // itself (recv returns 0), not a silence (readLine throws after its timeout).
        var linesBeforeTheEnd = 0
        while try stalled.readLine(timeout: 10) != nil {
            linesBeforeTheEnd += 1
            try #require(linesBeforeTheEnd <= 200, "the stalled subscriber kept getting lines: not disconnected")
        }
        try stillServes(daemon)
    }

    /// Issue 61, case 6: a subscriber that never reads, on listd's default limit (8 MiB), while
    /// another hears megabytes. Owing less than half the limit, it stayed connected and was later
    /// sent everything; now one that owes more than a quarter (2 MiB) and whose socket takes
    /// nothing for 3 s is let go.
    @Test func aSubscriberThatNeverReadsIsLetGoBeforeItOwesHalfTheLimit() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let editor = try LineConnection(path: socket)
        let filler = String(repeating: "x", count: 100)
        _ = try editor.result("createList", ["name": "Big", "items": (0..<1_000).map { "\($0) \(filler)" }])
        let never = try LineConnection(path: socket)
        _ = try never.result("subscribe")  // and then never reads again
        let reader = try LineConnection(path: socket)
        _ = try reader.result("subscribe")
        // 20 changes of a 100 KB list: 2 MB to the reader; with the 15 below at most, under half
        // the limit to the other (past it, it would lag, and was let go).
        var sent = 0
        for index in 0..<20 {
            _ = try editor.result("addItem", ["list": 1, "item": "more \(index)"])
            sent += try #require(try reader.readLine()).utf8.count + 1
        }
        #expect(sent > 2_000_000 && sent < 2_500_000, "\(sent) bytes")
        // Then the edits go on slowly, as a household's do: lines keep waiting for it.
        var letGo = false
        for index in 0..<15 where !letGo {
            _ = try editor.result("addItem", ["list": 1, "item": "later \(index)"])
            _ = try reader.readLine()
            letGo = daemon.logShows("it took nothing for", within: 1)
        }
        #expect(letGo, "the subscriber that never reads is still connected: \(daemon.logOutput.suffix(600))")
        // It finds its connection ended after what its socket held: the end, not a silence.
        var received = 0
        while let line = try never.readLine(timeout: 10) {
            received += line.utf8.count + 1
            try #require(received <= 4 << 20, "it kept being sent lines: not let go")
        }
        try stillServes(daemon)
    }

    @Test func deepNestingAndOversizedBatchesAreRefusedAndTheConnectionGoesOn() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--max-batch", "10"])
        let connection = try LineConnection(path: daemon.sandbox.socket)
        try connection.send(
            #"{"jsonrpc":"2.0","id":1,"method":"hello","params":{"name":"# + String(repeating: "[", count: 100_000)
                + String(repeating: "]", count: 100_000) + "}}"
        )
        let deep = try #require(try connection.readObject()["error"] as? [String: Any])
        #expect((deep["message"] as? String)?.contains("nested deeper than 64 levels") == true)

        let hello = #"{"jsonrpc":"2.0","id":1,"method":"hello"}"#
        try connection.send("[" + Array(repeating: hello, count: 11).joined(separator: ",") + "]")
        let batch = try #require(try connection.readObject()["error"] as? [String: Any])
        #expect((batch["message"] as? String)?.contains("at most 10 are taken at once") == true)
        try connection.send("[" + Array(repeating: hello, count: 10).joined(separator: ",") + "]")
        #expect((try connection.readJSON() as? [Any])?.count == 10)
    }

    @Test func badInputNeverCrashesOrWedgesListd() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let idle = try LineConnection(path: socket)  // connects and never sends
        _ = idle
        let connection = try LineConnection(path: socket)
        _ = try connection.result("createList", ["name": "Groceries"])
        let garbage: [[UInt8]] = [
            [0xFF, 0xFE, 0x00, 0x80, 0x0A],  // not UTF-8
            (0..<4096).map { _ in UInt8.random(in: 0...255) }.filter { $0 != 0x0A } + [0x0A],  // binary noise
            Array("{\"jsonrpc\":\"2.0\",\"id\":1e999999,\"method\":\"hello\"}\n".utf8),  // huge numbers
            Array(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"getList\",\"params\":{\"list\":123456789012345678901234567890}}\n"
                    .utf8
            ),
            Array("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"addItem\",\"params\":{\"list\":true,\"item\":5}}\n".utf8),  // wrong types
            Array("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"addItem\",\"params\":[1,2,3]}\n".utf8),
            Array("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"hello\"}\n".utf8),
            Array("\"just a string\"\n".utf8),
            Array("[]\n".utf8),
            Array("[1,2,3]\n".utf8),
            Array(
                "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"addItem\",\"params\":{\"list\":1,\"item\":\"\\u0000\\ud800\"}}\n"
                    .utf8
            ),
        ]
        for bytes in garbage {
            try connection.sendBytes(bytes)
            // Every line gets a reply (an error); none is fatal to the connection.
            let reply = try connection.readJSON()
            let object = (reply as? [String: Any]) ?? (reply as? [[String: Any]])?.first ?? [:]
            #expect(object["error"] != nil, "an error for \(bytes.prefix(40))")
        }
        // A number id beyond 64 bits is an id all the same (JSON-RPC allows any number): served,
        // and echoed as written so that the client can match it.
        try connection.send(#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"hello"}"#)
        #expect(try connection.readLine()?.hasPrefix(#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":"#) == true)
        _ = try connection.result("hello")
        #expect(try connection.result("getList", ["list": 1])["items"] as? [String] == [])

        // A partial line, then the client is gone.
        let partial = try LineConnection(path: socket)
        try partial.sendBytes(Array(#"{"jsonrpc":"2.0","id":1,"method":"addIt"#.utf8))
        partial.hangUp()

        // A flood of connections that come and go.
        for _ in 0..<300 {
            let flash = try LineConnection(path: socket)
            try flash.sendBytes(Array(#"{"jsonrpc":"2.0","id":1,"met"#.utf8))
            flash.hangUp()
        }
        try stillServes(daemon)
        #expect(try connection.result("getList", ["list": 1])["items"] as? [String] == [])
    }
}

@Suite(.offThePool) struct ClientInputIsOnlyDataTests {
    @Test func namesAndItemsThatLookLikePathsOrCommandsAreJustText() throws {
        let daemon = try Daemon.start()
        let marker = "/tmp/listd-escape-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let client = try LineConnection(path: daemon.sandbox.socket)
        let name = "../../../..\(marker)"
        _ = try client.result(
            "createList",
            ["name": name, "items": ["$(touch \(marker)-shell)", "`touch \(marker)-tick`; touch \(marker)-semi"]]
        )
        // Through listctl watch --exec too: the notification goes to the command's stdin only.
        let received = marker + "-received.json"
        defer { unlink(received) }
        let watch = try ChildProcess(
            Binaries.listctl.path,
            ["watch", "--exec", "--socket", daemon.sandbox.socket, "--", "/usr/bin/tee", received]
        )
        defer { watch.signal(SIGTERM) }
        _ = try LineReader(watch.stdout).line()  // subscribed
        _ = try client.result("addItem", ["list": 1, "item": "; touch \(marker)-exec"])
        let deadline = Date().addingTimeInterval(10)
        while !((try? String(contentsOfFile: received, encoding: .utf8))?.contains("touch \(marker)-exec") ?? false),
            Date() < deadline
        {
            usleep(10_000)
        }
        #expect((try? String(contentsOfFile: received, encoding: .utf8))?.contains("touch \(marker)-exec") == true)
        daemon.kill()
        try daemon.start()
        #expect(
            try LineConnection(path: daemon.sandbox.socket).result("getList", ["list": 1])["name"] as? String == name
        )
        for suffix in ["", "-shell", "-tick", "-semi", "-exec"] {
            #expect(!FileManager.default.fileExists(atPath: marker + suffix), "\(marker + suffix) was created")
        }
        // Only listd's own files are in its directory.
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: daemon.sandbox.path))
        #expect(
            files.subtracting([".lists.md.listd-replaced"])
                == ["lists.md", ".lists.md.listd-state.json", ".lists.md.listd-log", ".lists.md.listd-lock", "listd.sock"]
        )
    }
}

/// What running a client as another user takes.
private enum OtherUsers {
    static let need = "root, setpriv and groupadd (to run listctl as nobody, in a group made for the test)"
    static var canSwitch: Bool {
        getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0 && access("/usr/sbin/groupadd", X_OK) == 0
            && getpwnam("nobody") != nil
    }
}

/// Who may connect: SO_PEERCRED is checked on accept. These run listctl as the user nobody
/// (setpriv), so they need root; the group they allow is made for them and removed after.
@Suite(.offThePool, .enabled(if: Requirement.runs(OtherUsers.canSwitch, needing: OtherUsers.need)))
struct AccessTests {
    static let need = OtherUsers.need
    static var canSwitchUsers: Bool { OtherUsers.canSwitch }

    /// Runs listctl as the user nobody (uid 65534, group nogroup 65534).
    private func listctlAsNobody(_ arguments: [String], socket: String) throws -> Run {
        try ChildProcess.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.listctl.path] + arguments + [
                "--socket", socket,
            ],
            environment: ProcessInfo.processInfo.environment
        )
    }

    /// Lets anyone reach the socket, so that only listd's own check stands in the way.
    private func openUp(_ sandbox: Sandbox) {
        chmod(sandbox.path, 0o755)
        chmod(sandbox.socket, 0o666)
    }

    @Test func anotherUserIsRefusedWithAClearErrorAndLogged() throws {
        try Requirement.check(Self.canSwitchUsers, needing: Self.need)
        let daemon = try Daemon.start()
        // listd accepts before it gives the socket its mode: wait for that first.
        #expect(daemon.logShows("listening on"))
        var info = stat()
        #expect(stat(daemon.sandbox.socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
        openUp(daemon.sandbox)
        let run = try listctlAsNobody(["lists"], socket: daemon.sandbox.socket)
        #expect(run.status != 0)
        // The refused uid comes first, so that it does not read as root's.
        #expect(
            run.stderr.contains(
                "Not allowed for uid 65534: this listd serves only its own user (uid 0) and root; this connection is closed."
            )
        )
        #expect(daemon.logShows("refused a client: this listd serves only its own user (uid 0) and root"))
        #expect(daemon.logShows("uid 65534"))
        // Its own user (root here) is served.
        #expect(try listctl(["lists"], socket: daemon.sandbox.socket).status == 0)
    }

    /// listd-web's control socket, opened to everyone by mistake (as the review did): another
    /// user gets no pairing link, and the refusal is logged; root still pairs.
    @Test func listdWebsControlSocketRefusesAnotherUser() throws {
        try Requirement.check(Self.canSwitchUsers, needing: Self.need)
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox)
        chmod(daemon.sandbox.path, 0o755)
        chmod(daemon.sandbox.path + "/web", 0o755)
        chmod(web.controlSocket, 0o666)
        let run = try ChildProcess.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.listctl.path, "web", "pair", "Sneaky", "--control-socket", web.controlSocket],
            environment: ProcessInfo.processInfo.environment
        )
        #expect(run.status != 0 && !run.stdout.contains("/pair#"), "\(run.stdout)")
        #expect(run.stderr.contains("Not allowed for uid 65534"), "\(run.stderr)")
        #expect(web.logShows("refused a control connection"))
        #expect(try web.listctlWeb(["devices"]).stdout.contains("Sneaky") == false)
        #expect(try web.pairingLink("Kitchen phone").contains("/pair#"))
    }

    @Test func membersOfTheAllowedGroupAreServedAndTheSocketIsTheGroups() throws {
        try Requirement.check(Self.canSwitchUsers, needing: Self.need)
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--allow-group", "nogroup"])
        // listd accepts before it gives the socket its group and mode: wait for that first.
        #expect(daemon.logShows("listening on"))
        var info = stat()
        #expect(stat(daemon.sandbox.socket, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(info.st_gid == 65534)
        #expect(stat(daemon.sandbox.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o750)
        chmod(daemon.sandbox.path, 0o755)  // the sandbox itself stands for /run
        let run = try listctlAsNobody(["lists"], socket: daemon.sandbox.socket)
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// Issue 36, item 4: a user the socket's mode (or its directory's) keeps out is told the socket
    /// is there and which group to join — not to start a listd that is running.
    @Test func aUserTheSocketKeepsOutIsToldWhichGroupToJoin() throws {
        try Requirement.check(Self.canSwitchUsers, needing: Self.need)
        let group = "listd-t\(getpid())"
        #expect(try ChildProcess.run("/usr/sbin/groupadd", [group]).status == 0)
        defer { _ = try? ChildProcess.run("/usr/sbin/groupdel", [group]) }
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--allow-group", group])
        #expect(daemon.logShows("listening on"), "listd said it listens once the socket's mode is set")
        // Its directory is 0750 with the group: nobody cannot even see the socket.
        var run = try listctlAsNobody(["lists"], socket: daemon.sandbox.socket)
        #expect(run.status == 3)
        #expect(
            run.stderr.contains(
                "listd's socket \(daemon.sandbox.socket) is there, but only root and the group \(group) may use it (its directory \(daemon.sandbox.path) is mode 750), and you (nobody) are not in \(group)."
            ),
            "\(run.stderr)"
        )
        #expect(run.stderr.contains("sudo usermod -aG \(group) nobody"), "\(run.stderr)")
        #expect(!run.stderr.contains("Start it with"), "\(run.stderr)")
        chmod(daemon.sandbox.path, 0o755)  // the sandbox itself stands for /run
        run = try listctlAsNobody(["lists"], socket: daemon.sandbox.socket)
        #expect(run.status == 3)
        #expect(
            run.stderr.contains("listd's socket \(daemon.sandbox.socket) is there, but only root and the group \(group) may use it, and you (nobody) are not in \(group)."),
            "\(run.stderr)"
        )
    }

    /// Members (uids in the allowed group, as `setpriv` makes them) that connect `count` times
    /// each, say hello on every connection and hold them all: what each connection was told.
    private final class Hoarder {
        let process: ChildProcess
        let answers: [String]

        init(uid: Int, connections count: Int, socket: String) throws {
            let script = """
                import json, socket, sys, time
                held = []
                for _ in range(int(sys.argv[2])):
                    s = socket.socket(socket.AF_UNIX)
                    s.connect(sys.argv[1])
                    try:  # a refused connection may be closed already: its error line waits
                        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"hello","params":{"name":"hoarder"}}\\n')
                    except OSError:
                        pass
                    reply = json.loads(s.makefile().readline() or "{}")
                    error = reply.get("error")
                    print("served" if "result" in reply else (error or {}).get("data", {}).get("reason", "closed"), flush=True)
                    held.append(s)
                print("holding", flush=True)
                time.sleep(600)
                """
            process = try ChildProcess(
                "/usr/bin/setpriv",
                ["--reuid=\(uid)", "--regid=65534", "--clear-groups", "--", "/usr/bin/python3", "-c", script, socket, "\(count)"],
                mergeOutput: true
            )
            let reader = LineReader(process.stdout)
            var answers: [String] = []
            while true {
                guard let line = try? reader.line().trimmingCharacters(in: .whitespaces) else {
                    throw TestFailure("the member's client ended before holding its connections: \(answers)")
                }
                if line == "holding" { break }
                answers.append(line)
            }
            self.answers = answers
        }

        func count(_ answer: String) -> Int { answers.filter { $0 == answer }.count }

        func stop() {
            process.signal(SIGKILL)
            process.wait()
        }
    }

    /// Issue 61, case 5: one member could hold all of listd's connections, and the owner's
    /// listctl then exited 4. Now each member holds a quarter at most, and the last sixteenth
    /// stays for listd's own user and root: with four members holding all they may, the owner's
    /// delegate and listctl are still served.
    @Test func membersHoldingConnectionsLeaveRoomForTheOwner() throws {
        try Requirement.check(Self.canSwitchUsers, needing: Self.need)
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--allow-group", "nogroup", "--max-connections", "32"])
        #expect(daemon.logShows("listening on"), "listd said it listens once the socket's mode is set")
        openUp(daemon.sandbox)
        #expect(try listctl(["create", "Groceries", "milk"], socket: daemon.sandbox.socket).status == 0)
        // A quarter of 32 is 8: the ninth and tenth of one member are refused.
        let first = try Hoarder(uid: 200_001, connections: 10, socket: daemon.sandbox.socket)
        defer { first.stop() }
        #expect(first.count("served") == 8 && first.count("tooManyConnectionsOfUser") == 2, "\(first.answers)")
        #expect(daemon.logShows("refused a client: uid 200001 holds its share of 8 connections already"))
        // Another member is served meanwhile, then two more take theirs up to the reserve:
        // 32 less 2 kept for the owner.
        let others = try (200_002...200_004).map { try Hoarder(uid: $0, connections: 8, socket: daemon.sandbox.socket) }
        defer { others.forEach { $0.stop() } }
        #expect(others[0].count("served") == 8, "\(others[0].answers)")
        #expect(others[1].count("served") == 8, "\(others[1].answers)")
        let last = others[2]
        #expect(last.count("served") >= 5 && last.count("tooManyConnections") >= 2, "\(last.answers)")
        #expect(last.answers.prefix(while: { $0 == "served" }).count == last.count("served"), "refused only once full")
        // The owner (root here) is served in the reserve: its delegate, and listctl beside it.
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "keeper", "questions": ["shouldRemove"]])
        let added = try listctl(["add", "Groceries", "bread"], socket: daemon.sandbox.socket)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("bread"), "\(added.stdout)")
        // A fifth member gets nothing of the reserve.
        let fifth = try Hoarder(uid: 200_005, connections: 1, socket: daemon.sandbox.socket)
        defer { fifth.stop() }
        #expect(fifth.answers == ["tooManyConnections"], "\(fifth.answers)")
        #expect(daemon.logShows("are kept for listd's own user and root"))
    }

    /// A user whose membership of the allowed group is a supplementary one (in the group
    /// database, not the user's primary group) is served too; before, a group nobody is not in
    /// keeps them out.
    @Test func aMemberThroughASupplementaryGroupIsServed() throws {
        try Requirement.check(Self.canSwitchUsers, needing: Self.need)
        let group = "listd-test-\(getpid())"
        #expect(try ChildProcess.run("/usr/sbin/groupadd", [group]).status == 0)
        defer { _ = try? ChildProcess.run("/usr/sbin/groupdel", [group]) }
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--allow-group", group])
        // listd accepts before it gives the socket its group and mode: wait for that first.
        #expect(daemon.logShows("listening on"), "listd said it listens once the socket's mode is set")
        chmod(daemon.sandbox.path, 0o755)  // the sandbox itself stands for /run
        chmod(daemon.sandbox.socket, 0o666)  // only listd's own check stands in the way
        let refused = try listctlAsNobody(["lists"], socket: daemon.sandbox.socket)
        #expect(refused.status != 0, "nobody is not in \(group) yet")
        #expect(refused.stderr.contains("Not allowed for uid 65534"), "\(refused.stderr)")

        let added = try ChildProcess.run("/usr/sbin/usermod", ["-a", "-G", group, "nobody"])
        #expect(added.status == 0, "\(added.stderr)")
        let run = try listctlAsNobody(["lists"], socket: daemon.sandbox.socket)
        #expect(run.status == 0, "\(run.stderr)")
    }
}
