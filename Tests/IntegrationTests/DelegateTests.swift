import Foundation
import Glibc
import ListClient
import ListModel
import ListRPC
import Synchronization
import Testing

private final class Flag: Sendable {
    let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Counts questions a delegate was asked.
private final class Counter: Sendable {
    let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

private func denialData(_ error: [String: Any]) -> [String: Any] {
    error["data"] as? [String: Any] ?? [:]
}

/// Runs `body` with `count` delegates connected and registered, each answering with `answer`.
private func withDelegates(
    socket: String,
    _ specs: [(
        name: String, timeoutMs: Int?, onTimeout: TimeoutVerdict?,
        answer: @Sendable (DelegateQuestion, DelegateQuestionParams) async -> DelegateAnswer
    )],
    _ body: @escaping @Sendable () async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        let ready = Counter()
        let done = Flag()
        for spec in specs {
            group.addTask {
                try await ListClient.withConnection(socketPath: socket) { client in
                    try await client.registerDelegate(
                        name: spec.name,
                        timeoutMs: spec.timeoutMs,
                        onTimeout: spec.onTimeout,
                        spec.answer
                    )
                    ready.increment()
                    while !done.isSet { try await Task.sleep(for: .milliseconds(10)) }
                }
            }
        }
        // A guard against a hang, not a measure: the clock runs from when the run queued this
        // test, and the pool's two threads serve every asynchronous test meanwhile. (Synchronous
        // tests no longer hold them: `.offThePool`; five registrations failed here in one run
        // before.)
        let deadline = ContinuousClock.now + .seconds(120)
        while ready.count < specs.count {
            guard ContinuousClock.now < deadline else {
                done.set()
                throw TestFailure("\(specs.count - ready.count) of \(specs.count) delegates did not register in 120 s")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        defer { done.set() }
        try await body()
    }
}


@Suite struct DelegateTests {
    @Test func twoDelegatesOneDenyingAndBothDenying() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        let asked = Counter()
        try await withDelegates(
            socket: socket,
            [
                (
                    // Not a test of timeouts: a full parallel run has kept an answer past the
                    // 2 s default (then the edit is allowed), so these delegates get 10 s.
                    "diet", 10_000, nil,
                    { question, params in
                        asked.increment()
                        return params.item == "cake" || params.item == "candy"
                            ? DelegateAnswer(allow: false, reason: "no sweets") : DelegateAnswer(allow: true)
                    }
                ),
                (
                    "budget", 10_000, nil,
                    { question, params in
                        asked.increment()
                        return params.item == "candy"
                            ? DelegateAnswer(allow: false, reason: "too expensive") : DelegateAnswer(allow: true)
                    }
                ),
            ]
        ) {
            try await offThePool {
                let client = try LineConnection(path: socket)
                _ = try client.result("addItem", ["list": 1, "item": "milk"])
                #expect(asked.count == 2)

                let one = try client.error("addItem", ["list": 1, "item": "cake"])
                #expect(one["code"] as? Int == 1009)
                #expect(denialData(one)["reason"] as? String == "deniedByDelegate")
                #expect(
                    denialData(one)["denials"] as? [[String: String]] == [["delegate": "diet", "reason": "no sweets"]]
                )
                #expect(one["message"] as? String == "Denied by a delegate: diet: no sweets.")

                let both = try client.error("addItem", ["list": 1, "item": "candy"])
                #expect(
                    denialData(both)["denials"] as? [[String: String]] == [
                        ["delegate": "budget", "reason": "too expensive"], ["delegate": "diet", "reason": "no sweets"],
                    ]
                )
                #expect(both["message"] as? String == "Denied by delegates: budget: too expensive; diet: no sweets.")

                // The rules come first: a duplicate is denied without asking anyone.
                let before = asked.count
                #expect(
                    denialData(try client.error("addItem", ["list": 1, "item": "MILK"]))["reason"] as? String
                        == "itemExists"
                )
                #expect(asked.count == before)
                // Nothing a delegate denied was applied.
                #expect(try client.result("getList", ["list": 1])["items"] as? [String] == ["milk"])
            }
        }
    }

    @Test func aSlowDelegateCountsPerOnTimeoutAtTheTimeout() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        // Timeouts of 5 s: long enough for a prompt answer on a loaded machine (200 ms was not,
        // with the load tests running beside; 2 s was not once, in a clean clone's full run with
        // the sharing tests beside), below the 10 s the test allows and far below the 20 s a
        // slow answer takes.
        try await withDelegates(
            socket: socket,
            [
                (
                    "sleepy-deny", 5_000, .deny,
                    { _, params in
                        if params.item == "slow-deny" { try? await Task.sleep(for: .seconds(20)) }
                        return DelegateAnswer(allow: true)
                    }
                ),
                (
                    "sleepy-allow", 5_000, .allow,
                    { _, params in
                        if params.item == "slow-allow" { try? await Task.sleep(for: .seconds(20)) }
                        return DelegateAnswer(allow: true)
                    }
                ),
            ]
        ) {
            try await offThePool {
                let client = try LineConnection(path: socket)
                let start = Date()
                let denied = try client.error("addItem", ["list": 1, "item": "slow-deny"])
                #expect(Date().timeIntervalSince(start) < 10, "the answer waited for the delegate, not its timeout")
                #expect(denialData(denied)["timedOut"] as? [String] == ["sleepy-deny"])
                #expect(denialData(denied)["denials"] as? [[String: String]] == [])
                _ = try client.result("addItem", ["list": 1, "item": "slow-allow"])
            }
        }
    }

    @Test func aDelegateThatDisconnectsMidQuestionIsSettledAtOnce() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        var delegate: LineConnection? = try LineConnection(path: socket)
        _ = try delegate!.result("registerDelegate", ["name": "flaky", "timeoutMs": 30000, "onTimeout": "deny"])
        let proposer = try LineConnection(path: socket)
        let start = Date()
        try proposer.send(#"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":1,"item":"milk"}}"#)
        let question = try delegate!.readObject()
        #expect(question["method"] as? String == "shouldAdd")
        #expect((question["params"] as? [String: Any])?["item"] as? String == "milk")
        delegate = nil  // the connection closes
        let reply = try proposer.readObject()
        #expect(Date().timeIntervalSince(start) < 10, "waited out the 30 s timeout")
        #expect(denialData(reply["error"] as? [String: Any] ?? [:])["timedOut"] as? [String] == ["flaky"])
        // Gone for good: the next edit is not held up.
        _ = try proposer.result("addItem", ["list": 1, "item": "eggs"])
    }

    @Test func aHundredDelegatesAnswerInParallel() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        let asked = Counter()
        // Questions open at once, and the most there were: asked in parallel, all 100 are.
        let open = Mutex((now: 0, most: 0))
        let specs:
            [(
                name: String, timeoutMs: Int?, onTimeout: TimeoutVerdict?,
                answer: @Sendable (DelegateQuestion, DelegateQuestionParams) async -> DelegateAnswer
            )] =
                (0..<100).map { index in
                    (
                        "delegate-\(index)", 10_000, nil,
                        { _, params in
                            asked.increment()
                            open.withLock { open in
                                open.now += 1
                                open.most = max(open.most, open.now)
                            }
                            // A fence, not a sleep: answer once every question is open (or after
                            // 1 s: questions asked one at a time never get there).
                            let deadline = ContinuousClock.now + .seconds(1)
                            while open.withLock({ $0.now }) < 100, ContinuousClock.now < deadline {
                                try? await Task.sleep(for: .milliseconds(2))
                            }
                            open.withLock { $0.now -= 1 }
                            return DelegateAnswer(
                                allow: params.item != "veto" || index != 42,
                                reason: "delegate 42 says no"
                            )
                        }
                    )
                }
        try await withDelegates(socket: socket, specs) {
            try await offThePool {
                let client = try LineConnection(path: socket)
                _ = try client.result("addItem", ["list": 1, "item": "milk"])
                #expect(asked.count == 100)
                #expect(open.withLock { $0.most } == 100, "the questions were not all open at once")
                let veto = try client.error("addItem", ["list": 1, "item": "veto"])
                #expect(
                    denialData(veto)["denials"] as? [[String: String]] == [
                        ["delegate": "delegate-42", "reason": "delegate 42 says no"]
                    ]
                )
                #expect(asked.count == 200)
            }
        }
    }

    @Test(.offThePool) func threeTimeoutsInARowAndTheDelegateIsNoLongerAsked() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        let silent = try LineConnection(path: socket)
        _ = try silent.result("registerDelegate", ["name": "silent", "timeoutMs": 100])
        let client = try LineConnection(path: socket)
        for item in ["a", "b", "c"] {
            _ = try client.result("addItem", ["list": 1, "item": item])  // allowed at the timeout
            #expect(try silent.readObject()["method"] as? String == "shouldAdd")
        }
        let told = try silent.readObject()
        #expect(told["method"] as? String == "didStopConsultingDelegate")
        _ = try client.result("addItem", ["list": 1, "item": "d"])
        try silent.expectNothingBeforeAReply("a question after three timeouts")
        #expect(daemon.logShows("delegate “silent” (pid \(getpid())) did not answer 3 times in a row"))
    }

    @Test func editsOfOneListWaitInOrderWhileOtherListsGoOn() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let setup = try LineConnection(path: socket)
        _ = try setup.result("createList", ["name": "Groceries"])
        _ = try setup.result("createList", ["name": "Hardware"])
        let delegate = try LineConnection(path: socket)
        _ = try delegate.result("registerDelegate", ["name": "gate", "timeoutMs": 10000])

        let first = try LineConnection(path: socket)
        try first.send(#"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Groceries","item":"first"}}"#)
        let question1 = try delegate.readObject()
        #expect((question1["params"] as? [String: Any])?["item"] as? String == "first")

        // A second edit of Groceries waits behind the first; an edit of Hardware goes on.
        let second = try LineConnection(path: socket)
        try second.send(#"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Groceries","item":"second"}}"#)
        let other = try LineConnection(path: socket)
        try other.send(#"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Hardware","item":"nails"}}"#)
        let question2 = try delegate.readObject()
        #expect((question2["params"] as? [String: Any])?["item"] as? String == "nails")
        try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(question2["id"])),\"result\":{\"allow\":true}}")
        #expect((try other.readObject())["result"] != nil)
        // The second edit waits unasked: the delegate hears nothing of it until the first is done.
        try delegate.expectNothingBeforeAReply("the second edit overtook the first")

        try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(question1["id"])),\"result\":{\"allow\":true}}")
        #expect(((try first.readObject())["result"] as? [String: Any])?["items"] as? [String] == ["first"])
        let question3 = try delegate.readObject()
        #expect((question3["params"] as? [String: Any])?["item"] as? String == "second")
        #expect(
            ((question3["params"] as? [String: Any])?["list"] as? [String: Any])?["items"] as? [String] == ["first"]
        )
        try delegate.send(
            "{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(question3["id"])),\"result\":{\"allow\":false,\"reason\":\"enough\"}}"
        )
        #expect(
            denialData((try second.readObject())["error"] as? [String: Any] ?? [:])["reason"] as? String
                == "deniedByDelegate"
        )
        #expect(try setup.result("getList", ["list": "Groceries"])["items"] as? [String] == ["first"])
    }

    @Test(.offThePool) func aDelegateAnswersAboutItsOwnEditOnTheSameConnection() throws {
        let daemon = try Daemon.start()
        let delegate = try LineConnection(path: daemon.sandbox.socket)
        _ = try delegate.result("createList", ["name": "Groceries"])
        // A timeout longer than the test waits for a reply: only a real answer can confirm.
        _ = try delegate.result("registerDelegate", ["name": "self-vetting", "timeoutMs": 20000])
        try delegate.send(
            #"{"jsonrpc":"2.0","id":"mine","method":"addItem","params":{"list":"Groceries","item":"milk"}}"#
        )
        let question = try delegate.readObject()
        #expect(question["method"] as? String == "shouldAdd")
        try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(question["id"])),\"result\":{\"allow\":true}}")
        let reply = try delegate.readObject()
        #expect(reply["id"] as? String == "mine")
        #expect((reply["result"] as? [String: Any])?["items"] as? [String] == ["milk"])
        // A batch that mixes an answer with a request gets a reply for the request only.
        try delegate.send(
            #"{"jsonrpc":"2.0","id":"again","method":"addItem","params":{"list":"Groceries","item":"bread"}}"#
        )
        let second = try delegate.readObject()
        try delegate.send(
            "[{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(second["id"])),\"result\":{\"allow\":false,\"reason\":\"enough\"}},{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"getList\",\"params\":{\"list\":\"Groceries\"}}]"
        )
        let denied = try delegate.readObject()
        #expect(denied["id"] as? String == "again")
        #expect(denialData(denied["error"] as? [String: Any] ?? [:])["reason"] as? String == "deniedByDelegate")
        let batch = try #require(try delegate.readJSON() as? [[String: Any]])
        #expect(batch.count == 1)
        #expect(batch.first?["id"] as? Int == 7)
        #expect((batch.first?["result"] as? [String: Any])?["items"] as? [String] == ["milk"])
    }

    @Test func manyConcurrentProposalsOnOneListAreDecidedOneAtATimeOnWhatTheOthersLeft() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        // What the delegate saw, in the order it was asked: the item, the list as it was shown,
        // and how many questions were open at once.
        let log = Mutex<(seen: [(item: String, shown: [String])], open: Int, mostOpen: Int)>(([], 0, 0))
        try await withDelegates(
            socket: socket,
            [
                (
                    // The longest timeout listd takes (30 s): this is a test of order, not of
                    // timeouts, and a full parallel run has starved the delegate's answers past
                    // 10 s (then an item it would allow was denied as timed out).
                    "odd-out", 30_000, .deny,
                    { _, params in
                        log.withLock { log in
                            log.seen.append((params.item ?? "?", params.list.map { Array($0.items) } ?? []))
                            log.open += 1
                            log.mostOpen = max(log.mostOpen, log.open)
                        }
                        try? await Task.sleep(for: .milliseconds(Int.random(in: 0...3)))
                        log.withLock { $0.open -= 1 }
                        let number = Int(params.item?.split(separator: "-").last ?? "") ?? 0
                        return number % 2 == 1
                            ? DelegateAnswer(allow: false, reason: "odd") : DelegateAnswer(allow: true)
                    }
                )
            ]
        ) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<20 {
                    group.addTask {
                        try await ListClient.withConnection(socketPath: socket) { connection in
                            for number in 0..<5 {
                                let item = "item-\(client)-\(number)"
                                do {
                                    let list = try await connection.addItem(item, to: .name("Groceries"))
                                    #expect(number % 2 == 0 && list.items.contains(item), "\(item) confirmed")
                                } catch ListClientError.denied(let denial) {
                                    #expect(number % 2 == 1 && denial.reason == "deniedByDelegate", "\(item) denied")
                                }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let (seen, mostOpen) = log.withLock { ($0.seen, $0.mostOpen) }
        #expect(seen.count == 100)
        #expect(mostOpen == 1, "two proposals of one list were before the delegate at once")
        // Each question showed the list exactly as the allowed answers before it left it.
        var expected: [String] = []
        for (item, shown) in seen {
            #expect(shown == expected, "asked about \(item)")
            if (Int(item.split(separator: "-").last ?? "") ?? 0) % 2 == 0 { expected.append(item) }
        }
        let final = try await ListClient.withConnection(socketPath: socket) { try await $0.list(.name("Groceries")) }
        #expect(Array(final.items) == expected)
        #expect(final.items.count == 60)
    }

    @Test func subscribersOptInToDeniedChanges() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try LineConnection(path: socket).result("createList", ["name": "Groceries"])
        let optedIn = try LineConnection(path: socket)
        _ = try optedIn.result("subscribe", ["events": ["didDenyChange"]])
        let everything = try LineConnection(path: socket)
        _ = try everything.result("subscribe")
        try await withDelegates(
            socket: socket,
            // 10 s, not the 2 s default: a full parallel run can keep an answer past 2 s.
            [("diet", 10_000, nil, { _, _ in DelegateAnswer(allow: false, reason: "no") })]
        ) {
            try await offThePool {
                let client = try LineConnection(path: socket)
                _ = try client.result("hello", ["name": "shopper"])
                _ = try client.error("addItem", ["list": 1, "item": "cake"])
                let note = try optedIn.readObject()
                #expect(note["method"] as? String == "didDenyChange")
                let params = try #require(note["params"] as? [String: Any])
                #expect(params["question"] as? String == "shouldAdd")
                #expect((params["proposal"] as? [String: Any])?["item"] as? String == "cake")
                #expect(
                    ((params["proposal"] as? [String: Any])?["origin"] as? [String: Any])?["name"] as? String
                        == "shopper"
                )
                #expect(params["denials"] as? [[String: String]] == [["delegate": "diet", "reason": "no"]])
                try everything.expectNothingBeforeAReply("a denial sent to a subscriber that did not opt in")
            }
        }
    }
}

