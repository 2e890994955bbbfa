import Foundation
import Glibc
import Synchronization
import Testing

/// Issue 29: several real listd share their lists through a real PostgreSQL (`--share`), each
/// with its own socket and list file, as a household's machines would.
@Suite(.serialized) struct SharingTests {
    /// Three listd on one server.
    final class Household: @unchecked Sendable {
        let server: PostgresServer
        var machines: [Daemon] = []

        init(machines count: Int = 3, arguments: [String] = []) throws {
            server = try PostgresServer()
            for _ in 0..<count {
                machines.append(try Daemon.start(in: try Sandbox(), arguments: ["--share", server.url()] + arguments))
            }
        }

        func connect(_ machine: Int) throws -> LineConnection { try LineConnection(path: machines[machine].sandbox.socket) }

        /// Groceries, created on the first machine, once the second machine's file shows it.
        func createGroceries(_ items: [String] = []) throws {
            _ = try connect(0).result("createList", ["name": "Groceries", "items": items])
            _ = try machines[1].sandbox.read { $0.contains("# Groceries") }
        }
    }

    /// listd's stop awaits the shared store's work (its connection, its reconnections, a doubt's
    /// check): with the server there, and with the server gone while listd tries to reach it
    /// again, SIGTERM stops it at once (20 s is a hang's bound, not a speed) with status 0.
    @Test func aListdStopsWithItsServerThereOrGone() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            try home.createGroceries(["milk"])
            #expect(try home.machines[1].stop(within: 20) == 0, "with the server there")
            home.server.kill()
            // The loss is noticed (an edit is refused `unavailable`) and the reconnections begin.
            // Each try on a connection of its own: one whose COMMIT the kill left in doubt has its
            // reply held until listd can ask the server (docs/sharing.md), which is not coming
            // back; it is not waited for (the full run once waited 30 s for it, and failed).
            var reason = ""
            var heldInDoubt = 0
            for _ in 0..<250 where reason != "unavailable" {
                let client = try home.connect(0)
                do {
                    let reply = try client.call("addItem", ["list": "Groceries", "item": "tea"], timeout: 8)
                    reason = (((reply["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String) ?? ""
                } catch let failure as TestFailure where failure.description.hasPrefix("no line within") {
                    heldInDoubt += 1
                }
                if reason != "unavailable" { usleep(20_000) }
            }
            #expect(reason == "unavailable", "replies held in doubt: \(heldInDoubt)")
            #expect(try home.machines[0].stop(within: 20) == 0, "with the server gone, while reconnecting")
        }
    }

    /// An edit whose COMMIT was sent and never answered: the server waits for a synchronous
    /// standby that does not exist (so the COMMIT hangs, its outcome unknown), then hangs
    /// (SIGSTOP: its sockets open, nothing answered, no reconnection). Returns the connection
    /// whose `addItem` (id 7) is held.
    private static func editInDoubt(_ home: Household) throws -> LineConnection {
        _ = try home.connect(0).result("createList", ["name": "Groceries", "items": ["milk"]])
        // A fence: the file shows the list, so no append is under way (the file is replaced once
        // an append it waits for is durable, or its note rides the next one).
        _ = try home.machines[0].sandbox.read { $0.contains("# Groceries") }
        try home.server.psql("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        try home.server.psql("SELECT pg_reload_conf()")
        // A fence: listd's COMMIT waits for the standby. On a loaded machine the append may miss
        // its deadline before it sends COMMIT: then the edit is refused `unavailable` (as it
        // should be) and another is tried, on a connection of its own.
        let deadline = Date().addingTimeInterval(40)
        var refused: [String] = []
        for attempt in 0..<3 {
            let client = try home.connect(0)
            try client.send(#"{"jsonrpc":"2.0","id":7,"method":"addItem","params":{"list":"Groceries","item":"tea \#(attempt)"}}"#)
            while try home.server.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'") != "1\n" {
                guard Date() < deadline else { throw TestFailure("listd's COMMIT never waited for the standby: \(refused) \(home.machines[0].logOutput)") }
                var poller = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 20) > 0 { break }  // answered before its COMMIT was sent
            }
            var poller = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 0) > 0 {
                refused.append("\(try client.readObject())")
                continue
            }
            home.server.hang()
            return client
        }
        throw TestFailure("every try was answered before its COMMIT: \(refused)")
    }

    /// Issue 60, case 4: with the server hung (SIGSTOP: sockets open, nothing answered) before
    /// an edit's COMMIT was sent, the edit is refused `unavailable` at its deadline — answered
    /// while the server is still hung, not held for the whole outage — and never made after.
    @Test func anEditWhoseCommitWasNeverSentIsRefusedAtItsDeadlineWhileTheServerHangs() async throws {
        try await offThePool {
            let home = try Household(machines: 1)
            defer { home.server.kill() }
            _ = try home.connect(0).result("createList", ["name": "Groceries", "items": ["milk"]])
            _ = try home.machines[0].sandbox.read { $0.contains("# Groceries") }
            home.server.hang()
            let reply = try home.connect(0).call("addItem", ["list": "Groceries", "item": "tea"], timeout: 40)
            let error = reply["error"] as? [String: Any]
            #expect((error?["data"] as? [String: Any])?["reason"] as? String == "unavailable", "\(reply)")
            home.server.resume()
            // Once the server answers again, listd connects again; tea is in no one's lists.
            let deadline = Date().addingTimeInterval(20)
            while (try home.connect(0).result("hello")["share"] as? [String: Any])?["connected"] as? Bool != true, Date() < deadline {
                usleep(50_000)
            }
            let stored = try home.server.psql("SELECT count(*) FROM listd_changes WHERE entry LIKE '%tea%'", database: "lists")
            #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "a refused edit was made")
            #expect(try home.connect(0).result("getList", ["list": "Groceries"])["items"] as? [String] == ["milk"])
        }
    }

    /// Issue 60: `hello`'s `connected` tells the truth while listd is idle. The server hangs
    /// (SIGSTOP: its sockets stay open, nothing is answered) and no one edits: listd finds out by
    /// asking (every 5 s, under the 5 s deadline) and says `connected: false` — before, it said
    /// true until the next edit met its deadline — then `true` again once the server answers.
    @Test func anIdleListdSaysItIsNotConnectedOnceItsServerStopsAnswering() async throws {
        try await offThePool {
            let home = try Household(machines: 1)
            defer { home.server.kill() }
            _ = try home.connect(0).result("createList", ["name": "Groceries", "items": ["milk"]])
            func connected() throws -> Bool? {
                (try home.connect(0).result("hello")["share"] as? [String: Any])?["connected"] as? Bool
            }
            #expect(try connected() == true)
            home.server.hang()
            var deadline = Date().addingTimeInterval(20)
            while try connected() != false, Date() < deadline { usleep(100_000) }
            #expect(try connected() == false, "an idle listd still says it is connected to a server that answers nothing")
            home.server.resume()
            deadline = Date().addingTimeInterval(20)
            while try connected() != true, Date() < deadline { usleep(100_000) }
            #expect(try connected() == true)
            #expect(try home.connect(0).result("addItem", ["list": "Groceries", "item": "tea"])["items"] as? [String] == ["milk", "tea"])
        }
    }

    /// Issue 60, case 5: the server shut down (fast, as `pg_ctl stop -m fast` does: it closes its
    /// sessions) between edits. The next edit is refused for the closed connection — not held to
    /// its 5 s deadline as if the server had stopped answering — and the server is found again
    /// once it is back.
    @Test(arguments: 0..<3)
    func anEditOnAConnectionTheServerClosedIsRefusedForThat(_ run: Int) async throws {
        try await offThePool {
            let home = try Household(machines: 1)
            _ = try home.connect(0).result("createList", ["name": "Groceries", "items": ["milk"]])
            _ = try home.machines[0].sandbox.read { $0.contains("# Groceries") }
            home.server.stop()
            let reply = try home.connect(0).call("addItem", ["list": "Groceries", "item": "tea"], timeout: 40)
            let error = reply["error"] as? [String: Any]
            #expect((error?["data"] as? [String: Any])?["reason"] as? String == "unavailable", "\(reply)")
            #expect((error?["message"] as? String)?.contains("did not answer within") == false, "\(reply)")
            try home.server.start()
            let deadline = Date().addingTimeInterval(20)
            var made: [String: Any] = [:]
            repeat {
                made = try home.connect(0).call("addItem", ["list": "Groceries", "item": "tea"], timeout: 40)
                if made["result"] == nil { usleep(100_000) }
            } while made["result"] == nil && Date() < deadline
            #expect(made["result"] != nil, "\(made)")
        }
    }

    /// An edit in doubt is answered within its bound (the append's deadline, then
    /// `inDoubtAnswerBound`) though the server never comes back: its outcome is not known.
    @Test func anEditInDoubtIsAnsweredWithinItsBound() async throws {
        try await offThePool {
            let home = try Household(machines: 1)
            defer { home.server.kill() }
            let client = try Self.editInDoubt(home)
            let reply = try client.readObject(timeout: 40)
            let error = reply["error"] as? [String: Any]
            #expect((error?["data"] as? [String: Any])?["reason"] as? String == "outcomeUnknown", "\(reply)")
            #expect((error?["message"] as? String)?.contains("did not answer within") == true, "\(reply)")
        }
    }

    /// An edit in doubt with the server hung; a SIGTERM meanwhile still stops listd at once, with
    /// status 0, and the held client is told the outcome is not known rather than nothing. (The
    /// connections end before the owner stops: a held reply kept listd from stopping at all.)
    @Test func aListdStopsWhileAnEditIsInDoubt() async throws {
        try await offThePool {
            let home = try Household(machines: 1)
            defer { home.server.kill() }
            let client = try Self.editInDoubt(home)
            // Past the append's deadline (5 s): the edit is held in doubt, listd reconnecting.
            #expect(home.machines[0].logShows("1 edit(s) may have been made", within: 20))
            #expect(!home.machines[0].logShows("edit(s) not applied", within: 0), "an edit in doubt is not said lost")
            #expect(try home.machines[0].stop(within: 20) == 0)
            let reply = try client.readObject(timeout: 30)
            let error = reply["error"] as? [String: Any]
            #expect((error?["data"] as? [String: Any])?["reason"] as? String == "outcomeUnknown", "\(reply)")
            #expect((error?["message"] as? String)?.contains("listd stopped") == true, "\(reply)")
        }
    }

    private static func changeSummary(_ note: [String: Any]) -> String {
        let params = note["params"] as? [String: Any] ?? [:]
        let list = params["list"] as? [String: Any] ?? [:]
        let changes = (params["changes"] as? [[String: Any]] ?? []).map { "\($0["op"] ?? "") \($0["item"] ?? $0["to"] ?? "")" }
        return "#\(params["revision"] ?? "?") \(note["method"] ?? "?") \(list["id"] ?? "?") \(list["name"] ?? "?") \(changes)"
    }

    @Test func aChangeOnOneMachineReachesTheOthersSubscribersAndFiles() async throws {
        try await offThePool {
            let home = try Household(arguments: ["--log", "stderr", "--log-level", "debug"])
            let subscribers = try (1...2).map { machine in
                let subscriber = try home.connect(machine)
                _ = try subscriber.result("subscribe")
                return subscriber
            }
            let kitchen = try home.connect(0)
            let created = try kitchen.result("createList", ["name": "Groceries", "items": ["milk"]])
            #expect(created["revision"] as? Int == 1)
            for subscriber in subscribers {
                #expect(Self.changeSummary(try subscriber.readObject()) == "#1 didCreateShoppingList 1 Groceries []")
            }
            let upstairs = try home.connect(1)
            let added = try upstairs.result("addItem", ["list": "Groceries", "item": "eggs"])
            #expect(added["items"] as? [String] == ["milk", "eggs"])
            #expect(added["revision"] as? Int == 2, "one revision counter for every machine")
            #expect(Self.changeSummary(try subscribers[1].readObject()) == "#2 didUpdateShoppingList 1 Groceries [\"add eggs\"]")
            // Every machine's file shows it; every machine answers reads with it, and the same instance.
            for machine in home.machines {
                let text = try machine.sandbox.read { $0.contains("- [ ] eggs") }
                #expect(text.withoutListdName.contains("# Groceries <!-- listd id=1 rev=2 -->\n- [ ] milk\n- [ ] eggs"), "\(text)")
            }
            let instances = try (0..<3).map { try home.connect($0).result("getLists")["instance"] as? String }
            #expect(Set(instances).count == 1 && instances[0] != nil)
            // A duplicate from another machine is denied by the same rules.
            let error = try home.connect(2).error("addItem", ["list": "Groceries", "item": "MILK"])
            #expect((error["data"] as? [String: Any])?["reason"] as? String == "itemExists")
            // History and undo span the machines: the third undoes what the second did.
            let undone = try home.connect(2).result("undo", ["revision": 2])
            #expect((undone["list"] as? [String: Any])?["items"] as? [String] == ["milk"])
            #expect(Self.changeSummary(try subscribers[0].readObject()).hasPrefix("#2 "))
            let note = try subscribers[0].readObject()
            #expect(Self.changeSummary(note) == "#3 didUpdateShoppingList 1 Groceries [\"remove eggs\"]")
            #expect((note["params"] as? [String: Any])?["undoes"] as? Int == 2)
            // The journal: each machine logs its own changes in full, and others' at debug level
            // with the machine they came from.
            let upstairsFile = home.machines[1].sandbox.file
            #expect(home.machines[0].logShows("added “eggs” to Groceries (revision 2, by pid"), "\(home.machines[0].logOutput.suffix(2000))")
            #expect(home.machines[0].logShows(" on \(ProcessInfo.processInfo.hostName):"), "names the machine")
            #expect(home.machines[0].logShows(upstairsFile), "…and its list file")
        }
    }

    /// Two machines add the same item at the same moment, many times over: exactly one confirm
    /// and one `itemExists` each time.
    @Test func concurrentDuplicateAddsFromTwoMachinesGetExactlyOneConfirm() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            let clients = try (0..<2).map { try home.connect($0) }
            try home.createGroceries()
            for round in 0..<40 {
                let item = "item \(round)"
                for client in clients {
                    try client.send(
                        #"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Groceries","item":"\#(item)"}}"#
                    )
                }
                let replies = try clients.map { try $0.readObject() }
                let confirmed = replies.filter { $0["result"] != nil }.count
                let duplicates = replies.filter {
                    (($0["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String == "itemExists"
                }.count
                #expect(confirmed == 1 && duplicates == 1, "round \(round): \(replies)")
            }
            let lists = try (0..<2).map { try home.connect($0).result("getList", ["list": "Groceries"])["items"] as? [String] }
            #expect(lists[0]?.count == 40)
            #expect(lists[0] == lists[1])
        }
    }

    /// 20 clients spread over three machines edit at once while two subscribers on each listen:
    /// all six hear the same gap-free sequence, and it replays to the lists every machine has.
    @Test func twentyClientsOnThreeMachinesAndSixSubscribersAgreeOnEveryChange() async throws {
        try await offThePool {
            let home = try Household()
            _ = try home.connect(0).result("createList", ["name": "Groceries"])
            let subscribers = try (0..<6).map { index in
                let subscriber = try home.connect(index % 3)
                let reply = try subscriber.result("subscribe", ["since": 0])
                #expect(reply["revision"] as? Int ?? 0 >= 0)
                return subscriber
            }
            let perClient = 15
            let group = DispatchGroup()
            let failures = Mutex<[String]>([])
            for client in 0..<20 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    do {
                        let connection = try home.connect(client % 3)
                        for index in 0..<perClient {
                            let item = "c\(client)-\(index)"
                            _ = try connection.result("addItem", ["list": "Groceries", "item": item])
                            if index % 3 == 2 { _ = try connection.result("checkItem", ["list": "Groceries", "item": item]) }
                            if index % 5 == 4 { _ = try connection.result("removeItem", ["list": "Groceries", "item": item]) }
                        }
                    } catch {
                        failures.withLock { $0.append("client \(client): \(error)") }
                    }
                }
            }
            try wait(for: group, "20 clients editing")
            #expect(failures.withLock { $0 } == [])
            // A machine serves another's confirmed change once it has fetched it (a NOTIFY away):
            // wait, with a limit, until all three serve the latest revision.
            func revisions() throws -> [Int] {
                try (0..<3).map { try home.connect($0).result("getLists")["revision"] as? Int ?? -1 }
            }
            let deadline = Date().addingTimeInterval(10)
            var served = try revisions()
            while Set(served).count > 1 {
                guard Date() < deadline else { throw TestFailure("the machines did not agree within 10 s: \(served)") }
                usleep(10_000)
                served = try revisions()
            }
            let final = try home.connect(0).result("getList", ["list": "Groceries"])
            let lastRevision = served[0]
            var sequences: [[String]] = []
            for subscriber in subscribers {
                var heard: [String] = []
                var items: [String] = []
                var revision = 0
                while revision < lastRevision {
                    let note = try subscriber.readObject()
                    let params = note["params"] as? [String: Any] ?? [:]
                    let next = params["revision"] as? Int ?? -1
                    #expect(next == revision + 1, "gap-free: \(revision) then \(next)")
                    revision = next
                    heard.append(Self.changeSummary(note))
                    items = (params["list"] as? [String: Any])?["items"] as? [String] ?? items
                }
                #expect(items == final["items"] as? [String], "the sequence ends in the lists every machine has")
                sequences.append(heard)
            }
            #expect(Set(sequences.map { $0.joined(separator: "\n") }).count == 1, "all six heard the same sequence")
            for machine in 1..<3 {
                #expect(try home.connect(machine).result("getList", ["list": "Groceries"])["items"] as? [String] == final["items"] as? [String])
            }
        }
    }

