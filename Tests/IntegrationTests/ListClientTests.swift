import ListClient
import ListModel
import ListRPC
import Synchronization
import Testing

/// The Swift library other programs use, against the real listd.
@Suite struct ListClientTests {
    @Test func typedCallsAndTypedDenials() async throws {
        let daemon = try Daemon.start()
        try await ListClient.withConnection(socketPath: daemon.sandbox.socket, name: "library-test") { client in
            let created = try await client.createList("Groceries", items: ["milk"])
            #expect(created.id == 1)
            #expect(created.items == ["milk"])
            let added = try await client.addItem("eggs", to: .name("groceries"))
            #expect(added.items == ["milk", "eggs"])
            #expect(try await client.replaceItem("eggs", with: "duck eggs", on: .id(1)).items == ["milk", "duck eggs"])
            #expect(try await client.removeItem("milk", from: .id(1)).items == ["duck eggs"])
            #expect(try await client.renameList(.id(1), to: "Food").name == "Food")
            #expect(try await client.list(.name("food")).revision == 5)
            #expect(try await client.lists().revision == 5)

            await #expect {
                try await client.addItem("DUCK EGGS", to: .id(1))
            } throws: { error in
                guard case ListClientError.denied(let denial) = error else { return false }
                return denial.reason == "itemExists" && denial.message == "“duck eggs” is already on Food."
                    && denial.code == 1001
            }
            await #expect {
                try await client.addItem("x", to: .id(1), ifRevision: 1)
            } throws: { error in
                guard case ListClientError.denied(let denial) = error else { return false }
                return denial.reason == "conflict"
            }
            let outcomes = try await client.batch(
                AddItem.self,
                [.init(list: .id(1), item: "a"), .init(list: .id(1), item: "A")]
            )
            #expect((try? outcomes[0].get())?.items == ["duck eggs", "a"])
            guard case .failure(.denied(let denial)) = outcomes[1] else {
                Issue.record("the second add should be denied: \(outcomes[1])")
                return
            }
            #expect(denial.reason == "itemExists")
            #expect(try await client.deleteList(.id(1)).name == "Food")
        }
    }

    /// Issue 37's ground, through the library: an edit sent with its id and the revision it was
    /// made on is applied once, however often it is sent, and one made on older lists of an item
    /// removed since is denied `changedMeanwhile`.
    @Test func anOfflineEditIsSentWithItsIdAndTheRevisionItWasMadeOn() async throws {
        let daemon = try Daemon.start()
        try await ListClient.withConnection(socketPath: daemon.sandbox.socket, name: "phone") { client in
            let seen = try await client.call(CreateList.self, .init(name: "Groceries", items: ["milk", "eggs"]))
            _ = try await client.call(RemoveItem.self, .init(list: .name("Groceries"), item: "milk"))
            let add = AddItemParams(list: .name("Groceries"), item: "tea")
            let first = try await client.call(AddItem.self, add, editId: "queued-1", basedOn: seen.revision)
            let again = try await client.call(AddItem.self, add, editId: "queued-1", basedOn: seen.revision)
            #expect(first.revision == again.revision && again.items == ["eggs", "tea"], "\(again)")
            do {
                _ = try await client.call(
                    CheckItem.self,
                    .init(list: .name("Groceries"), item: "milk"),
                    editId: "queued-2",
                    basedOn: seen.revision
                )
                Issue.record("a tick of an item removed meanwhile is not taken")
            } catch ListClientError.denied(let denial) {
                #expect(denial.reason == "changedMeanwhile", "\(denial)")
            }
        }
    }

    /// Issue 36, item 10: a batch larger than a listd takes (started with --max-batch 10) is
    /// refused whole by it, and sent again by the library in batches of the size it said.
    @Test func aBatchLargerThanListdTakesIsSentInBatchesItTakes() async throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--max-batch", "10"])
        try await ListClient.withConnection(socketPath: daemon.sandbox.socket, name: "bulk") { client in
            _ = try await client.call(CreateList.self, .init(name: "Big"))
            let outcomes = try await client.batch(AddItem.self, (1...25).map { AddItemParams(list: .name("Big"), item: "item \($0)") })
            #expect(outcomes.count == 25)
            #expect(outcomes.allSatisfy { (try? $0.get()) != nil }, "\(outcomes.filter { (try? $0.get()) == nil }.prefix(2))")
            #expect(try await client.call(GetList.self, .init(list: .name("Big"))).items.count == 25)
        }
    }

    /// A brief connection: a batch of adds is confirmed with summaries, and its changes come as
    /// brief events whose steps say where each item went.
    @Test func aBriefConnectionBatchesAndHearsWithoutTheItems() async throws {
        let daemon = try Daemon.start()
        try await ListClient.withConnection(socketPath: daemon.sandbox.socket, name: "bulk", brief: true) { client in
            let events = client.briefEvents()
            _ = try await client.subscribe()
            _ = try await client.batch(CreateList.self, [.init(name: "Groceries", items: ["milk"])], decoding: ListSummary.self)
            let outcomes = try await client.batch(
                AddItem.self,
                ["eggs", "bread", "MILK"].map { AddItemParams(list: .name("Groceries"), item: $0) },
                decoding: ListSummary.self
            )
            #expect(outcomes.compactMap { try? $0.get().name } == ["Groceries", "Groceries"])
            guard case .failure(.denied(let denial)) = outcomes[2] else {
                Issue.record("a duplicate is denied on a brief connection too: \(outcomes[2])")
                return
            }
            #expect(denial.reason == "itemExists")
            var heard: [String] = []
            for await (name, params) in events {
                heard.append(
                    "\(name.rawValue) \(params.items ?? []) \(params.changes.map { "\($0.op) \($0.item ?? "") @\($0.index ?? -1)" })"
                )
                if heard.count == 3 { break }
            }
            #expect(
                heard == [
                    "didCreateShoppingList [\"milk\"] []",
                    "didUpdateShoppingList [] [\"add eggs @1\"]",
                    "didUpdateShoppingList [] [\"add bread @2\"]",
                ]
            )
        }
    }

    @Test func closureHandlersAndEventStreamsHearChanges() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let updates = Mutex<[Revision]>([])
        let everything = Mutex<[ListEventName]>([])
        try await ListClient.withConnection(socketPath: socket) { watcher in
            watcher.on(.didUpdateShoppingList) { event in updates.withLock { $0.append(event.revision) } }
            watcher.on { event in everything.withLock { $0.append(event.name) } }
            let stream = watcher.events()
            _ = try await watcher.subscribe()
            try await ListClient.withConnection(socketPath: socket, name: "editor") { editor in
                _ = try await editor.createList("Groceries")
                _ = try await editor.addItem("milk", to: .id(1))
                _ = try await editor.addItem("eggs", to: .id(1))
                _ = try await editor.deleteList(.id(1))
            }
            let seen = try await withTimeLimit(10, waitingFor: "four events") {
                var seen: [ListEvent] = []
                for await event in stream {
                    seen.append(event)
                    if seen.count == 4 { break }
                }
                return seen
            }
            #expect(
                seen.map(\.name) == [
                    .didCreateShoppingList, .didUpdateShoppingList, .didUpdateShoppingList, .didDeleteShoppingList,
                ]
            )
            #expect(seen[1].changes == [.add(item: "milk")])
            guard case .client(_, _, let name) = seen[1].origin else {
                Issue.record("origin should be a client")
                return
            }
            #expect(name == "editor")
        }
        #expect(updates.withLock { $0 } == [2, 3])
        #expect(everything.withLock { $0 }.count == 4)
    }

    @Test func connectingToNothingIsATypedError() async throws {
        let sandbox = try Sandbox()
        await #expect {
            try await ListClient.withConnection(socketPath: sandbox.socket) { _ in }
        } throws: { error in
            guard case ListClientError.cannotConnect(let path, _) = error else { return false }
            return path == sandbox.socket
        }
    }

    @Test func aStopEndsEventStreamsAndFailsCallsCleanly() async throws {
        let daemon = try Daemon.start()
        try await ListClient.withConnection(socketPath: daemon.sandbox.socket) { client in
            let stream = client.events()
            _ = try await client.subscribe()
            #expect(daemon.stop() == 0)
            try await withTimeLimit(10, waitingFor: "the event stream to end with listd") {
                for await _ in stream {}
            }
            await #expect {
                try await client.lists()
            } throws: { error in
                guard case ListClientError.connectionClosed = error else { return false }
                return true
            }
        }
    }
}