/// A JSON-RPC id as it must be echoed.
private func jsonString(_ value: Any?) -> String {
    if let string = value as? String { return "\"\(string)\"" }
    return "\(value ?? "null")"
}

@Suite(.offThePool) struct FileEditDelegateTests {
    @Test func aFileEditDeniedByADelegateIsMarkedInTheFile() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "diet", "questions": ["shouldAdd"]])
        let watcher = try LineConnection(path: sandbox.socket)
        _ = try watcher.result("subscribe")

        try "# Groceries <!-- listd id=1 -->\n- milk\n- cake\n- bread\n".write(
            toFile: sandbox.file,
            atomically: false,
            encoding: .utf8
        )
        // One question per added line, asked at once; answer each.
        var items: [String: Any] = [:]
        for _ in 0..<2 {
            let question = try delegate.readObject()
            let item = (question["params"] as? [String: Any])?["item"] as? String ?? ""
            #expect(((question["params"] as? [String: Any])?["origin"] as? [String: Any])?["kind"] as? String == "file")
            items[item] = question["id"]
            let answer = item == "cake" ? #"{"allow":false,"reason":"no sweets"}"# : #"{"allow":true}"#
            try delegate.send(
                "{\"jsonrpc\":\"2.0\",\"id\":\"\(question["id"] as? String ?? "")\",\"result\":\(answer)}"
            )
        }
        #expect(Set(items.keys) == ["cake", "bread"])
        let first = try watcher.readObject()
        #expect(first["method"] as? String == "didUpdateShoppingList")
        #expect(
            ((first["params"] as? [String: Any])?["changes"] as? [[String: String]]) == [
                ["op": "add", "item": "bread"]
            ]
        )
        let rejection = try watcher.readObject()
        #expect(rejection["method"] as? String == "didRejectFileEdit")
        let line = ((rejection["params"] as? [String: Any])?["lines"] as? [[String: Any]])?.first
        #expect(line?["line"] as? Int == 3)
        #expect(line?["reason"] as? String == "deniedByDelegate")
        let expected = """
            # Groceries <!-- listd id=1 -->
            - milk
            <!-- listd: not taken: Denied by a delegate: diet: no sweets. You wrote: - cake -->
            - bread

            """
        #expect(try sandbox.read { $0.withoutRevisions == expected }.withoutRevisions == expected)
        #expect(
            daemon.logShows("not taken from the list file, line 3: Denied by a delegate: diet: no sweets.")
        )
    }
}

