import Foundation
import ListClient
import ListModel
import ListRPC
import Testing

@Suite struct SubscriptionTests {
    @Test(.offThePool) func everyKindOfChangeIsNotifiedWithItsChanges() throws {
        let daemon = try Daemon.start()
        let watcher = try LineConnection(path: daemon.sandbox.socket)
        #expect(try watcher.result("subscribe")["revision"] as? Int == 0)
        let editor = try LineConnection(path: daemon.sandbox.socket)
        _ = try editor.result("createList", ["name": "Groceries", "items": ["milk"]])
        _ = try editor.result("addItem", ["list": 1, "item": "eggs"])
        _ = try editor.result("replaceItem", ["list": 1, "item": "eggs", "with": "duck eggs"])
        _ = try editor.result("removeItem", ["list": 1, "item": "milk"])
        _ = try editor.result("renameList", ["list": 1, "name": "Food"])
        _ = try editor.error("addItem", ["list": 1, "item": "duck EGGS"])
        _ = try editor.result("deleteList", ["list": 1])

        var notes: [[String: Any]] = []
        for _ in 0..<6 { notes.append(try watcher.readObject()) }
        #expect(
            notes.map { $0["method"] as? String } == [
                "didCreateShoppingList", "didUpdateShoppingList", "didUpdateShoppingList",
                "didUpdateShoppingList", "didRenameShoppingList", "didDeleteShoppingList",
            ]
        )
        let params = notes.map { $0["params"] as? [String: Any] ?? [:] }
        #expect(params.map { $0["revision"] as? Int } == [1, 2, 3, 4, 5, 6])
        #expect(notes.allSatisfy { $0["id"] == nil && $0["jsonrpc"] as? String == "2.0" })
        let changes = params.map { ($0["changes"] as? [[String: String]]) ?? [] }
        #expect(changes[0] == [])
        #expect(changes[1] == [["op": "add", "item": "eggs"]])
        #expect(changes[2] == [["op": "replace", "item": "eggs", "with": "duck eggs"]])
        #expect(changes[3] == [["op": "remove", "item": "milk"]])
        #expect(changes[4] == [["op": "rename", "from": "Groceries", "to": "Food"]])
        let lists = params.map { $0["list"] as? [String: Any] ?? [:] }
        #expect(lists[3]["items"] as? [String] == ["duck eggs"])
        #expect(lists[5]["name"] as? String == "Food")
        #expect(lists[5]["items"] as? [String] == ["duck eggs"])
        // The deny produced no notification: the next one is a marker's.
        try watcher.expectNothingBeforeMarker(
            { _ = try editor.result("createList", ["name": "Fence"]) },
            isMarker: listNamed("Fence")
        )
    }

    @Test(.offThePool) func eventsAndListsFilterWhatASubscriberHears() throws {
        let daemon = try Daemon.start()
        let editor = try LineConnection(path: daemon.sandbox.socket)
        _ = try editor.result("createList", ["name": "Groceries"])
        _ = try editor.result("createList", ["name": "Hardware"])
        let groceriesOnly = try LineConnection(path: daemon.sandbox.socket)
        _ = try groceriesOnly.result("subscribe", ["lists": ["groceries"]])
        let renamesOnly = try LineConnection(path: daemon.sandbox.socket)
        _ = try renamesOnly.result("subscribe", ["events": ["didRenameShoppingList"]])
        let unknown = try LineConnection(path: daemon.sandbox.socket)
        #expect(
            ((try unknown.error("subscribe", ["lists": ["Nope"]]))["data"] as? [String: Any])?["reason"] as? String
                == "listNotFound"
        )

        _ = try editor.result("addItem", ["list": "Hardware", "item": "nails"])
        _ = try editor.result("addItem", ["list": "Groceries", "item": "milk"])
        _ = try editor.result("renameList", ["list": "Hardware", "name": "Tools"])

        let heard = try groceriesOnly.readObject()
        #expect((heard["params"] as? [String: Any])?["revision"] as? Int == 4)
        // Neither hears more: the next each hears is a marker it is filtered to hear.
        try groceriesOnly.expectNothingBeforeMarker(
            { _ = try editor.result("addItem", ["list": "Groceries", "item": "fence"]) },
            isMarker: listHolds("fence")
        )
        let rename = try renamesOnly.readObject()
        #expect(rename["method"] as? String == "didRenameShoppingList")
        try renamesOnly.expectNothingBeforeMarker(
            { _ = try editor.result("renameList", ["list": "Tools", "name": "Fence"]) },
            isMarker: listNamed("Fence")
        )
    }

    @Test(.offThePool) func unsubscribeStopsNotifications() throws {
        let daemon = try Daemon.start()
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("subscribe")
        _ = try client.result("unsubscribe")
        let editor = try LineConnection(path: daemon.sandbox.socket)
        _ = try editor.result("createList", ["name": "Groceries"])
        try client.expectNothingBeforeAReply("a notification after unsubscribe")
    }

    /// Two subscribers, one on a raw socket and one through ListClient, see the same gap-free,
    /// duplicate-free sequence while 20 clients edit at once.
    @Test func twoSubscribersSeeTheSameGapFreeSequenceUnderConcurrentEdits() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let setup = try LineConnection(path: socket)
        _ = try setup.result("createList", ["name": "Shared"])
        _ = try setup.result("addItem", ["list": 1, "item": "seed"])

        let raw = try LineConnection(path: socket)
        let rawStart = try #require(try raw.result("subscribe")["revision"] as? Int)

        let clients = 20
        let editsPerClient = 15
        let (confirmed, libraryEvents, libraryStart) = try await ListClient.withConnection(
            socketPath: socket,
            name: "watcher"
        ) { watcher in
            let stream = watcher.events()
            let start = try await watcher.subscribe().revision
            let confirmed = try await withThrowingTaskGroup(of: Int.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        try await ListClient.withConnection(socketPath: socket, name: "editor-\(client)") { editor in
                            var confirmed = 0
                            let own = try await editor.createList("List \(client)")
                            confirmed += 1
                            for edit in 0..<editsPerClient {
                                // Half the edits fight over one shared list, half go to the client's own.
                                let target: ListReference = edit.isMultiple(of: 2) ? .id(1) : .id(own.id)
                                do {
                                    _ = try await editor.addItem("item \(client)-\(edit)", to: target)
                                    confirmed += 1
                                } catch let error as ListClientError {
                                    guard case .denied = error else { throw error }
                                }
                                if edit == editsPerClient - 1 {
                                    _ = try await editor.removeItem("item \(client)-\(edit - 1)", from: .id(own.id))
                                    confirmed += 1
                                }
                            }
                            return confirmed
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            let events = try await withTimeLimit(60, waitingFor: "\(confirmed) events") {
                var events: [ListEvent] = []
                for await event in stream {
                    events.append(event)
                    if events.count == confirmed { break }
                }
                return events
            }
            return (confirmed, events, start)
        }

        var rawRevisions: [Int] = []
        while rawRevisions.count < confirmed {
            let note = try raw.readObject()
            rawRevisions.append(try #require((note["params"] as? [String: Any])?["revision"] as? Int))
        }
        #expect(confirmed == clients * (editsPerClient + 2))
        #expect(rawStart == 2)
        #expect(libraryStart == 2)
        #expect(rawRevisions == Array(3..<(3 + confirmed)))
        #expect(libraryEvents.map { $0.revision } == rawRevisions)

        // The final state agrees with what was notified.
        let lists = try setup.result("getLists")
        #expect(lists["revision"] as? Int == 2 + confirmed)
        let shared = try #require((lists["lists"] as? [[String: Any]])?.first { $0["id"] as? Int == 1 })
        #expect((shared["items"] as? [String])?.count == 1 + clients * ((editsPerClient + 1) / 2))
        // And nothing more was notified: the next is a marker's.
        try raw.expectNothingBeforeMarker(
            { _ = try setup.result("createList", ["name": "Fence"]) },
            isMarker: listNamed("Fence")
        )
    }
}
