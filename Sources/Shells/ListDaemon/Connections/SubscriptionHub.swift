import Foundation
import ListCore
import ListModel
import ListRPC
import ListRPCTransport
import NIOCore

/// Who hears what: each subscription, and the recent changes a subscription can resume from,
/// told from the core's committed lists and history (read through `bookSource` and
/// `historySource`: the hub holds neither). Owned by the owner's loop (`ListOwner`): publications arrive in revision
/// order, one pass after another, so a subscriber's snapshot (or replayed history) and the
/// notifications after it neither miss nor repeat a revision, with no lock and no reordering.
///
/// A batch comes as records (what changed, not the lists): the full changes subscribers are told
/// of are rebuilt by redoing them, each encoded once and the same bytes sent to every subscriber
/// that is keeping up. A subscriber whose outbox holds more than half its limit **lags**: it is
/// no longer sent live changes but served from the kept history by a cursor, as its outbox
/// drains, until it catches up (sent the lines already made for the latest changes,
/// `RecentLines`, so pages that reconnect together do not each cost a redo and an encoding);
/// so a big save (10,000 changes, each with the whole list) neither buffers gigabytes nor
/// disconnects a subscriber that reads. One that lags, or owes more than a quarter of its limit,
/// and whose socket takes nothing for `stallGrace` is disconnected. When each of these happens is
/// `ConnectionRules`' to say.
final class SubscriptionHub: @unchecked Sendable {
    /// Where a lagging subscriber is: the last revision it was sent, the lists at that revision,
    /// and the announcements made since (sent once it reaches the revision they followed).
    struct Lag {
        var cursor: Revision
        /// nil while the lines it was sent were made already (`recentLines`): rebuilt from the
        /// history when one is not.
        var book: ListBook?
        var announcements: [(after: Revision, line: ByteBuffer, name: ListEventName, listID: ListID?)] = []
    }

    /// A look due at a subscriber that is behind: the bytes its socket had taken when it was
    /// scheduled, and which look it is (a subscription replaced meanwhile has its own).
    struct StallWatch {
        var written: Int
        var look: UInt64
    }

    /// What a subscriber wants to hear.
    struct Subscription {
        var outbox: Outbox
        /// Told changes as `BriefChangeParams` (no items, steps with places).
        var brief: Bool
        var events: Set<ListEventName>
        /// Which changes, by whom and what they did (announcements are not filtered).
        var filter: ChangeFilter?
        /// nil: every list.
        var lists: Set<ListID>?
        /// Set while it is served from the history.
        var lag: Lag?
        /// Set while a stall check is due.
        var stallWatch: StallWatch?

        func wants(_ event: ListEventName, _ listID: ListID?) -> Bool {
            guard events.contains(event) else { return false }
            guard let listID, let lists else { return true }
            return lists.contains(listID)
        }