extension FileEditDelegateTests {
    /// Issue 12, defect 1: each question shows the list as it will be when that edit is applied
    /// (after the earlier edits allowed, never one denied or undecided).
    @Test func aSavesSecondLineIsAskedAboutOnTheListWithoutTheDeniedFirst() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "strict", "questions": ["shouldAdd"]])
        try "# Groceries <!-- listd id=1 -->\n- milk\n- forbidden fruit\n- apples\n".write(
            toFile: sandbox.file,
            atomically: false,
            encoding: .utf8
        )
        var asked: [String] = []
        for _ in 0..<2 {
            let question = try delegate.readObject()
            let params = question["params"] as? [String: Any]
            let item = params?["item"] as? String ?? "?"
            let items = (params?["list"] as? [String: Any])?["items"] as? [String] ?? []
            asked.append("\(item) on \(items)")
            let answer = item.contains("forbidden") ? #"{"allow":false,"reason":"forbidden"}"# : #"{"allow":true}"#
            try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(question["id"])),\"result\":\(answer)}")
        }
        #expect(asked == ["forbidden fruit on [\"milk\"]", "apples on [\"milk\"]"])
        let expected = """
            # Groceries <!-- listd id=1 -->
            - milk
            <!-- listd: not taken: Denied by a delegate: strict: forbidden. You wrote: - forbidden fruit -->
            - apples

            """
        #expect(try sandbox.read { $0.withoutRevisions == expected }.withoutRevisions == expected)
        let reader = try LineConnection(path: sandbox.socket)
        #expect(try reader.result("getList", ["list": "Groceries"])["items"] as? [String] == ["milk", "apples"])
    }
}

