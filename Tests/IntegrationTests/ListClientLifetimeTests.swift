// Issue 62, case 4: the Swift library over a connection's whole life — a long-lived connection
// opened and closed by its owner, a change sequence that tells a disconnect from a close, and a
// follower that resumes by itself across listd's restart without a gap or a repeat.
import ListClient
import Testing

@Suite(.offThePool) struct ListClientLifetimeTests {
    /// `connect` … `close`: the connection outlives any scope; `changes()` ends quietly on a
    /// close and throws on a disconnect; denials come as an enum with the sentence.
    @Test func aConnectionLivesUntilItIsClosed() async throws {
        let daemon = try Daemon.start()
        let client = try await ListClient.connect(socketPath: daemon.sandbox.socket, name: "model")
        let list = try await client.createList("Groceries", items: ["milk"], quantities: ["milk": "2 l"])
        #expect(list.quantities["milk"] == "2 l")
        #expect(try await client.addItem("milk", to: "Groceries", ifAbsent: true).revision == 1)
        do {
            _ = try await client.addItem("Milk", to: "Groceries")
            Issue.record("a duplicate was added")
        } catch .denied(let denial) {
            #expect(denial.reason == .itemExists && denial.message.hasPrefix("“milk” (2 l) is already on Groceries."))
            #expect(denial.existingItem == "milk")
        }
        do {
            _ = try await client.addItem("tea", to: "Groceries", ifRevision: 0)
            Issue.record("a stale ifRevision was taken")
        } catch .denied(let denial) {
            #expect(denial.reason == .conflict && denial.revision == 1, "the list's revision now, typed")
        }
        let changes = client.changes()
        _ = try await client.subscribe(origin: .mine, steps: [.add])
        _ = try await client.addItem("eggs", to: "Groceries")
        var heard: [Int] = []
        for try await event in changes {
            heard.append(event.revision)
            await client.close()
        }
        #expect(heard == [2], "a close ends the sequence without an error")
        await #expect(throws: ListClientError.self) { try await client.lists() }

        // A disconnect is an error the sequence throws.
        let other = try await ListClient.connect(socketPath: daemon.sandbox.socket, name: "other")
        let otherChanges = other.changes()
        daemon.kill()
        await #expect(throws: ListClientError.self) { for try await _ in otherChanges {} }
        await other.close()
    }

    /// `follow`: a snapshot, then every change; across a SIGKILL and restart of listd it says
    /// it was disconnected and resumes from the last revision it yielded: the changes made as it
    /// came back arrive once each, with no second snapshot.
    @Test func aFollowerResumesAcrossARestart() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let writer = try LineConnection(path: socket)
        _ = try writer.result("createList", ["name": "Groceries"])
        let updates = ListClient.follow(socketPath: socket, name: "fridge", retryDelay: .milliseconds(300))
        var iterator = updates.makeAsyncIterator()
        guard case .snapshot(let snapshot)? = try await iterator.next() else { throw TestFailure("no snapshot first") }
        #expect(snapshot.revision == 1)
        _ = try writer.result("addItem", ["list": "Groceries", "item": "milk"])
        guard case .change(let first)? = try await iterator.next() else { throw TestFailure("no change") }
        #expect(first.revision == 2)
        daemon.kill()
        guard case .disconnected? = try await iterator.next() else { throw TestFailure("the disconnect was not said") }
        try daemon.start()
        let again = try LineConnection(path: socket)
        _ = try again.result("addItem", ["list": "Groceries", "item": "eggs"])
        _ = try again.result("addItem", ["list": "Groceries", "item": "tea"])
        var revisions: [Int] = []
        while revisions.count < 2 {
            switch try await iterator.next() {
            case .change(let event)?: revisions.append(event.revision)
            case .disconnected?: continue  // listd was still starting
            case .snapshot?: throw TestFailure("resumed with a snapshot, not from revision 2")
            case nil: throw TestFailure("the follower ended")
            }
        }
        #expect(revisions == [3, 4], "each change once, in order, none missed")
    }

    /// A socket nobody listens on is said at once, not retried for ever.
    @Test func followingNoListdFails() async throws {
        let sandbox = try Sandbox()
        await #expect(throws: ListClientError.self) {
            for try await _ in ListClient.follow(socketPath: sandbox.socket) {}
        }
    }
}
