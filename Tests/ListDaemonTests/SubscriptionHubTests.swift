// SubscriptionHub on its own: publications handed over out of order (the threads that perform
// them race) reach a subscriber in revision order, and an announcement decided on a revision not
// yet published waits for it. The subscriber's outbox writes into an EmbeddedChannel.
import Foundation
import ListModel
import ListRPC
import NIOCore
import NIOEmbedded
import Testing

@testable import ListDaemon

@Suite struct SubscriptionHubTests {
    static let time = Timestamp(millisecondsSinceEpoch: 1_000)

    /// Three publications, one change each, made by applying `items` to a list in turn.
    private func publications(
        of items: [String]
    ) throws -> (start: ListBook, [([ListChange], [ChangeRecord], ListBook)]) {
        var book = ListBook()
        _ = try book.apply(.createList(name: "Groceries", items: []), at: Self.time, origin: .file)
        let start = book
        var made: [([ListChange], [ChangeRecord], ListBook)] = []
        for item in items {
            let before = try book.list(.id(1))
            let change = try #require(try book.apply(.addItem(item, to: .id(1)), at: Self.time, origin: .file))
            made.append(([change], [ChangeRecord(change, before: before)], book))
        }
        return (start, made)
    }

    /// Every line written to the subscriber so far: each notification's method and revision.
    private func heard(_ channel: EmbeddedChannel) throws -> [String] {
        channel.embeddedEventLoop.run()
        var lines: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            for line in String(buffer: buffer).split(separator: "\n") {
                let message = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                let params = message?["params"] as? [String: Any]
                let revision =
                    params?["revision"] as? Int ?? (params?["proposal"] as? [String: Any])?["revision"] as? Int
                lines.append("\(message?["method"] as? String ?? "?") \(revision.map(String.init) ?? "?")")
            }
        }
        return lines
    }

    @Test func publicationsHandedOverOutOfOrderAreHeardInRevisionOrder() throws {
        let (start, made) = try publications(of: ["milk", "eggs", "bread"])
        let hub = SubscriptionHub(book: start, history: ChangeHistory(base: start, limit: 100), instance: "i")
        let channel = EmbeddedChannel()
        let outbox = Outbox(channel: channel)
        _ = try hub.subscribe(connection: 1, outbox: outbox, events: Set(ListEventName.allCases), lists: nil)
        outbox.release()

        hub.publish(made[1].0, records: made[1].1, book: made[1].2)
        hub.publish(made[2].0, records: made[2].1, book: made[2].2)
        #expect(try heard(channel).isEmpty, "nothing is heard before the revision it follows")
        #expect(hub.book.revision == start.revision, "reads do not see a revision ahead of a missing one")

        hub.publish(made[0].0, records: made[0].1, book: made[0].2)
        let revisions = made.map { $0.2.revision }
        #expect(try heard(channel) == revisions.map { "didUpdateShoppingList \($0)" })
        #expect(hub.book == made[2].2)
        // The history replays them in order too.
        let late = EmbeddedChannel()
        let lateOutbox = Outbox(channel: late)
        _ = try hub.subscribe(
            connection: 2,
            outbox: lateOutbox,
            events: Set(ListEventName.allCases),
            lists: nil,
            since: start.revision
        )
        lateOutbox.release()
        #expect(try heard(late) == revisions.map { "didUpdateShoppingList \($0)" })
    }

    @Test func anAnnouncementWaitsForTheRevisionItWasDecidedOn() throws {
        let (start, made) = try publications(of: ["milk"])
        let hub = SubscriptionHub(book: start, history: ChangeHistory(base: start, limit: 100), instance: "i")
        let channel = EmbeddedChannel()
        let outbox = Outbox(channel: channel)
        _ = try hub.subscribe(connection: 1, outbox: outbox, events: Set(ListEventName.allCases), lists: nil)
        outbox.release()
        let denial = DeniedChangeParams(
            question: .shouldAdd,
            proposal: DelegateQuestionParams(
                .addItem("forbidden", to: .id(1)),
                list: made[0].2.lists.first,
                origin: .file,
                revision: made[0].2.revision
            ),
            denials: [DelegateDenial(delegate: "d", reason: "no")],
            timedOut: []
        )

        hub.announce(.didDenyChange, denial, listID: 1, after: made[0].2.revision)
        #expect(try heard(channel).isEmpty, "the denial waits for the change it was decided after")
        hub.publish(made[0].0, records: made[0].1, book: made[0].2)
        #expect(
            try heard(channel) == [
                "didUpdateShoppingList \(made[0].2.revision)", "didDenyChange \(made[0].2.revision)",
            ]
        )
    }
}