extension FileEditDelegateTests {
    /// The file with Groceries (milk) and Hardware (nails), a delegate that vets Groceries only
    /// and answers when the test says so, and the person's save adding bread to Groceries, whose
    /// question has reached the delegate.
    private func saveWaitingForADelegate() throws -> (
        Sandbox, Daemon, delegate: LineConnection, question: [String: Any], saved: String
    ) {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n\n# Hardware\n- nails\n".write(
            toFile: sandbox.file,
            atomically: true,
            encoding: .utf8
        )
        let daemon = try Daemon.start(in: sandbox)
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "slow", "lists": ["Groceries"], "timeoutMs": 20000])
        let saved = try sandbox.read().replacingOccurrences(of: "- milk\n", with: "- milk\n- bread\n")
        try saved.write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let question = try delegate.readObject()
        #expect(question["method"] as? String == "shouldAdd")
        #expect((question["params"] as? [String: Any])?["item"] as? String == "bread")
        #expect(((question["params"] as? [String: Any])?["origin"] as? [String: Any])?["kind"] as? String == "file")
        return (sandbox, daemon, delegate, question, saved)
    }

    @Test func whileASaveWaitsForDelegatesOtherListsGoOnAndItsListQueuesBehindIt() throws {
        let (sandbox, daemon, delegate, question, saved) = try saveWaitingForADelegate()
        defer { withExtendedLifetime(daemon) {} }
        let watcher = try LineConnection(path: sandbox.socket)
        _ = try watcher.result("subscribe")

        // Hardware is not held up by the question about Groceries (the delegate's timeout is 20 s,
        // a reply waits 10 s at most) ...
        let other = try LineConnection(path: sandbox.socket)
        #expect(
            try other.result("addItem", ["list": "Hardware", "item": "screws"])["items"] as? [String] == [
                "nails", "screws",
            ]
        )
        // ... and the person's save is not written over while it waits.
        #expect(try sandbox.read() == saved)

        // An edit of Groceries queues behind the save: it is put to the delegate only once the
        // save is in, so the delegate sees bread on the list.
        let same = try LineConnection(path: sandbox.socket)
        try same.send(#"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Groceries","item":"eggs"}}"#)
        try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(question["id"])),\"result\":{\"allow\":true}}")
        let next = try delegate.readObject()
        #expect((next["params"] as? [String: Any])?["item"] as? String == "eggs")
        #expect(
            ((next["params"] as? [String: Any])?["list"] as? [String: Any])?["items"] as? [String] == ["milk", "bread"]
        )
        try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(next["id"])),\"result\":{\"allow\":true}}")
        #expect(
            ((try same.readObject())["result"] as? [String: Any])?["items"] as? [String] == ["milk", "bread", "eggs"]
        )

        var seen: [String] = []
        for _ in 0..<3 {
            let params = try watcher.readObject()["params"] as? [String: Any]
            let list = (params?["list"] as? [String: Any])?["name"] as? String ?? "?"
            let item = (params?["changes"] as? [[String: String]])?.first?["item"] ?? "?"
            seen.append("\(list) \(item) by \((params?["origin"] as? [String: Any])?["kind"] as? String ?? "?")")
        }
        #expect(seen == ["Hardware screws by client", "Groceries bread by file", "Groceries eggs by client"])
        // Both the save and the edits made while it waited are in the file (a three-way merge).
        let expected = """
            # Groceries <!-- listd id=1 -->
            - milk
            - bread
            - [ ] eggs

            # Hardware <!-- listd id=2 -->
            - nails
            - [ ] screws

            """
        #expect(try sandbox.read { $0.withoutRevisions == expected }.withoutRevisions == expected)
    }

    @Test func aSaveChangedWhileDelegatesVetItIsVettedAgainAsSaved() throws {
        let (sandbox, daemon, delegate, question, saved) = try saveWaitingForADelegate()
        defer { withExtendedLifetime(daemon) {} }
        let watcher = try LineConnection(path: sandbox.socket)
        _ = try watcher.result("subscribe")
        // The person saves again before the delegate answers; the answer about the first save
        // does not count for the second.
        try saved.replacingOccurrences(of: "- bread\n", with: "- bread\n- cake\n").write(
            toFile: sandbox.file,
            atomically: true,
            encoding: .utf8
        )
        try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(question["id"])),\"result\":{\"allow\":true}}")
        // Asked again, one line at a time (each question shows the list as it will be then).
        var asked: [String] = []
        for _ in 0..<2 {
            let again = try delegate.readObject()
            let item = (again["params"] as? [String: Any])?["item"] as? String ?? "?"
            asked.append(item)
            let answer = item == "cake" ? #"{"allow":false,"reason":"no sweets"}"# : #"{"allow":true}"#
            try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(again["id"])),\"result\":\(answer)}")
        }
        #expect(asked == ["bread", "cake"])
        let change = try watcher.readObject()
        #expect(
            (change["params"] as? [String: Any])?["changes"] as? [[String: String]] == [["op": "add", "item": "bread"]]
        )
        #expect(try watcher.readObject()["method"] as? String == "didRejectFileEdit")
        #expect(
            try sandbox.read {
                $0.contains(
                    "- bread\n<!-- listd: not taken: Denied by a delegate: slow: no sweets. You wrote: - cake -->\n"
                )
            }.contains("- bread\n<!-- listd: not taken: Denied by a delegate: slow: no sweets. You wrote: - cake -->\n")
        )
    }

    @Test func aSaveLineThatBrokeARuleWhenAskedIsAskedAboutBeforeItIsEverTakenIn() throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "all", "timeoutMs": 20000])
        func answer(_ question: [String: Any], allow: Bool) throws {
            let result = allow ? #"{"allow":true}"# : #"{"allow":false,"reason":"no tools"}"#
            try delegate.send("{\"jsonrpc\":\"2.0\",\"id\":\(jsonString(question["id"])),\"result\":\(result)}")
        }
        func describe(_ question: [String: Any]) -> String {
            let params = question["params"] as? [String: Any]
            let origin = (params?["origin"] as? [String: Any])?["kind"] as? String ?? "?"
            return
                "\(question["method"] as? String ?? "?") \(params?["item"] as? String ?? params?["name"] as? String ?? "?") by \(origin)"
        }
        let client = try LineConnection(path: sandbox.socket)
        let watcher = try LineConnection(path: sandbox.socket)
        _ = try watcher.result("subscribe")

        // The person adds bread; the question waits.
        let saved = try sandbox.read() + "- bread\n"
        try saved.write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let bread = try delegate.readObject()
        #expect(describe(bread) == "shouldAdd bread by file")
        /// A client's edit, which the delegate is asked about (as `question`) and allows.
        func allowedClientEdit(_ request: String, _ question: String) throws {
            try client.send(request)
            let asked = try delegate.readObject()
            #expect(describe(asked) == question)
            try answer(asked, allow: true)
            #expect((try client.readObject())["result"] != nil)
        }
        // Meanwhile a client creates Tools (allowed) ...
        try allowedClientEdit(
            #"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":"Tools"}}"#,
            "shouldCreate Tools by client"
        )
        // ... and the person saves again with a Tools heading of their own, which breaks a rule
        // now (Tools exists), so only bread is asked about again.
        try (saved + "\n# Tools\n- saw\n").write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        try answer(bread, allow: true)
        let breadAgain = try delegate.readObject()
        #expect(describe(breadAgain) == "shouldAdd bread by file")
        // The client deletes its Tools: the person's Tools heading would now be taken in ...
        try allowedClientEdit(
            #"{"jsonrpc":"2.0","id":2,"method":"deleteList","params":{"list":"Tools"}}"#,
            "shouldDelete ? by client"
        )
        // ... but not before the delegate has been asked about it.
        try answer(breadAgain, allow: true)
        var asked: [String: [String: Any]] = [:]
        for _ in 0..<2 {
            let question = try delegate.readObject()
            asked[describe(question)] = question
        }
        #expect(Set(asked.keys) == ["shouldAdd bread by file", "shouldCreate Tools by file"])
        for (description, question) in asked { try answer(question, allow: !description.contains("Tools")) }

        var heard: [String] = []
        while heard.last != "didRejectFileEdit" {
            let note = try watcher.readObject()
            let params = note["params"] as? [String: Any]
            let detail =
                (params?["changes"] as? [[String: String]])?.first?["item"] ?? (params?["list"] as? [String: Any])?[
                    "name"
                ] as? String
            heard.append([note["method"] as? String, detail].compactMap { $0 }.joined(separator: " "))
        }
        #expect(
            heard == [
                "didCreateShoppingList Tools", "didDeleteShoppingList Tools", "didUpdateShoppingList bread",
                "didRejectFileEdit",
            ]
        )
        let reader = try LineConnection(path: sandbox.socket)
        let lists = try reader.result("getLists")["lists"] as? [[String: Any]] ?? []
        #expect(lists.map { $0["name"] as? String } == ["Groceries"])
        #expect(lists.first?["items"] as? [String] == ["milk", "bread"])
        #expect(
            try sandbox.read {
                $0.contains("<!-- listd: not taken: Denied by a delegate: all: no tools. You wrote: # Tools -->")
            }.contains("<!-- listd: not taken: Denied by a delegate: all: no tools. You wrote: # Tools -->")
        )
    }

    @Test func aCrashWhileASaveWaitsForDelegatesLosesNeitherTheSaveNorConfirmedEdits() throws {
        let (sandbox, daemon, delegate, _, _) = try saveWaitingForADelegate()
        let client = try LineConnection(path: sandbox.socket)
        #expect(
            try client.result("addItem", ["list": "Hardware", "item": "screws"])["items"] as? [String] == [
                "nails", "screws",
            ]
        )
        daemon.kill()
        withExtendedLifetime(delegate) {}  // it never answered: the save was still undecided

        // The confirmed edit is in the state file only; the save was never decided, so the next
        // start takes it in like any edit made while listd was not running.
        try daemon.start()
        let reader = try LineConnection(path: sandbox.socket)
        #expect(try reader.result("getList", ["list": "Groceries"])["items"] as? [String] == ["milk", "bread"])
        #expect(try reader.result("getList", ["list": "Hardware"])["items"] as? [String] == ["nails", "screws"])
        #expect(try sandbox.read { $0.contains("- nails\n- [ ] screws\n") }.contains("- nails\n- [ ] screws\n"))
    }
}