@Suite struct ListClientFileRejectionTests {
    @Test func fileRejectionsArriveAsTypedValues() async throws {
        let sandbox = try Sandbox()
        try "# Groceries\n- milk\n".write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        try await ListClient.withConnection(socketPath: sandbox.socket) { client in
            let rejections = client.fileRejections()
            _ = try await client.subscribe(events: [.didRejectFileEdit])
            try "# Groceries <!-- listd id=1 -->\n- milk\n- MILK\n".write(
                toFile: sandbox.file,
                atomically: true,
                encoding: .utf8
            )
            var iterator = rejections.makeAsyncIterator()
            let rejection = try #require(await iterator.next())
            #expect(rejection.reason == "linesNotTaken")
            #expect(
                rejection.lines == [
                    .init(line: 3, text: "- MILK", reason: "itemExists", message: "“milk” is already on Groceries.")
                ]
            )
        }
        _ = daemon
    }
}

/// A program that vets only removals: every other question is allowed by the protocol's defaults.
private struct KeepMilk: ListDelegate {
    func shouldRemove(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        question.item == "milk"
            ? DelegateAnswer(allow: false, reason: "we always need milk") : DelegateAnswer(allow: true)
    }
}

/// Issue 28 through the library: checks, a clear a delegate partly refuses, history and undo,
/// each a typed call with a typed result.
@Suite struct ListClientCheckHistoryUndoTests {
    /// Refuses to let “flour” go, and any tick of “salt”.
    struct KeepFlour: ListDelegate {
        func shouldRemove(_ question: DelegateQuestionParams) async -> DelegateAnswer {
            question.item == "flour" ? DelegateAnswer(allow: false, reason: "we bake") : DelegateAnswer(allow: true)
        }
        func shouldCheck(_ question: DelegateQuestionParams) async -> DelegateAnswer {
            question.item == "salt" ? DelegateAnswer(allow: false, reason: "never out of salt") : DelegateAnswer(allow: true)
        }
    }

