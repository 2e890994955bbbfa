import Foundation
import ListModel
import ListRPC
import NIOCore
import Synchronization

/// Who hears what: the committed lists as reads and subscribers see them, each subscription, and
/// the recent changes a subscription can resume from. Publishing and subscribing take one lock,
/// so a subscriber's snapshot (or replayed history) and the notifications after it neither miss
/// nor repeat a revision.
final class SubscriptionHub: Sendable {
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

    private struct State {
        var book: ListBook
        var history: ChangeHistory
        var subscribers: [Int: Subscription] = [:]
        var lastChange: ListChange?
        /// Publications handed over before the one they follow (the threads that perform them
        /// race): kept until it comes, so subscribers hear revisions in order.
        var early: [Publication] = []
        /// Announcements about lists of a revision not yet published, sent once it is.
        var waiting: [(after: Revision, name: ListEventName, line: ByteBuffer, listID: ListID?)] = []
    }
    private struct Publication {
        var changes: [ListChange]
        var records: [ChangeRecord]
        var book: ListBook
        /// The revision it follows.
        var follows: Revision { book.revision - changes.count }
    }
    private let state: Mutex<State>
    /// Names this state (see `PersistedState.instance`).
    let instance: String

    init(book: ListBook, history: ChangeHistory, instance: String) {
        state = Mutex(State(book: book, history: history))
        self.instance = instance
    }

    // MARK: Reads

    var book: ListBook { state.withLock { $0.book } }

    var snapshot: ListsSnapshot {
        state.withLock { ListsSnapshot(revision: $0.book.revision, lists: $0.book.lists, instance: instance) }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }
    var lastChange: ListChange? { state.withLock { $0.lastChange } }

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
        try state.withLock { state throws(SubscribeFailure) in
            let ids: Set<ListID>?
            do throws(ListError) {
                ids = try lists.map { references throws(ListError) in
                    Set(try references.map { reference throws(ListError) in try state.book.list(reference).id })
                }
            } catch {
                throw .denied(error)
            }
            let subscription = Subscription(outbox: outbox, events: events, lists: ids)
            if let since {
                let revision = state.book.revision
                if let expectedInstance, expectedInstance != instance {
                    throw .instanceChanged(expected: expectedInstance, instance: instance, revision: revision)
                }
                guard state.history.covers(since: since), let changes = try? state.history.changes(after: since) else {
                    throw .historyCompacted(
                        since: since,
                        revision: revision,
                        oldestKept: state.history.oldest,
                        instance: instance
                    )
                }
                for change in changes where subscription.wants(ListEventName(change.kind), change.list.id) {
                    if let line = try? Self.notificationLine(change) { outbox.sendNotification(line) }
                }
            }
            state.subscribers[connection] = subscription
            return ListsSnapshot(revision: state.book.revision, lists: state.book.lists, instance: instance)
        }
    }

    func unsubscribe(connection: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: connection) }
    }

    // MARK: Fan-out

    /// These changes are durable and the committed lists are `book`: kept, and told to every
    /// subscriber that wants them (one encoding per change, the same bytes for all).
    func publish(_ changes: [ListChange], records: [ChangeRecord], book: ListBook) {
        state.withLock { state in
            state.early.append(Publication(changes: changes, records: records, book: book))
            while let next = state.early.firstIndex(where: { $0.follows == state.book.revision }) {
                Self.publish(state.early.remove(at: next), in: &state)
            }
            while let ready = state.waiting.firstIndex(where: { $0.after <= state.book.revision }) {
                let announcement = state.waiting.remove(at: ready)
                Self.send(announcement.line, announcement.name, announcement.listID, in: state)
            }
        }
    }

    private static func publish(_ publication: Publication, in state: inout State) {
        state.book = publication.book
        for (change, record) in zip(publication.changes, publication.records) {
            // The history redoes its records; a record that does not fit starts it afresh.
            do throws(RedoError) {
                try state.history.append(record)
            } catch {
                state.history = ChangeHistory(base: publication.book, limit: state.history.limit)
            }
            let event = ListEventName(change.kind)
            guard state.subscribers.values.contains(where: { $0.wants(event, change.list.id) }),
                let line = try? notificationLine(change)
            else { continue }
            send(line, event, change.list.id, in: state)
        }
        if let last = publication.changes.last { state.lastChange = last }
    }

    /// Tells subscribers that want `name` (about `listID`, or about no list), once the changes up
    /// to `after` (those it was decided on) have been published.
    func announce(_ name: ListEventName, _ params: some Encodable & Sendable, listID: ListID?, after: Revision) {
        state.withLock { state in
            guard state.subscribers.values.contains(where: { $0.wants(name, listID) }),
                var bytes = try? RPCEncoding.requestBytes(id: nil, method: name.rawValue, params: params)
            else { return }
            bytes.append(UInt8(ascii: "\n"))
            let line = ByteBuffer(bytes: bytes)
            if after <= state.book.revision {
                Self.send(line, name, listID, in: state)
            } else {
                state.waiting.append((after, name, line, listID))
            }
        }
    }

    private static func send(_ line: ByteBuffer, _ name: ListEventName, _ listID: ListID?, in state: State) {
        for subscription in state.subscribers.values where subscription.wants(name, listID) {
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