/// listctl's delegate and watch --exec, with real shell scripts.
@Suite struct ListctlDelegateTests {
    @Test(.offThePool) func aShellScriptVetsEditsThroughListctlDelegate() throws {
        let daemon = try Daemon.start()
        let sandbox = daemon.sandbox
        _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Groceries"])
        let vet = try sandbox.script(
            "vet.sh",
            """
            question=$(cat)
            case "$question" in
              *'"item":"cake"'*'"question":"shouldAdd"'*) echo "no sweets"; exit 1;;
            esac
            exit 0
            """
        )
        let delegate = try ChildProcess(
            Binaries.listctl.path,
            ["delegate", "--socket", sandbox.socket, "--question", "shouldAdd", "--name", "diet", "--", vet]
        )
        defer { delegate.signal(SIGTERM) }
        let output = LineReader(delegate.stdout)
        #expect(try output.line() == "Registered as delegate “diet” for shouldAdd; Ctrl-C to stop.")

        let denied = try listctl(["add", "Groceries", "cake", "bread"], socket: sandbox.socket)
        #expect(denied.status == 1)
        #expect(denied.stdout == "Added “bread” to Groceries.\n")
        #expect(denied.stderr == "listctl: denied: Denied by a delegate: diet: no sweets.\n")
        // Not asked about removals.
        #expect(try listctl(["remove", "Groceries", "bread"], socket: sandbox.socket).status == 0)
        let lines = [try output.line(), try output.line()].sorted()
        #expect(
            lines == ["shouldAdd “bread” on Groceries: allowed", "shouldAdd “cake” on Groceries: denied (no sweets)"]
        )
    }

    /// Issue 46, case 10: a clear asks `shouldRemove` of each ticked item at once; listctl
    /// delegate answers each as fast as any other question, so listd keeps consulting it, and
    /// its rules still apply afterwards (its answers came after ~1.9 s, three timeouts in a row,
    /// and listd stopped asking it).
    @Test func aClearKeepsAListctlDelegateAndItsRules() async throws {
        try await offThePool {
            let daemon = try Daemon.start()
            let sandbox = daemon.sandbox
            let items = (1...41).map { "item \($0)" }
            _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Groceries", "items": items])
            #expect(try listctl(["check", "Groceries"] + Array(items.prefix(40)), socket: sandbox.socket).status == 0)
            let vet = try sandbox.script(
                "vet.sh",
                """
                case "$(cat)" in
                  *'"item":"cake"'*) echo "no sweets"; exit 1;;
                esac
                exit 0
                """
            )
            // 10 s for each answer: what a loaded machine needs for a prompt one (the full parallel
            // run starts a process per question beside the other tests); a clear's answers
            // waiting for each other ran past any limit.
            let delegate = try ChildProcess(
                Binaries.listctl.path,
                ["delegate", "--socket", sandbox.socket, "--name", "diet", "--timeout", "10000", "--", vet]
            )
            defer { delegate.signal(SIGTERM) }
            let output = LineReader(delegate.stdout)
            #expect(try output.line().hasPrefix("Registered as delegate “diet”"))
            let cleared = try listctl(["clear", "Groceries"], socket: sandbox.socket)
            #expect(cleared.status == 0 && cleared.stdout == "Cleared 40 checked items from Groceries.\n", "\(cleared)")
            let votes = try (0..<40).map { _ in try output.line() }
            #expect(votes.allSatisfy { $0.hasPrefix("shouldRemove") && $0.hasSuffix(": allowed") }, "\(votes)")
            // Still consulted: its rule holds.
            let denied = try listctl(["add", "Groceries", "cake"], socket: sandbox.socket)
            #expect(denied.status == 1 && denied.stderr.contains("no sweets"), "\(denied)")
            #expect(!daemon.logOutput.contains("no longer consulted"), "\(daemon.logOutput)")
        }
    }

    /// Issue 46, case 10: a clear of 1,000 ticked items with a delegate that answers at once:
    /// every question is put and answered (at most `questionsOutPerDelegate` out at a time, so
    /// the delegate's connection never fills), and the delegate is kept.
    @Test func aClearOfAThousandItemsKeepsADelegateThatAnswersAtOnce() async throws {
        try await offThePool {
            let daemon = try Daemon.start()
            let sandbox = daemon.sandbox
            let items = (1...1_000).map { "item \($0)" }
            let client = try LineConnection(path: sandbox.socket)
            // Ticked through a brief connection: a full confirm carries the whole list, and a
            // thousand of them (a million items written by the debug listd) took most of the
            // test's time.
            let setup = try LineConnection(path: sandbox.socket)
            _ = try setup.result("hello", ["brief": true])
            _ = try setup.result("createList", ["name": "Big", "items": items])
            for item in items { _ = try setup.result("checkItem", ["list": "Big", "item": item]) }
            let delegate = try LineConnection(path: sandbox.socket)
            // 10 s for each answer, as for the delegate above: the answering thread is one of the
            // test process's, which the full parallel run keeps busy (three full runs timed it
            // out three times in a row at the 2 s default; alone it answers in milliseconds).
            _ = try delegate.result(
                "registerDelegate",
                ["name": "quick", "questions": ["shouldRemove", "shouldAdd"], "timeoutMs": 10_000]
            )
            let answering = Thread {
                while let question = try? delegate.readObject(timeout: 30), let id = question["id"] as? String {
                    let allow = (question["params"] as? [String: Any])?["item"] as? String != "forbidden"
                    try? delegate.send(#"{"jsonrpc":"2.0","id":"\#(id)","result":{"allow":\#(allow)}}"#)
                }
            }
            answering.start()
            // A bound against a hang: a full parallel run has kept the clear busy past a minute.
            let cleared = try client.call("clearChecked", ["list": "Big"], timeout: 300)
            #expect(((cleared["result"] as? [String: Any])?["items"] as? [String]) == [], "\(cleared)")
            #expect(!daemon.logOutput.contains("no longer consulted") && !daemon.logOutput.contains("stopped reading"), "\(daemon.logOutput)")
            // Still consulted.
            let refused = try client.error("addItem", ["list": "Big", "item": "forbidden"])
            #expect(((refused["data"] as? [String: Any])?["reason"] as? String) == "deniedByDelegate", "\(refused)")
        }
    }

    /// Issue 46, case 11: COMMAND reads every field of the question listd sent — the section, the
    /// amount, a section edit's op and new name — not a hand-copied part of it.
    @Test func aDelegateCommandReadsEveryFieldOfTheQuestion() async throws {
        try await offThePool {
            let daemon = try Daemon.start()
            let sandbox = daemon.sandbox
            _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Groceries", "items": ["milk"]])
            let log = sandbox.path + "/questions.log"
            let vet = try sandbox.script("vet.sh", "cat >> '\(log)'; echo >> '\(log)'\nexit 0\n")
            let delegate = try ChildProcess(
                Binaries.listctl.path,
                ["delegate", "--socket", sandbox.socket, "--question", "shouldAdd", "--question", "shouldEditSection", "--timeout", "30000", "--", vet]
            )
            defer { delegate.signal(SIGTERM) }
            let output = LineReader(delegate.stdout)
            _ = try output.line()
            let added = try listctl(["add", "Groceries", "cheese", "--section", "Dairy", "--amount", "200 g"], socket: sandbox.socket)
            #expect(added.status == 0, "\(added)")
            _ = try output.line()
            let renamed = try listctl(["section", "rename", "Groceries", "Dairy", "Fridge"], socket: sandbox.socket)
            #expect(renamed.status == 0, "\(renamed)")
            _ = try output.line()
            let questions = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(questions.count == 2)
            #expect(questions.first?["question"] as? String == "shouldAdd")
            #expect(questions.first?["section"] as? String == "Dairy" && questions.first?["quantity"] as? String == "200 g", "\(questions)")
            #expect(questions.last?["question"] as? String == "shouldEditSection")
            #expect(questions.last?["op"] as? String == "rename" && questions.last?["to"] as? String == "Fridge", "\(questions)")
            #expect(questions.last?["section"] as? String == "Dairy", "\(questions)")
        }
    }

    @Test(.offThePool) func watchExecRunsACommandForEachNotificationInOrder() throws {
        let daemon = try Daemon.start()
        let sandbox = daemon.sandbox
        let log = sandbox.path + "/actions.log"
        let action = try sandbox.script("on-change.sh", "cat >> '\(log)'\n")
        let watch = try ChildProcess(
            Binaries.listctl.path,
            ["watch", "--socket", sandbox.socket, "--exec", "--", action]
        )
        defer { watch.signal(SIGTERM) }
        #expect(try LineReader(watch.stdout).line().hasPrefix("Watching 0 lists"))
        _ = try listctl(["create", "Groceries", "milk"], socket: sandbox.socket)
        _ = try listctl(["add", "Groceries", "eggs", "bread"], socket: sandbox.socket)
        var lines: [[String: Any]] = []
        for _ in 0..<100 where lines.count < 3 {
            usleep(50_000)
            lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        #expect(
            lines.map { $0["event"] as? String } == [
                "didCreateShoppingList", "didUpdateShoppingList", "didUpdateShoppingList",
            ]
        )
        #expect(lines.map { $0["revision"] as? Int } == [1, 2, 3])
    }

    @Test(.offThePool) func aCommandIsNeededAfterTheTerminator() throws {
        #expect(try listctl(["delegate"], socket: "/nonexistent").status == 2)
        #expect(try listctl(["watch", "--exec"], socket: "/nonexistent").status == 2)
        #expect(try listctl(["delegate", "--question", "shouldFly", "--", "true"], socket: "/nonexistent").status == 2)
    }
}
