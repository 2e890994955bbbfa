// What the owner's loop guarantees, over the socket of the real listd: a confirmed change is seen
// by every later read on any connection (read your writes), and a 10,000-line save is taken in
// whole, with a subscriber that keeps reading still connected at the end.
import Foundation
import Glibc
import Synchronization
import Testing

@Suite struct OwnerLoopTests {
    /// Once a client has its confirm, a read on another connection (an old one, or one opened
    /// afterwards) shows the change, while another client edits all along.
    @Test func aConfirmedChangeIsSeenByEveryLaterReadOnAnyConnection() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let editor = try LineConnection(path: socket)
        let reader = try LineConnection(path: socket)
        _ = try editor.result("createList", ["name": "Groceries"])
        _ = try editor.result("createList", ["name": "Noise"])

        // Another client edits all along, so every pass has more than the one edit in it.
        let stop = Atomic<Bool>(false)
        let noise = DispatchGroup()
        noise.enter()
        Thread.detachNewThread {
            defer { noise.leave() }
            guard let connection = try? LineConnection(path: socket) else { return }
            var round = 0
            while !stop.load(ordering: .relaxed) {
                round += 1
                _ = try? connection.call(round % 2 == 1 ? "addItem" : "removeItem", ["list": "Noise", "item": "n"])
            }
        }
        defer {
            stop.store(true, ordering: .relaxed)
            noise.wait()
        }

        for round in 1...300 {
            let item = "item \(round)"
            let confirmed = try editor.result("addItem", ["list": "Groceries", "item": item])
            let revision = try #require(confirmed["revision"] as? Int)
            let read = round % 25 == 0 ? try LineConnection(path: socket) : reader
            let list = try read.result("getList", ["list": "Groceries"])
            let items = list["items"] as? [String] ?? []
            try #require(
                items.contains(item),
                "round \(round): “\(item)” was confirmed at revision \(revision); a read after it shows \(items.suffix(3))"
            )
            let lists = try read.result("getLists")
            try #require(
                (lists["revision"] as? Int ?? 0) >= revision,
                "round \(round): getLists is at revision \(lists["revision"] ?? "none"), behind the confirm's \(revision)"
            )
        }
    }

    /// A person pastes 10,000 lines into the list file: every one is taken in and `getList` shows
    /// them (asked all along: the owner's loop keeps answering while it takes the save in).
    @Test func aTenThousandLineSaveIsTakenInWhole() throws {
        try paste(10_000, subscriber: false)
    }

    /// A save of 3,000 lines makes 3,000 notifications, each with the whole list: about 50 MB, six
    /// times the limit of bytes waiting for one client. A subscriber that keeps reading hears
    /// every change and stays connected (it lags, and is served from the history as it reads).
    @Test func aSubscriberThatReadsStaysConnectedThroughABigSave() throws {
        try paste(3_000, subscriber: true)
    }

    private func paste(_ lines: Int, subscriber listens: Bool) throws {
        let daemon = try Daemon.start()
        let sandbox = daemon.sandbox
        let client = try LineConnection(path: sandbox.socket)
        let created = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        let start = try #require(created["revision"] as? Int)
        try sandbox.read { $0.contains("- milk") }

        // The subscriber reads on a thread of its own, as fast as it can, until it has heard
        // the last of the save's changes.
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe", listens ? nil : ["events": ["didRejectFileEdit"]])
        let heard = Mutex<(last: Int, count: Int, ended: Bool)>((start, 0, false))
        let listening = DispatchGroup()
        listening.enter()
        Thread.detachNewThread {
            defer { listening.leave() }
            while listens, heard.withLock({ $0.last }) < start + lines {
                guard let line = try? subscriber.readLine(timeout: 60) else {
                    heard.withLock { $0.ended = true }
                    return
                }
                let marker = #""params":{"revision":"#
                let tail = line.range(of: marker).map { line[$0.upperBound...] } ?? ""
                if let revision = Int(tail.prefix { $0.isNumber }) {
                    heard.withLock {
                        $0.last = revision
                        $0.count += 1
                    }
                }
            }
        }

        let pasted = (1...lines).map { "- item \($0)" }.joined(separator: "\n")
        let prepared = sandbox.path + "/pasted.md"
        try "# Groceries\n\n- milk\n\(pasted)\n".write(toFile: prepared, atomically: false, encoding: .utf8)
        try shell(in: sandbox, "cp pasted.md lists.md")

        let deadline = ContinuousClock.now + .seconds(120)
        var count = 0
        while ContinuousClock.now < deadline {
            count = (try client.result("getList", ["list": "Groceries"])["items"] as? [Any])?.count ?? 0
            if count == lines + 1 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(count == lines + 1, "getList shows \(count) items, not \(lines + 1), 120 s after the save")
        try wait(for: listening, "the subscriber to hear the save's last change")
        let (last, notifications, ended) = heard.withLock { $0 }
        if listens {
            #expect(!ended, "the subscriber was disconnected after \(notifications) notifications")
            #expect(last == start + lines && notifications == lines, "heard \(notifications), up to revision \(last)")
        }
        // Still connected: it is answered.
        #expect(try subscriber.result("getLists")["revision"] as? Int == start + lines)
    }
}