    @Test func aListdKilledAndRestartedCatchesUpOnWhatTheOthersDid() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            try home.createGroceries(["milk"])
            home.machines[1].kill()
            for item in ["eggs", "bread", "tea"] { _ = try home.connect(0).result("addItem", ["list": "Groceries", "item": item]) }
            _ = try home.connect(0).result("renameList", ["list": "Groceries", "name": "Food"])
            try home.machines[1].start(arguments: ["--share", home.server.url()])
            let upstairs = try home.connect(1)
            let list = try upstairs.result("getList", ["list": "Food"])
            #expect(list["items"] as? [String] == ["milk", "eggs", "bread", "tea"])
            #expect(list["revision"] as? Int == 5)
            let text = try home.machines[1].sandbox.read { $0.contains("# Food") && $0.contains("tea") }
            #expect(text.withoutListdName.contains("# Food <!-- listd id=1 rev=5 -->\n- [ ] milk\n- [ ] eggs\n- [ ] bread\n- [ ] tea"), "\(text)")
            // A subscriber resumes from before the restart, across machines.
            let history = try upstairs.result("getHistory", ["since": 1])
            #expect((history["changes"] as? [[String: Any]])?.count == 4)
        }
    }

    /// Issue 35, case 1 across machines: a copy of one machine's file read before another
    /// machine's add, written back after it with a tick: the add stays, on both machines and in
    /// the file.
    @Test func aSaveFromAnOlderCopyKeepsWhatAnotherMachineAddedMeanwhile() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            _ = try home.connect(0).result("createList", ["name": "Pantry", "items": ["rice", "oats"]])
            let copy = try home.machines[0].sandbox.read { $0.contains("- [ ] oats") && $0.contains(" rev=") }
            _ = try home.connect(1).result("addItem", ["list": "Pantry", "item": "salt"])
            _ = try home.machines[0].sandbox.read { $0.contains("salt") }
            try copy.replacing("- [ ] rice", with: "- [x] rice").write(
                toFile: home.machines[0].sandbox.file,
                atomically: false,
                encoding: .utf8
            )
            let upstairs = try home.connect(1)
            let deadline = Date().addingTimeInterval(10)
            var list: [String: Any] = [:]
            repeat {
                list = try upstairs.result("getList", ["list": "Pantry"])
                if list["checked"] as? [String] == ["rice"] { break }
                usleep(20_000)
            } while Date() < deadline
            #expect(list["checked"] as? [String] == ["rice"], "the tick reaches the other machine: \(list)")
            #expect(list["items"] as? [String] == ["rice", "oats", "salt"], "\(list)")
            let text = try home.machines[0].sandbox.read { $0.contains("salt") && $0.contains("[x] rice") }
            #expect(text.contains("- [ ] salt") && text.contains("- [x] rice"), "\(text)")
            #expect(!home.machines[0].logOutput.contains("removed “salt”"))
        }
    }

    /// Issue 47, case 1 across machines: a phone's "undo mine" on one machine undoes its own
    /// change, not the later change a person made through another machine.
    @Test func undoMineAcrossMachinesUndoesTheAuthorsOwnChange() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            let phone = try home.connect(0)
            _ = try phone.result("hello", ["name": "Kitchen phone"])
            let upstairs = try home.connect(1)
            _ = try upstairs.result("hello", ["name": "Upstairs laptop"])
            _ = try upstairs.result("createList", ["name": "Groceries", "items": ["apples", "toffee"]])
            _ = try phone.result("removeItem", ["list": "Groceries", "item": "apples"])
            _ = try upstairs.result("checkItem", ["list": "Groceries", "item": "toffee"])
            // The phone again, through the other machine (its listd-web moved, say).
            let phoneElsewhere = try home.connect(1)
            _ = try phoneElsewhere.result("hello", ["name": "Kitchen phone"])
            let undo = try phoneElsewhere.result("undo", ["mine": true])
            #expect((undo["undone"] as? [String: Any])?["revision"] as? Int == 2, "the phone's removal: \(undo)")
            let list = undo["list"] as? [String: Any] ?? [:]
            #expect(Set(list["items"] as? [String] ?? []) == ["apples", "toffee"])
            #expect(list["checked"] as? [String] == ["toffee"], "the tick made upstairs stands")
        }
    }

    /// Issue 35, case 13: an edit on one machine naming a list another machine created a moment
    /// before is never denied `listNotFound` because the news had not arrived yet: a denial waits
    /// until the machine has caught up with the database, as a confirm does.
    @Test func anEditOfAListJustCreatedElsewhereIsNeverDeniedForBeingBehind() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            let kitchen = try home.connect(0)
            let upstairs = try home.connect(1)
            for number in 0..<30 {
                _ = try kitchen.result("createList", ["name": "List \(number)"])
                let reply = try upstairs.call("addItem", ["list": "List \(number)", "item": "tea"])
                #expect(reply["error"] == nil, "round \(number): \(reply)")
            }
            // A denial still comes, once caught up, when the rules say no.
            let missing = try upstairs.call("addItem", ["list": "No such list", "item": "tea"])
            #expect(((missing["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String == "listNotFound", "\(missing)")
        }
    }

    /// Issue 35, case 8: two machines save conflicting edits of one item (one renames pears,
    /// the other takes pears off), each with sed on its own file. One happens; the other is not
    /// taken and the machine it was saved on says so (`changedMeanwhile`), in its file too.
    @Test func conflictingSavesOnTwoMachinesAreNeverSilent() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            _ = try home.connect(0).result("createList", ["name": "Fruit", "items": ["apples", "pears", "plums"]])
            for machine in home.machines { _ = try machine.sandbox.read { $0.contains("- [ ] plums") && $0.contains(" rev=") } }
            let listeners = try (0..<2).map { machine in
                let listener = try home.connect(machine)
                _ = try listener.result("subscribe", ["events": ["didRejectFileEdit"]])
                return listener
            }
            try shell(in: home.machines[0].sandbox, "sed -i 's/^- \\[ \\] pears$/- [ ] nashi pears/' lists.md")
            try shell(in: home.machines[1].sandbox, "sed -i '/^- \\[ \\] pears$/d' lists.md")
            var rejections: [(machine: Int, message: String)] = []
            let deadline = Date().addingTimeInterval(15)
            while rejections.isEmpty, Date() < deadline {
                for (machine, listener) in listeners.enumerated() {
                    guard let note = try? listener.readObject(timeout: 0.1) else { continue }
                    for line in ((note["params"] as? [String: Any])?["lines"] as? [[String: Any]]) ?? [] {
                        #expect(line["reason"] as? String == "changedMeanwhile", "\(line)")
                        rejections.append((machine, line["message"] as? String ?? ""))
                    }
                }
            }
            try #require(rejections.count == 1, "one save lost, and said so: \(rejections)")
            let loser = rejections[0].machine
            let items = try home.connect(loser).result("getList", ["list": "Fruit"])["items"] as? [String]
            if loser == 1 {
                #expect(items == ["apples", "nashi pears", "plums"], "the rename stands")
                #expect(rejections[0].message.contains("“pears” was changed to “nashi pears”"), "\(rejections)")
            } else {
                #expect(items == ["apples", "plums"], "the removal stands")
                #expect(rejections[0].message.contains("“pears” was taken off Fruit"), "\(rejections)")
            }
            let text = try home.machines[loser].sandbox.read { $0.contains("<!-- listd: not taken:") }
            #expect(text.contains("after your copy of the file was read"), "machine \(loser): \(text)")
        }
    }

    /// A person's save in real vim on one machine shows in the other machines' files, as a
    /// change with origin `file`.
    @Test func aSaveInVimOnOneMachineAppearsInTheOtherMachinesFiles() async throws {
        try await offThePool {
            let home = try Household()
            _ = try home.connect(0).result("createList", ["name": "Groceries", "items": ["milk"]])
            for machine in home.machines { _ = try machine.sandbox.read { $0.contains("- [ ] milk") } }
            let subscriber = try home.connect(2)
            _ = try subscriber.result("subscribe")
            try shell(in: home.machines[1].sandbox, "vim -Nu NONE -n -es -c '%s/^- \\[ \\] milk$/- [x] milk\\r- [ ] bread/' -c 'wq' lists.md")
            var heard: [String] = []
            for _ in 0..<2 {
                let note = try subscriber.readObject()
                let origin = (note["params"] as? [String: Any])?["origin"] as? [String: Any]
                #expect(origin?["kind"] as? String == "file")
                #expect(origin?["host"] as? String == ProcessInfo.processInfo.hostName, "the machine it was saved on")
                heard.append(Self.changeSummary(note))
            }
            #expect(heard.sorted() == ["#2 didUpdateShoppingList 1 Groceries [\"check milk\"]", "#3 didUpdateShoppingList 1 Groceries [\"add bread\"]"].sorted())
            for machine in [0, 2] {
                let text = try home.machines[machine].sandbox.read { $0.contains("- [ ] bread") }
                #expect(text.contains("- [x] milk\n- [ ] bread"), "machine \(machine): \(text)")
            }
        }
    }

    /// PostgreSQL killed (SIGKILL to the postmaster) while two machines edit, and started again:
    /// meanwhile edits are denied `unavailable`, reads go on, `hello` says so; nothing confirmed
    /// is lost, nothing denied is made, a person's save made meanwhile is taken in once the
    /// server is back, and a subscriber hears every change gap-free.
    @Test func theServerKilledInTheMiddleOfEditsLosesNothingConfirmed() async throws {
        try await offThePool {
            // At debug level: what was read and written of the file is in the logs printed when
            // a check fails.
            let home = try Household(machines: 2, arguments: ["--log", "stderr", "--log-level", "debug"])
            try home.createGroceries()
            let subscriber = try home.connect(1)
            _ = try subscriber.result("subscribe", ["since": 0])
            struct Outcomes {
                var confirmed: Set<String> = []
                var unavailable: Set<String> = []
                var other: [String] = []
            }
            let outcomes = Mutex(Outcomes())
            let stop = Atomic<Bool>(false)
            let group = DispatchGroup()
            for editor in 0..<4 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    guard let connection = try? home.connect(editor % 2) else { return }
                    var index = 0
                    while !stop.load(ordering: .relaxed) {
                        let item = "e\(editor)-\(index)"
                        index += 1
                        // An edit whose COMMIT was in doubt when the server went is answered once
                        // listd can ask the server again: after the outage.
                        guard let reply = try? connection.call("addItem", ["list": "Groceries", "item": item], timeout: 60) else {
                            outcomes.withLock { $0.other.append("\(item): no reply") }
                            return
                        }
                        let reason = ((reply["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String
                        outcomes.withLock { outcomes in
                            if reply["result"] != nil {
                                outcomes.confirmed.insert(item)
                            } else if reason == "unavailable" {
                                outcomes.unavailable.insert(item)
                            } else {
                                outcomes.other.append("\(item): \(reply)")
                            }
                        }
                        if reason == "unavailable" { usleep(20_000) }
                    }
                }
            }
            defer { stop.store(true, ordering: .relaxed) }
            func confirmedCount() -> Int { outcomes.withLock { $0.confirmed.count } }
            func within(_ seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
                let deadline = Date().addingTimeInterval(seconds)
                while try !condition() {
                    guard Date() < deadline else { throw TestFailure("not within \(seconds) s: \(what)") }
                    usleep(10_000)
                }
            }
            try within(20, "some edits confirmed") { confirmedCount() >= 20 }
            home.server.kill()
            // Under a loaded full run (every suite at once on two cores) a reply right after the
            // kill was seen to take over 10 s; what is asserted is the answer, so it is given 30 s,
            // and listd's log is printed if even that is not enough.
            func share(_ machine: Int) throws -> [String: Any] {
                do {
                    let reply = try home.connect(machine).call("hello", timeout: 30)
                    return (reply["result"] as? [String: Any])?["share"] as? [String: Any] ?? [:]
                } catch {
                    print("hello on machine \(machine) failed at \(Date()): \(error)\n\(home.machines[machine].logOutput.suffix(4000))")
                    throw error
                }
            }
            try within(20, "both machines see the server gone") {
                try share(0)["connected"] as? Bool == false && share(1)["connected"] as? Bool == false
            }
            #expect((try share(0)["server"] as? String)?.hasPrefix("listd@") == true)
            let denied = try home.connect(0).error("addItem", ["list": "Groceries", "item": "during the outage"])
            #expect((denied["data"] as? [String: Any])?["reason"] as? String == "unavailable")
            #expect(denied["code"] as? Int == 1101)
            #expect((denied["message"] as? String)?.contains("cannot reach the shared lists at listd@") == true, "\(denied)")
            let during = try home.connect(1).result("getList", ["list": "Groceries"])
            #expect((during["items"] as? [String])?.isEmpty == false, "reads go on from the lists as last seen")
            let lists = try home.connect(1).result("getLists")
            #expect((lists["share"] as? [String: Any])?["connected"] as? Bool == false)
            // A person's save while the server is gone: taken in once it is back.
            _ = try home.machines[1].sandbox.read { $0.contains("- [ ] e") }
            try shell(in: home.machines[1].sandbox, "printf -- '- [ ] saved meanwhile\\n' >> lists.md")
            usleep(300_000)
            let afterSave = try home.machines[1].sandbox.read()
            #expect(
                afterSave.contains("saved meanwhile"),
                "the person's save is not overwritten: \(afterSave)\n\(home.machines[1].logOutput.suffix(6000))"
            )

            try home.server.start()
            try within(20, "both machines connected again") {
                try share(0)["connected"] as? Bool == true && share(1)["connected"] as? Bool == true
            }
            let before = confirmedCount()
            try within(20, "edits confirmed again") { confirmedCount() >= before + 20 }
            stop.store(true, ordering: .relaxed)
            try wait(for: group, "the editors")
            try within(10, "the save made meanwhile is taken in: \((try? home.machines[1].sandbox.read()) ?? "")\n\(home.machines[1].logOutput.suffix(3000))") {
                (try home.connect(0).result("getList", ["list": "Groceries"])["items"] as? [String] ?? []).contains("saved meanwhile")
            }
            // A machine serves the other's last changes once it has fetched them. Asked on one
            // connection each (a new one every 10 ms filled the logs printed below with
            // "client connected", hiding what the machines did).
            let askers = try (0..<2).map { machine in
                let connection = try home.connect(machine)
                _ = try connection.result("hello", ["name": "revisions"])
                return connection
            }
            func revisions() throws -> [Int] { try askers.map { try $0.result("getLists")["revision"] as? Int ?? -1 } }
            do {
                // 30 s, as the waits above: a fetch that met its deadline on a loaded machine is
                // taken for a lost connection, and the catch-up comes after the reconnection.
                try within(30, "both machines serve the same revision") { Set(try revisions()).count == 1 }
            } catch {
                let logs = (0..<2).map { "machine \($0):\n\(home.machines[$0].logOutput.suffix(3000))" }.joined(separator: "\n")
                throw TestFailure("\(error): \((try? revisions()) ?? [])\n\(logs)")
            }
            let items = Set(try home.connect(0).result("getList", ["list": "Groceries"])["items"] as? [String] ?? [])
            let result = outcomes.withLock { $0 }
            #expect(result.other == [])
            #expect(result.unavailable.count > 0, "some edits were refused while the server was gone")
            #expect(result.confirmed.isSubset(of: items), "nothing confirmed is lost: \(result.confirmed.subtracting(items))")
            #expect(result.unavailable.isDisjoint(with: items), "nothing denied was made: \(result.unavailable.intersection(items))")
            let last = try revisions()[1]
            let onEach = try (0..<2).map { try home.connect($0).result("getList", ["list": "Groceries"])["items"] as? [String] }
            #expect(onEach[0] == onEach[1], "both machines have the same lists")
            var revision = 1
            _ = try subscriber.readObject()  // #1, the create
            while revision < last {
                let note = try subscriber.readObject()
                let next = (note["params"] as? [String: Any])?["revision"] as? Int ?? -1
                #expect(next == revision + 1, "gap-free through the outage: \(revision) then \(next)")
                revision = next
            }
        }
    }

    /// Issue 60, case 1: an edit whose COMMIT the server holds (here: a synchronous standby that
    /// never answers, as a network holds the bytes of a partition) is in doubt at the deadline.
    /// The old session may still commit it after listd asked on a new connection whether it was
    /// made: listd ends that session first, so its answer is the truth. A "no" here used to be
    /// followed by the edit appearing once the server let the COMMIT through.
    @Test func anEditInDoubtIsAnsweredOnlyOnceItsSessionHasEnded() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            try home.createGroceries(["milk"])
            try home.server.psql("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
            try home.server.psql("SELECT pg_reload_conf()")
            let reply = try home.connect(0).call("addItem", ["list": "Groceries", "item": "tea"], timeout: 40)
            // The server lets every held COMMIT through: whatever was answered must now hold.
            try home.server.psql("ALTER SYSTEM RESET synchronous_standby_names")
            try home.server.psql("SELECT pg_reload_conf()")
            let committed = try home.server.psql(
                "SELECT count(*) FROM listd_changes WHERE entry LIKE '%tea%'",
                database: "lists"
            )
            let confirmed = reply["result"] != nil
            #expect(confirmed, "the COMMIT was sent: its session ended, it was made: \(reply)")
            #expect(committed.trimmingCharacters(in: .whitespacesAndNewlines) == (confirmed ? "1" : "0"), "confirmed: \(confirmed), in the database: \(committed)")
            // Both machines serve it, and the next edit goes through.
            _ = try home.connect(1).result("addItem", ["list": "Groceries", "item": "eggs"])
            for machine in 0..<2 {
                let text = try home.machines[machine].sandbox.read { $0.contains("eggs") }
                #expect(text.contains("tea") == confirmed, "machine \(machine): \(text)")
            }
        }
    }

    /// Issue 35, case 10: a machine that starts while the server is down serves the lists as it
    /// last saw them (its copy beside the list file), says it is not connected, refuses edits
    /// `unavailable`, keeps a person's save made meanwhile, and once the server is back catches
    /// up on what the other machine did and takes the save in: nothing lost, nothing twice.
    @Test func aListdStartedWhileTheServerIsDownServesWhatItLastSawAndCatchesUp() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            try home.createGroceries(["milk"])
            _ = try home.connect(1).result("addItem", ["list": "Groceries", "item": "eggs"])
            _ = try home.machines[1].sandbox.read { $0.contains("- [ ] eggs") }
            #expect(home.machines[1].stop() == 0)
            _ = try home.connect(0).result("addItem", ["list": "Groceries", "item": "bread"])  // #3, unseen upstairs
            home.server.kill()

            try home.machines[1].start(arguments: ["--share", home.server.url()])
            let upstairs = try home.connect(1)
            let share = (try upstairs.result("hello")["share"] as? [String: Any]) ?? [:]
            #expect(share["connected"] as? Bool == false, "\(share)")
            let list = try upstairs.result("getList", ["list": "Groceries"])
            #expect(list["items"] as? [String] == ["milk", "eggs"], "what it last saw: \(list)")
            #expect(list["revision"] as? Int == 2)
            let subscriber = try home.connect(1)
            _ = try subscriber.result("subscribe", ["since": 2])
            let denied = try upstairs.error("addItem", ["list": "Groceries", "item": "tea"])
            #expect((denied["data"] as? [String: Any])?["reason"] as? String == "unavailable", "\(denied)")
            // A person's save while the server is gone: kept, and taken in once it is back.
            try shell(in: home.machines[1].sandbox, "sed -i 's/- \\[ \\] milk/- [x] milk/' lists.md && printf -- '- [ ] butter\\n' >> lists.md")
            let kept = try home.machines[1].sandbox.read()
            #expect(kept.contains("- [x] milk") && kept.contains("butter"), "\(kept)")

            try home.server.start()
            let deadline = Date().addingTimeInterval(20)
            var onEach: [[String: Any]] = []
            repeat {
                onEach = try (0..<2).map { try home.connect($0).result("getList", ["list": "Groceries"]) }
                if onEach.allSatisfy({ ($0["items"] as? [String])?.contains("butter") == true && ($0["items"] as? [String])?.contains("bread") == true }),
                    onEach[0]["revision"] as? Int == onEach[1]["revision"] as? Int
                {
                    break
                }
                usleep(50_000)
            } while Date() < deadline
            // butter goes after eggs, which it followed in the person's file.
            #expect(onEach[1]["items"] as? [String] == ["milk", "eggs", "butter", "bread"], "\(onEach)\n\(home.machines[1].logOutput.suffix(3000))")
            #expect(onEach[1]["checked"] as? [String] == ["milk"], "\(onEach)")
            #expect(onEach[0]["items"] as? [String] == onEach[1]["items"] as? [String], "both machines have the same lists: \(onEach)")
            #expect(onEach[0]["checked"] as? [String] == onEach[1]["checked"] as? [String], "\(onEach)")
            #expect((try upstairs.result("hello")["share"] as? [String: Any])?["connected"] as? Bool == true)
            // The subscriber hears bread (from the other machine), then the save: each once, in order.
            var heard: [String] = []
            for _ in 0..<3 { heard.append(Self.changeSummary(try subscriber.readObject())) }
            #expect(heard.first == "#3 didUpdateShoppingList 1 Groceries [\"add bread\"]", "\(heard)")
            #expect(heard.dropFirst().map { $0.prefix(3) } == ["#4 ", "#5 "], "\(heard)")
            #expect(Set(heard.dropFirst()).count == 2 && heard.dropFirst().joined().contains("butter"), "\(heard)")
            let text = try home.machines[1].sandbox.read { $0.contains("bread") && $0.contains("rev=5") }
            #expect(text.components(separatedBy: "bread").count == 2 && text.components(separatedBy: "butter").count == 2, "\(text)")
            let history = try upstairs.result("getHistory", ["since": 0])
            let revisions = (history["changes"] as? [[String: Any]] ?? []).compactMap { $0["revision"] as? Int }
            #expect(revisions == [1, 2, 3, 4, 5], "every change once: \(history)")
        }
    }

    /// Issue 60, case 2: a listd cut off (here: stopped by SIGSTOP, as a partition or a power
    /// loss leaves it) while its append's transaction holds the revision row's lock left its
    /// server session `idle in transaction` for good: every other machine's edits were denied at
    /// their 5 s deadline for as long as it lasted. The server now ends a session idle in a
    /// transaction after 3 s (listd never pauses inside one), so the other machines' edits go
    /// through, within their deadline.
    @Test func aMachineCutOffInsideItsTransactionDoesNotStopTheOthers() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            try home.createGroceries(["milk"])
            let stop = Atomic<Bool>(false)
            let group = DispatchGroup()
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let connection = try? home.connect(0) else { return }
                var index = 0
                while !stop.load(ordering: .relaxed) {
                    index += 1
                    _ = try? connection.call("addItem", ["list": "Groceries", "item": "k\(index)"], timeout: 60)
                }
            }
            defer { stop.store(true, ordering: .relaxed) }
            // Stopped until caught with its session idle inside a transaction.
            let kitchen = try #require(home.machines[0].pid)
            var caught = false
            for _ in 0..<400 where !caught {
                kill(kitchen, SIGSTOP)
                let states = try home.server.psql("SELECT state FROM pg_stat_activity WHERE usename = 'listd'", database: "lists")
                caught = states.contains("idle in transaction")
                if !caught {
                    kill(kitchen, SIGCONT)
                    usleep(UInt32.random(in: 1_000...20_000))
                }
            }
            try #require(caught, "the kitchen's listd was never caught inside its transaction")
            defer { kill(kitchen, SIGCONT) }
            let started = Date()
            let reply = try home.connect(1).call("addItem", ["list": "Groceries", "item": "upstairs"], timeout: 30)
            #expect(reply["result"] != nil, "the other machine's edit, \(Date().timeIntervalSince(started)) s later: \(reply)")
            kill(kitchen, SIGCONT)
            stop.store(true, ordering: .relaxed)
            try wait(for: group, "the kitchen's editor")
            // The kitchen's listd carries on once it has noticed its session ended and connected
            // again: an edit is made within a few seconds.
            var after: [String: Any] = [:]
            let deadline = Date().addingTimeInterval(20)
            repeat {
                after = try home.connect(0).call("addItem", ["list": "Groceries", "item": "after"], timeout: 30)
                if after["result"] == nil { usleep(200_000) }
            } while after["result"] == nil && Date() < deadline
            #expect(after["result"] != nil, "\(after)")
        }
    }

    /// Issue 60, case 3: a listd stopped (SIGTERM, or killed), its list file edited meanwhile, and
    /// started while the server is down used to never serve (no socket, a loop of one warning at
    /// ~10,000 lines a second). It starts from its copy, keeps the person's save, and takes it in
    /// once the server is back; no log line repeats faster than a few a second.
    @Test(arguments: [SIGTERM, SIGKILL])
    func aListdStartedWhileTheServerIsDownWithItsFileEditedServesAndKeepsTheSave(_ stop: Int32) async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            try home.createGroceries(["milk"])
            _ = try home.machines[1].sandbox.read { $0.contains("- [ ] milk") }
            if stop == SIGKILL { home.machines[1].kill() } else { #expect(home.machines[1].stop() == 0) }
            try shell(in: home.machines[1].sandbox, "printf -- '- [ ] butter\\n' >> lists.md")
            home.server.kill()

            try home.machines[1].start(arguments: ["--share", home.server.url()])
            let upstairs = try home.connect(1)
            let share = (try upstairs.result("hello")["share"] as? [String: Any]) ?? [:]
            #expect(share["connected"] as? Bool == false, "\(share)")
            let atHello = home.machines[1].logOutput.split(separator: "\n").count
            usleep(1_000_000)
            let logged = home.machines[1].logOutput
            let lines = logged.split(separator: "\n").count - atHello
            #expect(lines < 20, "a second of a listd waiting for its server: \(lines) lines\n\(logged.suffix(2000))")
            #expect(try home.machines[1].sandbox.read().contains("butter"), "the person's save is kept")

            try home.server.start()
            let deadline = Date().addingTimeInterval(20)
            var items: [[String]] = []
            repeat {
                items = try (0..<2).map { try home.connect($0).result("getList", ["list": "Groceries"])["items"] as? [String] ?? [] }
                if items.allSatisfy({ $0.contains("butter") }) { break }
                usleep(50_000)
            } while Date() < deadline
            #expect(items == [["milk", "butter"], ["milk", "butter"]], "\(items)\n\(home.machines[1].logOutput.suffix(3000))")
        }
    }

    /// Issue 60, case 3 after a full disk: the disk under a machine's files fills while another
    /// machine edits (tea reaches the lists, not its file), it is stopped, the disk is freed, the
    /// person adds butter to the file it left behind, and it starts again while the server is
    /// down. It serves from its copy (without tea, which the disk kept out of it too), keeps the
    /// person's save, and once the server is back every machine has milk, tea and butter.
    @Test func aListdStartedWhileTheServerIsDownAfterAFullDiskServesAndKeepsTheSave() async throws {
        try Requirement.check(PowerCutFileSystem.isAvailable, needing: PowerCutFileSystem.need)
        try await offThePool {
            let home = try Household(machines: 1)
            defer { home.server.kill() }
            let sandbox = try Sandbox()
            let disk = try PowerCutFileSystem(holdingListFileOf: sandbox)
            defer { try? disk.unmount() }
            try disk.mount()
            home.machines.append(try Daemon.start(in: sandbox, arguments: ["--share", home.server.url()]))
            // The list file on the FUSE disk, by its name in the sandbox.
            let file = String(sandbox.file.dropFirst(sandbox.path.count + 1))
            _ = try home.connect(0).result("createList", ["name": "Groceries", "items": ["milk"]])
            _ = try sandbox.read(file) { $0.contains("- [ ] milk") }

            disk.fillDisk()
            _ = try home.connect(0).result("addItem", ["list": "Groceries", "item": "tea"])
            let deadline = Date().addingTimeInterval(20)
            while try !(home.connect(1).result("getList", ["list": "Groceries"])["items"] as? [String] ?? []).contains("tea"), Date() < deadline {
                usleep(50_000)
            }
            #expect(try !sandbox.read(file).contains("tea"), "the full disk kept tea out of the file")
            #expect(home.machines[1].stop() == 0)
            disk.freeDisk()
            try shell(in: sandbox, "printf -- '- [ ] butter\\n' >> \(file)")
            home.server.kill()

            try home.machines[1].start(arguments: ["--share", home.server.url()])
            let share = (try home.connect(1).result("hello")["share"] as? [String: Any]) ?? [:]
            #expect(share["connected"] as? Bool == false, "\(share)")
            // It serves its copy, which the full disk kept tea out of as well (docs/sharing.md:
            // the catch-up brings what the copy lacks).
            #expect(try home.connect(1).result("getList", ["list": "Groceries"])["items"] as? [String] == ["milk"], "it serves its copy")
            #expect(try sandbox.read(file).contains("butter"), "the person's save is kept")

            try home.server.start()
            var items: [[String]] = []
            let back = Date().addingTimeInterval(20)
            repeat {
                items = try (0..<2).map { try home.connect($0).result("getList", ["list": "Groceries"])["items"] as? [String] ?? [] }
                if items.allSatisfy({ Set($0) == ["milk", "tea", "butter"] }) { break }
                usleep(50_000)
            } while Date() < back
            #expect(items.allSatisfy { Set($0) == ["milk", "tea", "butter"] }, "\(items)\n\(home.machines[1].logOutput.suffix(3000))")
            let shown = try sandbox.read(file) { $0.contains("tea") && $0.contains("butter") }
            #expect(shown.contains("tea") && shown.contains("butter"), "\(shown)")
        }
    }

    /// A machine that never reached the server has nothing to start from: it says so and exits.
    /// One that sees the database made anew while it runs does not mix the two: edits are
    /// refused, saying to restart it.
    @Test func aListdWithNothingToStartFromOrADatabaseMadeAnewSaysSo() async throws {
        try await offThePool {
            let server = try PostgresServer()
            let kitchen = try Daemon.start(in: try Sandbox(), arguments: ["--share", server.url()])
            _ = try LineConnection(path: kitchen.sandbox.socket).result("createList", ["name": "Groceries", "items": ["milk"]])
            try server.psql("DROP DATABASE lists WITH (FORCE)")
            try server.psql("CREATE DATABASE lists OWNER listd")
            #expect(kitchen.logShows("are not the ones this listd serves"), "\(kitchen.logOutput)")
            let denied = try LineConnection(path: kitchen.sandbox.socket).error("addItem", ["list": "Groceries", "item": "eggs"])
            #expect((denied["data"] as? [String: Any])?["reason"] as? String == "unavailable", "\(denied)")
            #expect((denied["message"] as? String)?.contains("restarted") == true, "\(denied)")
            let list = try LineConnection(path: kitchen.sandbox.socket).result("getList", ["list": "Groceries"])
            #expect(list["items"] as? [String] == ["milk"], "reads go on: \(list)")

            server.kill()
            let newcomer = Daemon(try Sandbox())
            #expect(try newcomer.startExpectingExit(arguments: ["--share", server.url()]) != 0)
            #expect(newcomer.logOutput.contains("this machine has no copy of them yet"), "\(newcomer.logOutput)")
        }
    }

    /// Issue 37's ground: an edit sent with its own id to one machine, its reply lost, and sent
    /// again to another machine (the phone's network changed) is applied once: the id travels in
    /// the change's record through the database.
    @Test func anEditResentToAnotherMachineIsAppliedOnce() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            try home.createGroceries(["milk"])
            let first = try home.connect(0).result("addItem", ["list": "Groceries", "item": "tea", "editId": "phone-42"])
            let revision = first["revision"] as? Int
            // The other machine has the change once it has fetched it (a NOTIFY away).
            _ = try home.machines[1].sandbox.read { $0.contains("tea") }
            let again = try home.connect(1).result("addItem", ["list": "Groceries", "item": "tea", "editId": "phone-42"])
            #expect(again["revision"] as? Int == revision, "\(again)")
            #expect(again["items"] as? [String] == ["milk", "tea"], "\(again)")
            let lists = try home.connect(1).result("getLists")
            #expect(lists["revision"] as? Int == revision, "no change was made for the resend")
        }
    }

    /// A listd that kept lists of its own attaches to shared ones: its lists are proposed as a
    /// person's save would be. A new one becomes a shared list; one whose name is taken is not
    /// taken, is said, and stays in its file, marked, with its items: nothing is lost silently.
    @Test func aListdWithListsOfItsOwnAttachesWithoutLosingThem() async throws {
        try await offThePool {
            let server = try PostgresServer()
            let kitchen = try Daemon.start(in: try Sandbox(), arguments: ["--share", server.url()])
            _ = try LineConnection(path: kitchen.sandbox.socket).result("createList", ["name": "Groceries", "items": ["milk"]])
            let upstairs = try Daemon.start(in: try Sandbox())
            let local = try LineConnection(path: upstairs.sandbox.socket)
            _ = try local.result("createList", ["name": "Groceries", "items": ["eggs", "milk"]])
            // Issue 35, case 5: what is under the clashing heading (a tick, a section, an amount)
            // does not reach the shared list of that name either.
            _ = try local.result("checkItem", ["list": "Groceries", "item": "milk"])
            _ = try local.result("addItem", ["list": "Groceries", "item": "cream", "section": "Dairy", "quantity": "1 l"])
            _ = try local.result("createList", ["name": "Hardware", "items": ["nails"]])
            _ = try upstairs.sandbox.read { $0.contains("- [ ] nails") }
            upstairs.stop()
            let subscriber = try LineConnection(path: kitchen.sandbox.socket)
            _ = try subscriber.result("subscribe", ["events": ["didCreateShoppingList"]])

            try upstairs.start(arguments: ["--share", server.url()])
            let note = try subscriber.readObject()
            #expect(Self.changeSummary(note) == "#2 didCreateShoppingList 2 Hardware []")
            let origin = (note["params"] as? [String: Any])?["origin"] as? [String: Any]
            #expect(origin?["kind"] as? String == "file")
            #expect(origin?["host"] as? String == ProcessInfo.processInfo.hostName, "which machine's file")
            let shared = try LineConnection(path: kitchen.sandbox.socket).result("getLists")
            let names = (shared["lists"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(names == ["Groceries", "Hardware"])
            let text = try upstairs.sandbox.read { $0.contains("not taken") && $0.contains("- [ ] milk") }
            #expect(text.contains("There is already a list called “Groceries”"), "\(text)")
            #expect(text.contains("You wrote: - [ ] eggs"), "its item is kept in its file: \(text)")
            #expect(text.contains("- [ ] nails") && text.contains("- [ ] milk"), "\(text)")
            let groceries = try LineConnection(path: kitchen.sandbox.socket).result("getList", ["list": "Groceries"])
            #expect(groceries["items"] as? [String] == ["milk"], "\(groceries)")
            #expect((groceries["checked"] as? [String] ?? []).isEmpty, "the block not taken ticks nothing: \(groceries)")
            #expect((groceries["sections"] as? [Any] ?? []).isEmpty, "\(groceries)")
        }
    }

    /// A delegate vets what is proposed through its own listd (its clients, its file), not what
    /// another machine did: docs/sharing.md says so.
    @Test func aDelegateVetsTheEditsProposedThroughItsOwnListd() async throws {
        try await offThePool {
            let home = try Household(machines: 2)
            try home.createGroceries()
            let delegate = try home.connect(0)
            _ = try delegate.result("registerDelegate", ["name": "diet", "questions": ["shouldAdd"], "onTimeout": "deny"])
            let answering = Thread {
                while let question = try? delegate.readObject(timeout: 30) {
                    let item = (question["params"] as? [String: Any])?["item"] as? String
                    let answer = item == "cake" ? #"{"allow":false,"reason":"no sweets"}"# : #"{"allow":true}"#
                    try? delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"result\":\(answer)}")
                }
            }
            answering.start()
            defer { delegate.hangUp() }
            let here = try home.connect(0).error("addItem", ["list": "Groceries", "item": "cake"])
            #expect((here["data"] as? [String: Any])?["reason"] as? String == "deniedByDelegate")
            let subscriber = try home.connect(0)
            _ = try subscriber.result("subscribe")
            let there = try home.connect(1).result("addItem", ["list": "Groceries", "item": "cake"])
            #expect(there["items"] as? [String] == ["cake"], "another machine's edit is not put to this one's delegate")
            #expect(Self.changeSummary(try subscriber.readObject()) == "#2 didUpdateShoppingList 1 Groceries [\"add cake\"]")
        }
    }

    /// A bad URL, a wrong password, a database that does not exist: listd says so in a sentence
    /// and exits, with no stack trace.
    @Test func aServerListdCannotUseIsSaidPlainly() async throws {
        try await offThePool {
            let server = try PostgresServer()
            let cases: [(url: String, says: String)] = [
                ("mysql://listd@localhost/lists", "is not a PostgreSQL URL"),
                ("postgresql://listd:secret@/lists?host=\(server.directory)&sslmode=sometimes", "sslmode “sometimes”"),
                (server.url(password: "Tr0ub4dor"), "password authentication failed for user \"listd\""),
                (server.url(database: "nothing"), "database \"nothing\" does not exist"),
                ("postgresql://listd:secret@/lists?host=/nonexistent", "cannot use the shared lists at listd@/nonexistent/.s.PGSQL.5432/lists"),
                // Issue 36, item 4: what failed in words, not NIO's error values.
                ("postgresql://listd:secret@/lists?host=/nonexistent", "no server is listening there"),
                ("postgresql://listd:secret@127.0.0.1:1/lists", "listd@127.0.0.1:1/lists: no server is listening there"),
                ("postgresql://listd:secret@kitchen.invalid/lists", "the name kitchen.invalid cannot be resolved"),
            ]
            for (url, says) in cases {
                let daemon = Daemon(try Sandbox())
                let status = try daemon.startExpectingExit(arguments: ["--share", url])
                #expect(status != 0, "\(url)")
                #expect(daemon.logOutput.contains(says), "\(url): \(daemon.logOutput)")
                #expect(!daemon.logOutput.contains("Tr0ub4dor") && !daemon.logOutput.contains("secret"), "no password is written: \(daemon.logOutput)")
                #expect(!daemon.logOutput.contains("Fatal error") && !daemon.logOutput.contains("Stack dump"))
                #expect(!daemon.logOutput.contains("SingleConnectionFailure") && !daemon.logOutput.contains("(errno: "), "\(daemon.logOutput)")
            }
        }
    }
}
