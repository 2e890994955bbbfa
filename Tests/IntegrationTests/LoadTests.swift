import Foundation
import Glibc
import ListModel
import Synchronization
import Testing

/// 200 clients editing at once while 50 subscribers listen.
@Suite(.offThePool) struct LoadTests {
    /// An edit a writer got confirmed, with the revision its reply carried.
    private struct Confirmed {
        var revision: Int
        var edit: ListEdit
        /// The same edit as sent: list index, item and (for a replace) the new item.
        var list: Int
        var item: String
        var with: String?
    }

    /// What one subscriber heard: revisions in order, and a digest of every line as received.
    private struct Heard {
        var revisions: [Int] = []
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
    }

    @Test func twoHundredWritersAndFiftySubscribersAgreeOnEveryChange() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        let setup = try LineConnection(path: socket)
        // It is used again at the end, after the load: a connection quiet that long says hello,
        // or listd lets it go (`--idle-ms`).
        _ = try setup.result("hello", ["name": "setup"])
        let lists = 10
        for index in 0..<lists { _ = try setup.result("createList", ["name": "List \(index)"]) }
        let start = 10

        // Subscribers, on threads of their own, until they have heard `final` (set at the end).
        let final = Atomic<Int>(Int.max)
        let heard = Mutex<[Heard]>([])
        let subscribers = DispatchGroup()
        let subscribed = DispatchSemaphore(value: 0)
        for _ in 0..<50 {
            subscribers.enter()
            Thread.detachNewThread {
                defer { subscribers.leave() }
                var mine = Heard()
                guard let connection = try? LineConnection(path: socket), (try? connection.result("subscribe")) != nil
                else {
                    subscribed.signal()
                    return
                }
                subscribed.signal()
                while mine.revisions.last ?? start < final.load(ordering: .relaxed) {
                    guard let line = try? connection.readLine(timeout: 60) else { break }
                    for byte in line.utf8 { mine.digest = (mine.digest ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
                    // `"params":{"revision":N,` opens every change notification's params (listd
                    // writes keys in declaration order); cheaper than parsing 20,000 lines.
                    let marker = #""params":{"revision":"#
                    let tail = line.range(of: marker).map { line[$0.upperBound...] } ?? ""
                    mine.revisions.append(Int(tail.prefix { $0.isNumber }) ?? -1)
                }
                heard.withLock { $0.append(mine) }
            }
        }
        for _ in 0..<50 where subscribed.wait(timeout: .now() + 60) == .timedOut {
            throw TestFailure("a subscriber did not subscribe within 60 s")
        }

        // Writers: 100 random edits each over a small vocabulary, so that some are denied and
        // the lists stay small.
        let confirmed = Mutex<[Confirmed]>([])
        let writers = DispatchGroup()
        for writer in 0..<200 {
            writers.enter()
            Thread.detachNewThread {
                defer { writers.leave() }
                guard let connection = try? LineConnection(path: socket) else { return }
                var generator = SystemRandomNumberGenerator()
                for _ in 0..<100 {
                    let list = Int.random(in: 1...lists, using: &generator)
                    let item = "item \(Int.random(in: 0..<12, using: &generator))"
                    let other = "item \(Int.random(in: 0..<12, using: &generator))"
                    let (method, params, edit): (String, [String: Any], ListEdit)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0:
                        (method, params, edit) = (
                            "addItem", ["list": list, "item": item], .addItem(item, to: .id(list))
                        )
                    case 1:
                        (method, params, edit) = (
                            "removeItem", ["list": list, "item": item], .removeItem(item, from: .id(list))
                        )
                    default:
                        (method, params, edit) = (
                            "replaceItem", ["list": list, "item": item, "with": other],
                            .replaceItem(item, with: other, on: .id(list))
                        )
                    }
                    // A bound against a hang (the default 30 s of silence was passed in a full
                    // parallel run, and the edit, confirmed meanwhile, went unrecorded).
                    let reply: [String: Any]
                    do {
                        reply = try connection.call(method, params, timeout: 300)
                    } catch {
                        Issue.record("writer \(writer) lost its connection: \(error)")
                        return
                    }
                    if let result = reply["result"] as? [String: Any], let revision = result["revision"] as? Int,
                        item != other || method != "replaceItem"
                    {
                        let with = method == "replaceItem" ? other : nil
                        confirmed.withLock {
                            $0.append(Confirmed(revision: revision, edit: edit, list: list - 1, item: item, with: with))
                        }
                    }
                }
            }
        }
        // Bounds against a hang, not measures: a full parallel run of the debug build on two
        // cores has kept the writers busy past two minutes.
        try wait(for: writers, "200 writers' 100 edits each", seconds: 600)
        let lastRevision = try #require(try setup.result("getLists")["revision"] as? Int)
        final.store(lastRevision, ordering: .relaxed)
        try wait(for: subscribers, "50 subscribers to hear every change", seconds: 600)

        // Every subscriber heard the same lines, revisions start+1 … last with no gap.
        let everyone = heard.withLock { $0 }
        #expect(everyone.count == 50)
        #expect(Set(everyone.map(\.digest)).count == 1, "subscribers heard different lines")
        for subscriber in everyone {
            #expect(subscriber.revisions == Array((start + 1)...lastRevision))
        }

        // Replaying the confirmed edits in revision order gives listd's final state.
        let edits = confirmed.withLock { $0 }.sorted { $0.revision < $1.revision }
        #expect(edits.map(\.revision) == Array((start + 1)...lastRevision), "one confirmed edit per revision")
        var book = ListBook()
        let t = Timestamp(millisecondsSinceEpoch: 0)
        for index in 0..<lists {
            _ = try book.apply(.createList(name: "List \(index)", items: []), at: t, origin: .file)
        }
        for confirmedEdit in edits {
            let change = try book.apply(confirmedEdit.edit, at: t, origin: .file)
            #expect(change?.revision == confirmedEdit.revision)
        }
        let finalLists = try #require(try setup.result("getLists")["lists"] as? [[String: Any]])
        #expect(finalLists.map { $0["items"] as? [String] ?? [] } == book.lists.map { Array($0.items) })

        // And against the rules written out here, not ListBook's: each confirmed edit was allowed
        // on its list as it stood (an add of an item not there, a remove of one there, a replace
        // of one there by one not there), and applying them gives the lists listd serves.
        var model = Array(repeating: [String](), count: lists)
        var disallowed: [String] = []
        for edit in edits {
            var items = model[edit.list]
            let index = items.firstIndex(of: edit.item)
            switch (edit.with, edit.edit) {
            case (nil, .addItem):
                if index == nil { items.append(edit.item) } else { disallowed.append("#\(edit.revision) add") }
            case (nil, _):
                if let index { items.remove(at: index) } else { disallowed.append("#\(edit.revision) remove") }
            case (let with?, _):
                if let index, !items.contains(with) {
                    items[index] = with
                } else {
                    disallowed.append("#\(edit.revision) replace")
                }
            }
            model[edit.list] = items
        }
        #expect(disallowed.isEmpty, "confirmed edits the rules forbid: \(disallowed)")
        #expect(finalLists.map { $0["items"] as? [String] ?? [] } == model, "the lists are not what the edits give")

        // Memory stayed bounded: the most listd ever held.
        let status = try String(contentsOfFile: "/proc/\(daemon.pid!)/status", encoding: .utf8)
        let peakKiB =
            status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) }
            ?? 0
        #expect(peakKiB > 0 && peakKiB < 256 * 1024, "listd peaked at \(peakKiB) KiB")
    }
}