    @Test func checkClearHistoryAndUndoAreTypedCalls() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        try await ListClient.withConnection(socketPath: socket, name: "kitchen") { client in
            _ = try await client.createList("Groceries", items: ["milk", "flour", "salt", "eggs"])
            #expect(try await client.checkItem("milk", on: .name("Groceries")).checkedItems == ["milk"])
            #expect(try await client.checkItem("flour", on: .id(1)).checkedItems == ["milk", "flour"])
            #expect(try await client.uncheckItem("milk", on: .id(1)).checkedItems == ["flour"])
            _ = try await client.checkItem("milk", on: .id(1))  // 5
            try await ListClient.withConnection(socketPath: socket, name: "baker") { delegate in
                try await delegate.registerDelegate(KeepFlour(), name: "baker")
                await #expect {
                    try await client.checkItem("salt", on: .id(1))
                } throws: { error in
                    guard case ListClientError.denied(let denial) = error else { return false }
                    return denial.reason == "deniedByDelegate" && denial.message == "Denied by a delegate: baker: never out of salt."
                        && denial.delegateDenials == [DelegateDenial(delegate: "baker", reason: "never out of salt")]
                        && denial.timedOutDelegates.isEmpty
                }
                let cleared = try await client.clearChecked(.id(1))
                #expect(cleared.cleared == ["milk"])
                #expect(cleared.list.items == ["flour", "salt", "eggs"])
                #expect(cleared.list.checkedItems == ["flour"])
                #expect(cleared.kept.map(\.message) == ["“flour” stays: baker: we bake."])
                #expect(cleared.list.revision == 6)
                try await delegate.unregisterDelegate()
            }
            let history = try await client.history(of: .name("Groceries"), since: 4)
            #expect(history.revision == 6)
            #expect(history.changes.map(\.revision) == [5, 6])
            #expect(history.changes.last?.changes == [.remove(item: "milk")])
            #expect(history.changes.last?.event == .didUpdateShoppingList)
            if case .client(_, _, let name) = history.changes.last?.origin { #expect(name == "kitchen") } else {
                Issue.record("a client's change: \(String(describing: history.changes.last?.origin))")
            }
            #expect(try await client.history(limit: 1).changes.map(\.revision) == [6])

            let undone = try await client.undo(6)
            #expect(undone.undone.revision == 6)
            #expect(undone.revision == 7)
            #expect(undone.list.items == ["milk", "flour", "salt", "eggs"], "back where it was")
            #expect(undone.list.checkedItems == ["milk", "flour"])
            #expect(try await client.history(limit: 1).changes.first?.undoes == 6)
            await #expect {
                try await client.undo(70)
            } throws: { error in
                guard case ListClientError.denied(let denial) = error else { return false }
                return denial.reason == "changeNotFound" && denial.code == 1012
            }
        }
    }
}

/// Keeps bread at the bakery: refuses to move it (`shouldMove`), allows the rest.
private struct BreadStays: ListDelegate {
    func shouldMove(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        question.item == "bread" ? DelegateAnswer(allow: false, reason: "bread stays") : DelegateAnswer(allow: true)
    }
}

