import Foundation
import ListModel
import ListRPC
import NIOCore

/// Who hears what: the committed lists, each subscription, and the recent changes a subscription
/// can resume from. Owned by the owner's loop (`ListOwner`): publications arrive in revision
/// order, one pass after another, so a subscriber's snapshot (or replayed history) and the
/// notifications after it neither miss nor repeat a revision, with no lock and no reordering.
final class SubscriptionHub: @unchecked Sendable {
    /// What a subscriber wants to hear.
    struct Subscription: Sendable {
        var outbox: Outbox
        var events: Set<ListEventName>
        /// nil: every list.
        var lists: Set<ListID>?

        func wants(_ event: ListEventName, _ listID: ListID?) -> Bool {
            guard events.contains(event) else { return false }
            guard let listID, let lists else { return true }
            return lists.contains(listID)
        }
    }

    /// Why a subscription was refused.
    enum SubscribeFailure: Error, Sendable {
        /// A list named in `lists` does not exist.
        case denied(ListError)
        /// The changes after `since` are no longer all kept (or `since` is not a revision of this
        /// state); resync from a snapshot.
        case historyCompacted(since: Revision, revision: Revision, oldestKept: Revision?, instance: String)
        /// The client's revision belongs to another state (another list file, say).
        case instanceChanged(expected: String, instance: String, revision: Revision)
    }

    private let loop: any EventLoop
    private(set) var book: ListBook
    private var history: ChangeHistory
    private var subscribers: [Int: Subscription] = [:]
    /// What other threads read (`PublishedLists`), stored before any confirm is handed out.
    let published: PublishedLists
    var instance: String { published.instance }

    init(book: ListBook, history: ChangeHistory, published: PublishedLists, loop: any EventLoop) {
        self.book = book
        self.history = history
        self.published = published
        self.loop = loop
    }

    var subscriberCount: Int { subscribers.count }

    // MARK: Subscriptions

    /// Registers (or replaces) a connection's subscription and returns the snapshot it starts
    /// from; with `since`, first replays to `outbox` every kept change after that revision that
    /// the subscription covers, rebuilt from the history, and the live ones follow without a gap.
    func subscribe(
        connection: Int,
        outbox: Outbox,
        events: Set<ListEventName>,
        lists: [ListReference]?,
        since: Revision? = nil,
        expectedInstance: String? = nil
    ) throws(SubscribeFailure) -> ListsSnapshot {
        loop.assertInEventLoop()
        let ids: Set<ListID>?
        do throws(ListError) {
            ids = try lists.map { references throws(ListError) in
                Set(try references.map { reference throws(ListError) in try book.list(reference).id })
            }
        } catch {
            throw .denied(error)
        }
        let subscription = Subscription(outbox: outbox, events: events, lists: ids)
        if let since {
            let revision = book.revision
            if let expectedInstance, expectedInstance != instance {
                throw .instanceChanged(expected: expectedInstance, instance: instance, revision: revision)
            }
            guard history.covers(since: since), let changes = try? history.changes(after: since) else {
                throw .historyCompacted(since: since, revision: revision, oldestKept: history.oldest, instance: instance)
            }
            for change in changes where subscription.wants(ListEventName(change.kind), change.list.id) {
                if let line = try? Self.notificationLine(change) { outbox.sendNotification(line) }
            }
        }
        subscribers[connection] = subscription
        countSubscribers()
        return ListsSnapshot(revision: book.revision, lists: book.lists, instance: instance)
    }

    func unsubscribe(connection: Int) {
        loop.assertInEventLoop()
        guard subscribers.removeValue(forKey: connection) != nil else { return }
        countSubscribers()
    }

    private func countSubscribers() {
        let count = subscribers.count
        published.update { $0.subscribers = count }
    }

    // MARK: Fan-out

    /// These changes are durable and the committed lists are `book`: kept, published for reads,
    /// and told to every subscriber that wants them (one encoding per change, the same bytes for
    /// all).
    func publish(_ changes: [ListChange], records: [ChangeRecord], book: ListBook) {
        loop.assertInEventLoop()
        self.book = book
        let lastChange = changes.last
        published.update { view in
            view.book = book
            if let lastChange { view.lastChange = lastChange }
        }
        for (change, record) in zip(changes, records) {
            // The history redoes its records; a record that does not fit starts it afresh.
            do throws(RedoError) {
                try history.append(record)
            } catch {
                history = ChangeHistory(base: book, limit: history.limit)
            }
            let event = ListEventName(change.kind)
            guard subscribers.values.contains(where: { $0.wants(event, change.list.id) }),
                let line = try? Self.notificationLine(change)
            else { continue }
            send(line, event, change.list.id)
        }
    }

    /// Tells subscribers that want `name` (about `listID`, or about no list).
    func announce(_ name: ListEventName, _ params: some Encodable & Sendable, listID: ListID?) {
        loop.assertInEventLoop()
        guard subscribers.values.contains(where: { $0.wants(name, listID) }),
            var bytes = try? RPCEncoding.requestBytes(id: nil, method: name.rawValue, params: params)
        else { return }
        bytes.append(UInt8(ascii: "\n"))
        send(ByteBuffer(bytes: bytes), name, listID)
    }

    private func send(_ line: ByteBuffer, _ name: ListEventName, _ listID: ListID?) {
        for subscription in subscribers.values where subscription.wants(name, listID) {
            subscription.outbox.sendNotification(line)
        }
    }

    /// A change as the notification line subscribers get.
    static func notificationLine(_ change: ListChange) throws -> ByteBuffer {
        var bytes = try RPCEncoding.requestBytes(
            id: nil,
            method: ListEventName(change.kind).rawValue,
            params: ListChangeParams(change)
        )
        bytes.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: bytes)
    }
}