        /// Whether it is told `change` (whose list is `listID`).
        func wants(_ event: ListEventName, _ listID: ListID, change: ListChange) -> Bool {
            guard wants(event, listID) else { return false }
            return filter?.admits(origin: change.origin, steps: change.steps) ?? true
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
    /// The committed lists: the core's (`ListCore.durable`), held once for listd, read on the loop.
    var bookSource: () -> ListBook
    var book: ListBook { bookSource() }
    /// The kept history: the core's (`ListCore.history`), one for listd, read on the loop.
    var historySource: () -> ChangeHistory
    private var history: ChangeHistory { historySource() }
    private var subscribers: [Int: Subscription] = [:]
    /// The latest changes' lines, made once for the live and the lagging alike.
    private var recentLines = RecentLines()
    /// Numbers each stall check scheduled.
    private var looks: UInt64 = 0
    /// What other threads read of the owner's state (`PublishedStatus`: the status line's parts).
    let published: PublishedStatus
    var instance: String { published.instance }

    init(book: ListBook, history: ChangeHistory, published: PublishedStatus, loop: any EventLoop) {
        bookSource = { book }
        historySource = { history }
        self.published = published
        self.loop = loop
    }

    /// The committed lists as a snapshot (`getLists`).
    var snapshot: ListsSnapshot { ListsSnapshot(revision: book.revision, lists: book.lists, instance: instance) }

    var subscriberCount: Int { subscribers.count }

    // MARK: Subscriptions

    /// Registers (or replaces) a connection's subscription and returns the snapshot it starts
    /// from; with `since`, first replays to `outbox` every kept change after that revision that
    /// the subscription covers, rebuilt from the history, and the live ones follow without a gap.
    func subscribe(
        connection: Int,
        outbox: Outbox,
        brief: Bool = false,
        events: Set<ListEventName>,
        filter: ChangeFilter? = nil,
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
        let filter = filter.flatMap { $0.passesEverything ? nil : $0 }
        var subscription = Subscription(outbox: outbox, brief: brief, events: events, filter: filter, lists: ids)
        if let since {
            let revision = book.revision
            if let expectedInstance, expectedInstance != instance {
                throw .instanceChanged(expected: expectedInstance, instance: instance, revision: revision)
            }
            guard history.covers(since: since), let start = try? history.book(at: since) else {
                throw .historyCompacted(since: since, revision: revision, oldestKept: history.oldest, instance: instance)
            }
            // Replayed from the history by the cursor, as a lagging subscriber is.
            if since < revision { subscription.lag = Lag(cursor: since, book: start) }
        }
        subscribers[connection] = subscription
        countSubscribers()
        if subscription.lag != nil { catchUp(connection) }
        watchForStall(connection)
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

    // MARK: History

    /// What the kept history says of an edit made away from listd: the change that carried its
    /// id (a resend), and the lists at the revision it was made on (nil: older than the history).
    func provenance(_ said: EditProvenance) -> (appliedAt: Revision?, base: ListBook?) {
        (said.editId.flatMap { history.revision(ofEdit: $0) }, said.basedOn.flatMap { try? history.book(at: $0) })
    }

    /// `getHistory`: the kept changes after `since` (of one list when `list` is given, followed
    /// through renames), the newest `limit` of them, oldest first.
    func history(list: ListReference?, since: Revision?, limit: Int) throws(SubscribeFailure) -> GetHistory.Result {
        loop.assertInEventLoop()
        let revision = book.revision
        let since = since ?? history.base.revision
        guard history.covers(since: since) else {
            throw .historyCompacted(since: since, revision: revision, oldestKept: history.oldest, instance: instance)
        }
        var id: ListID?
        switch list {
        case nil: break
        case .id(let listID)?: id = listID
        case .name(let name)?:
            guard let found = history.listID(named: name, current: book) else {
                throw .denied(.listNotFound(.name(name)))
            }
            id = found
        }
        guard let changes = try? history.summaries(after: since) else {
            throw .historyCompacted(since: since, revision: revision, oldestKept: history.oldest, instance: instance)
        }
        let matching = changes.filter { id == nil || $0.list.id == id }
        return GetHistory.Result(revision: revision, changes: matching.suffix(limit).map(HistoryEntry.init))
    }

    /// `undo`: the edit that undoes change `revision` — without one, the change a person means
    /// (made by `author`, when given: see `ChangeHistory.latestToUndo`) — and that change.
    func undo(_ revision: Revision?, by author: ChangeOrigin?) throws(ListError) -> (edit: ListEdit, change: ListChange) {
        loop.assertInEventLoop()
        if let revision { return try history.undo(revision) }
        let latest = history.latestToUndo { origin in author.map { $0.isSameAuthor(as: origin) } ?? true }
        guard let latest else { throw .nothingToUndo(yours: author != nil) }
        return try history.undo(latest)
    }

    // MARK: Fan-out

    /// These changes are durable, made on the committed lists `before` (the core's lists are
    /// the ones after them already): told to every subscriber that wants them. `changes` are
    /// without their lists' items (`ListChange.withoutItems`); the full ones are rebuilt from
    /// `records` when someone listens.
    func publish(_ changes: [ListChange], records: [ChangeRecord], from before: ListBook) {
        loop.assertInEventLoop()
        var running = before
        if let lastChange = changes.last { published.update { $0.lastChange = lastChange } }
        defer { watchEveryoneForStall() }
        for (change, record) in zip(changes, records) {
            guard subscribers.values.contains(where: { $0.lag == nil }) else { return }
            let event = ListEventName(change.kind)
            // Those whose outbox is half full from now on lag, from the lists before this change.
            for (connection, subscription) in subscribers
            where subscription.lag == nil && subscription.outbox.lags {
                startLagging(connection, at: record.revision - 1, book: running)
            }
            let listening = subscribers.values.filter { $0.lag == nil && $0.wants(event, change.list.id, change: change) }
            // Brief lines need no list: made from the record.
            if listening.contains(where: \.brief), let line = try? Self.briefLine(change, record) {
                for subscription in listening where subscription.brief { subscription.outbox.sendNotification(line) }
                recentLines.keep(line, brief: true, revision: record.revision, event: event, listID: change.list.id, instance: instance)
            }
            // The lists are followed while anyone is live (a lag starts from them).
            guard let full = try? running.redo(record) else { continue }
            if listening.contains(where: { !$0.brief }), let line = try? Self.notificationLine(full) {
                for subscription in listening where !subscription.brief { subscription.outbox.sendNotification(line) }
                recentLines.keep(line, brief: false, revision: record.revision, event: event, listID: full.list.id, instance: instance)
            }
        }
    }

    /// Tells subscribers that want `name` (about `listID`, or about no list); a lagging one once
    /// it has reached the revision this follows.
    func announce(_ name: ListEventName, _ params: some Encodable & Sendable, listID: ListID?) {
        loop.assertInEventLoop()
        guard subscribers.values.contains(where: { $0.wants(name, listID) }),
            let line = try? RPCOutgoing.request(id: nil, method: name.rawValue, params: params)
        else { return }
        for (connection, subscription) in subscribers where subscription.wants(name, listID) {
            if subscription.lag != nil {
                subscribers[connection]?.lag?.announcements.append((book.revision, line, name, listID))
            } else {
                subscription.outbox.sendNotification(line)
            }
        }
        watchEveryoneForStall()
    }

    // MARK: Lagging subscribers

    private func startLagging(_ connection: Int, at cursor: Revision, book: ListBook) {
        guard subscribers[connection] != nil else { return }
        subscribers[connection]?.lag = Lag(cursor: cursor, book: book)
        watchForStall(connection)
        resumeWhenDrained(connection)
    }

    private func resumeWhenDrained(_ connection: Int) {
        guard let outbox = subscribers[connection]?.outbox else { return }
        outbox.whenDrained { [weak self] in self?.catchUp(connection) }
    }

    private func watchEveryoneForStall() {
        for connection in subscribers.keys { watchForStall(connection) }
    }

    /// Schedules a look at a subscriber that is behind (`ConnectionRules.isBehind`), unless one
    /// is due already: one whose socket took nothing since is not reading
    /// (`ConnectionRules.stallCheck`).
    private func watchForStall(_ connection: Int) {
        guard let subscription = subscribers[connection], subscription.stallWatch == nil else { return }
        let outbox = subscription.outbox
        guard outbox.rules.isBehind(owed: outbox.queuedBytes, lagging: subscription.lag != nil) else { return }
        looks &+= 1
        subscribers[connection]?.stallWatch = StallWatch(written: outbox.writtenBytes, look: looks)
        scheduleStallCheck(connection, look: looks, after: outbox.rules.limits.stallGrace)
    }

    private func scheduleStallCheck(_ connection: Int, look: UInt64, after grace: Duration) {
        loop.scheduleTask(in: TimeAmount(grace)) { [weak self] in
            guard let self, let subscription = subscribers[connection], let watch = subscription.stallWatch,
                watch.look == look
            else { return }
            let outbox = subscription.outbox
            guard outbox.rules.isBehind(owed: outbox.queuedBytes, lagging: subscription.lag != nil) else {
                subscribers[connection]?.stallWatch = nil  // caught up: watched again once it owes
                return
            }
            switch outbox.rules.stallCheck(writtenBefore: watch.written, writtenNow: outbox.writtenBytes) {
            case .disconnect:
                outbox.giveUp()
            case .lookAgain(let grace):
                subscribers[connection]?.stallWatch?.written = outbox.writtenBytes
                scheduleStallCheck(connection, look: look, after: grace)
            }
        }
    }

    /// Sends a lagging subscriber its next changes from the history, until its outbox is half
    /// full again (then it goes on once it drains) or it has caught up (then it is live again).
    private func catchUp(_ connection: Int) {
        loop.assertInEventLoop()
        // Taken out while it is served: its lists are changed in place, with no other copy.
        guard var subscription = subscribers.removeValue(forKey: connection) else { return }
        guard var lag = subscription.lag else {
            subscribers[connection] = subscription
            return
        }
        subscription.lag = nil
        // Read once: the history is the core's, and each read of it is a copy.
        let history = self.history
        var outcome: (waiting: Bool, behind: Bool) = (false, false)
        while lag.cursor < book.revision {
            if subscription.outbox.lags {
                outcome.waiting = true
                break
            }
            guard let record = history.record(after: lag.cursor) else {
                // Behind the oldest change kept: it cannot be served without a gap.
                outcome.behind = true
                break
            }
            // A filtered subscriber is told by the change itself (the lines kept do not say
            // who made it or what it did).
            if subscription.filter == nil, let kept = recentLines.entry(record.revision, instance: instance),
                let line = subscription.brief ? kept.brief : kept.whole
            {
                // Made already (live, or for another subscriber catching up): sent as it is,
                // without redoing the lists for it.
                lag.book = nil
                lag.cursor = record.revision
                if subscription.wants(kept.event, kept.listID) { subscription.outbox.sendNotification(line) }
            } else {
                if lag.book == nil { lag.book = try? history.book(at: lag.cursor) }
                guard let full = try? lag.book?.redo(record) else {
                    outcome.behind = true
                    break
                }
                lag.cursor = record.revision
                let event = ListEventName(full.kind)
                if subscription.wants(event, full.list.id, change: full),
                    let line = try? subscription.brief ? Self.briefLine(full, record) : Self.notificationLine(full)
                {
                    subscription.outbox.sendNotification(line)
                    recentLines.keep(line, brief: subscription.brief, revision: record.revision, event: event, listID: full.list.id, instance: instance)
                }
            }
            while let next = lag.announcements.first, next.after <= lag.cursor {
                lag.announcements.removeFirst()
                subscription.outbox.sendNotification(next.line)
            }
        }
        if outcome.waiting || outcome.behind {
            subscription.lag = lag
        } else {
            for announcement in lag.announcements { subscription.outbox.sendNotification(announcement.line) }
        }
        subscribers[connection] = subscription
        if outcome.behind {
            subscription.outbox.giveUp()
        } else if outcome.waiting {
            resumeWhenDrained(connection)
        }
        watchForStall(connection)
    }

    /// A change as the notification line brief subscribers get.
    static func briefLine(_ change: ListChange, _ record: ChangeRecord) throws -> ByteBuffer {
        try RPCOutgoing.request(id: nil, method: ListEventName(change.kind).rawValue, params: BriefChangeParams(change, record: record))
    }

    /// A change as the notification line subscribers get.
    static func notificationLine(_ change: ListChange) throws -> ByteBuffer {
        try RPCOutgoing.request(id: nil, method: ListEventName(change.kind).rawValue, params: ListChangeParams(change))
    }
}