@Suite struct ListClientSectionsTests {
    @Test func sectionsAndAmountsAreTypedCalls() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        try await ListClient.withConnection(socketPath: socket, name: "kitchen") { client in
            _ = try await client.createList("Groceries", items: ["tape"])
            var list = try await client.addItem("milk", to: .id(1), section: "Dairy", quantity: "2 l")
            #expect(list.sectionsWithItems.map(\.name) == ["Dairy"])
            #expect(list.quantities == ["milk": "2 l"])
            list = try await client.addSection("Bakery", to: .id(1))
            list = try await client.addItem("bread", to: .id(1), section: "Bakery")
            list = try await client.moveItem("tape", on: .id(1), section: "Dairy", before: "milk")
            #expect(list.items == ["tape", "milk", "bread"])
            #expect(list.sectionsWithItems.map { Array($0.items) } == [["tape", "milk"], ["bread"]])
            list = try await client.renameSection("Bakery", on: .id(1), to: "Bread")
            list = try await client.setQuantity("1 loaf", of: "bread", on: .id(1))
            #expect(list.quantities == ["milk": "2 l", "bread": "1 loaf"])
            list = try await client.setQuantity(nil, of: "milk", on: .id(1))
            #expect(list.quantities == ["bread": "1 loaf"])
            try await ListClient.withConnection(socketPath: socket, name: "baker") { delegate in
                try await delegate.registerDelegate(BreadStays(), name: "baker")
                await #expect {
                    try await client.moveItem("bread", on: .id(1), section: "Dairy")
                } throws: { error in
                    guard case ListClientError.denied(let denial) = error else { return false }
                    return denial.reason == "deniedByDelegate" && denial.message == "Denied by a delegate: baker: bread stays."
                }
                try await delegate.unregisterDelegate()
            }
            list = try await client.removeSection("Bread", from: .id(1))
            #expect(list.sectionsWithItems.map { "\($0.name): \($0.items.joined(separator: ","))" } == ["Dairy: tape,milk,bread"])
            await #expect {
                try await client.renameSection("Frozen", on: .id(1), to: "Ice")
            } throws: { error in
                guard case ListClientError.denied(let denial) = error else { return false }
                return denial.reason == "sectionNotFound" && denial.code == 1014
            }
        }
    }
}

@Suite struct ListDelegateProtocolTests {
    @Test func aDelegateImplementsOnlyWhatItVets() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        try await ListClient.withConnection(socketPath: socket, name: "vetter") { delegate in
            let registered = try await delegate.registerDelegate(KeepMilk(), name: "keep-milk")
            #expect(registered.questions == DelegateQuestion.allCases)
            try await ListClient.withConnection(socketPath: socket) { client in
                _ = try await client.createList("Groceries", items: ["milk", "eggs"])
                _ = try await client.addItem("bread", to: .id(1))
                _ = try await client.removeItem("eggs", from: .id(1))
                await #expect {
                    try await client.removeItem("milk", from: .id(1))
                } throws: { error in
                    guard case ListClientError.denied(let denial) = error else { return false }
                    return denial.reason == "deniedByDelegate"
                        && denial.message == "Denied by a delegate: keep-milk: we always need milk."
                }
                try await delegate.unregisterDelegate()
                _ = try await client.removeItem("milk", from: .id(1))
            }
        }
    }

    @Test func aDelegateMayEditThroughItsOwnConnectionWhileItDecides() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        try await ListClient.withConnection(socketPath: socket, name: "pantry-keeper") { keeper in
            _ = try await keeper.createList("Groceries")
            _ = try await keeper.createList("Pantry")
            // Whatever is bought also goes on the pantry list, through the delegate's own
            // connection. Were its edit or its answers held up there, the question would time
            // out, and a timeout denies here.
            try await keeper.registerDelegate(
                name: "pantry",
                questions: [.shouldAdd],
                timeoutMs: 5000,
                onTimeout: .deny
            ) { _, params in
                guard params.list?.name == "Groceries", let item = params.item else {
                    return DelegateAnswer(allow: true)
                }
                do {
                    _ = try await keeper.addItem(item, to: .name("Pantry"))
                    return DelegateAnswer(allow: true)
                } catch {
                    return DelegateAnswer(allow: false, reason: "could not stock the pantry: \(error)")
                }
            }
            try await ListClient.withConnection(socketPath: socket) { client in
                let groceries = try await client.addItem("rice", to: .name("Groceries"))
                let pantry = try await client.list(.name("Pantry"))
                #expect(groceries.items == ["rice"])
                #expect(pantry.items == ["rice"])
            }
        }
    }
}
