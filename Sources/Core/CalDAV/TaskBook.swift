// Which task is which: a persistent map from each list's items to the UIDs and hrefs CalDAV
// clients know them by, kept from listd's change stream — so a renamed item keeps its UID, a
// removed one leaves a tombstone that a sync reports, and a client's DUE or VALARM stays with
// its item. Pure: the shell feeds it each change and saves it; reads are answered from it alone.
import ListModel

/// When a task last changed, in the order sync tokens compare: listd's revision, then a step
/// for changes listd-web alone makes at that revision (a PUT that changed only what listd does
/// not model, a DUE say).
public struct SyncStamp: Sendable, Hashable, Comparable, Codable {
    public var revision: Revision
    public var step: Int

    public init(revision: Revision, step: Int = 0) {
        self.revision = revision
        self.step = step
    }

    public static func < (left: SyncStamp, right: SyncStamp) -> Bool {
        (left.revision, left.step) < (right.revision, right.step)
    }

    /// `12` or `12.3`: in ETags and sync tokens.
    public var text: String { step == 0 ? String(revision) : "\(revision).\(step)" }

    public init?(text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let revision = Int(parts[0]), revision >= 0 else { return nil }
        let step = parts.count == 2 ? Int(parts[1]) : 0
        guard let step, step >= 0 else { return nil }
        self.init(revision: revision, step: step)
    }
}

/// One item's task.
public struct TaskEntry: Sendable, Hashable, Codable {
    public var uid: String
    /// The resource's name in its collection (`…/lists/3/NAME`), as first PUT or made here.
    public var href: String
    /// When its calendar data last changed: its ETag.
    public var stamp: SyncStamp
    /// The same, as iCalendar's DTSTAMP and LAST-MODIFIED give it.
    public var changed: String
    public var item: TaskItem
    public var kept: KeptTaskData

    /// The ETag, quoted as HTTP writes it.
    public var etag: String { "\"\(stamp.text)\"" }
    /// The calendar object.
    public var calendarData: String { TaskRendering.calendar(of: item, uid: uid, changed: changed, kept: kept) }
    /// The same, as a component.
    public var calendar: ICalendarComponent { TaskRendering.component(of: item, uid: uid, changed: changed, kept: kept) }
}

/// One list's tasks.
public struct ListTasks: Sendable, Hashable, Codable {
    public var name: String
    /// By the item's key (`ListText.key`).
    public var entries: [String: TaskEntry] = [:]
    /// The keys in list order.
    public var order: [String] = []
    /// href → key.
    public var hrefs: [String: String] = [:]
    /// hrefs of tasks gone, and when they went: a sync after that reports them gone.
    public var tombstones: [String: SyncStamp] = [:]
    /// The collection's last change (its CTag and sync token).
    public var stamp: SyncStamp
    /// A sync from before this cannot be answered (tombstones older were forgotten, or the list
    /// was not known yet): `valid-sync-token`.
    public var horizon: SyncStamp

    public init(name: String, stamp: SyncStamp) {
        self.name = name
        self.stamp = stamp
        self.horizon = stamp
    }

    public func entry(href: String) -> TaskEntry? { hrefs[href].flatMap { entries[$0] } }

    /// The tasks in list order.
    public var ordered: [TaskEntry] { order.compactMap { entries[$0] } }

    /// What changed after `since`: the tasks changed, and the hrefs gone. nil: `since` cannot be
    /// answered (before the horizon, or after the collection's last change).
    public func changes(since: SyncStamp) -> (changed: [TaskEntry], gone: [String])? {
        guard since >= horizon, since <= stamp else { return nil }
        let changed = ordered.filter { $0.stamp > since }
        let gone = tombstones.filter { $0.value > since }.keys.sorted()
        return (changed, gone)
    }
}

/// Every list's tasks, and how far listd's changes were followed.
public struct TaskBook: Sendable, Hashable, Codable {
    /// listd's instance the revisions are of.
    public var instance: String?
    /// The last change applied.
    public var current: SyncStamp
    public var lists: [ListID: ListTasks]
    /// Tombstones kept per list; beyond, the oldest are forgotten and the horizon moves up.
    public var tombstoneLimit: Int

    public init(tombstoneLimit: Int = 10_000) {
        instance = nil
        current = SyncStamp(revision: 0)
        lists = [:]
        self.tombstoneLimit = tombstoneLimit
    }

    /// A sync token for `list`.
    public func syncToken(_ list: ListID) -> String? {
        guard let instance, let tasks = lists[list] else { return nil }
        return "\(Self.tokenPrefix)\(instance):\(tasks.stamp.text)"
    }

    static let tokenPrefix = "urn:listd:sync:"

    /// The stamp a token names, if it is one of this instance's.
    public func stamp(ofToken token: String) -> SyncStamp? {
        guard let instance, token.hasPrefix(Self.tokenPrefix) else { return nil }
        let rest = token.dropFirst(Self.tokenPrefix.count)
        guard let colon = rest.lastIndex(of: ":"), rest[..<colon] == instance[...] else { return nil }
        return SyncStamp(text: rest[rest.index(after: colon)...])
    }

    /// Starts following another listd instance (its revisions are not comparable with the last
    /// one's): every task keeps its UID, but every sync token before now is refused and every
    /// task counts as changed now.
    public mutating func follow(instance: String, at revision: Revision) {
        guard instance != self.instance else { return }
        self.instance = instance
        current = SyncStamp(revision: revision)
        for (id, var tasks) in lists {
            for key in tasks.order { tasks.entries[key]?.stamp = current }
            tasks.tombstones = [:]
            tasks.stamp = current
            tasks.horizon = current
            lists[id] = tasks
        }
    }

    /// Applies one of listd's changes (or, after a gap, a list as it is now with no steps: items
    /// renamed meanwhile then count as removed and added). A new item's task is named by
    /// listd-web (`madeUID`): a task an app PUT takes the app's name after (`adopt`), so the same
    /// change followed again makes the same book. Returns whether anything a client sees changed.
    @discardableResult
    public mutating func apply(_ list: ShoppingList, deleted: Bool, steps: [ListChange.Step], revision: Revision) -> Bool {
        guard revision >= current.revision else { return false }
        let stamp = SyncStamp(revision: revision)
        current = max(current, stamp)
        if deleted {
            return lists.removeValue(forKey: list.id) != nil
        }
        var tasks = lists[list.id] ?? ListTasks(name: list.name, stamp: stamp)
        var changed = tasks.name != list.name || lists[list.id] == nil
        tasks.name = list.name
        for step in steps {
            guard case .replace(let old, let new) = step else { continue }
            let oldKey = ListText.key(old), newKey = ListText.key(new)
            guard oldKey != newKey, let entry = tasks.entries.removeValue(forKey: oldKey) else { continue }
            tasks.entries[newKey] = entry
            tasks.hrefs[entry.href] = newKey
        }
        let when = TaskRendering.utc(list.edited)
        /// The list's UIDs, gathered at its first new item.
        var uids: Set<String>?
        var order: [String] = []
        order.reserveCapacity(list.items.count)
        for item in TaskItem.all(of: list) {
            let key = ListText.key(item.text)
            order.append(key)
            if var entry = tasks.entries[key] {
                guard entry.item != item else { continue }
                entry.item = item
                entry.stamp = stamp
                entry.changed = when
                tasks.entries[key] = entry
            } else {
                // Neither a UID nor an href an app gave its own task is taken twice.
                var uid = madeUID(list: list.id, revision: revision, position: item.position)
                if uids == nil { uids = Set(tasks.entries.values.map(\.uid)) }
                while uids?.contains(uid) == true || tasks.hrefs[uid + ".ics"] != nil { uid += "-again" }
                uids?.insert(uid)
                let href = uid + ".ics"
                tasks.entries[key] = TaskEntry(uid: uid, href: href, stamp: stamp, changed: when, item: item, kept: KeptTaskData())
                tasks.hrefs[href] = key
                tasks.tombstones[href] = nil
            }
            changed = true
        }
        if order.count != tasks.entries.count {
            let kept = Set(order)
            for (key, entry) in tasks.entries where !kept.contains(key) {
                tasks.entries[key] = nil
                tasks.hrefs[entry.href] = nil
                tasks.tombstones[entry.href] = stamp
            }
            changed = true
            pruneTombstones(&tasks)
        }
        tasks.order = order
        if changed { tasks.stamp = stamp }
        lists[list.id] = tasks
        return changed
    }

    /// Keeps what a client wrote that listd does not model (a DUE, an alarm) with a task; a
    /// change of it alone is a step after listd's revision.
    public mutating func keep(_ kept: KeptTaskData, list: ListID, href: String) {
        guard var tasks = lists[list], let key = tasks.hrefs[href], var entry = tasks.entries[key], entry.kept != kept else { return }
        current = SyncStamp(revision: current.revision, step: current.step + 1)
        entry.kept = kept
        entry.stamp = current
        tasks.entries[key] = entry
        tasks.stamp = current
        lists[list] = tasks
    }

    /// Gives the task at `href` a client's UID and href: a task a client PUT as new, once listd has
    /// its item (added by the PUT, or there already: merged), is known by the client's identity
    /// from then on (the old href is gone for the others, who sync it again under the new one).
    public mutating func adopt(list: ListID, href: String, uid: String, newHref: String) {
        guard var tasks = lists[list], href != newHref, let key = tasks.hrefs[href], var entry = tasks.entries[key],
            tasks.hrefs[newHref] == nil
        else { return }
        current = SyncStamp(revision: current.revision, step: current.step + 1)
        tasks.hrefs[href] = nil
        tasks.tombstones[href] = current
        entry.uid = uid
        entry.href = newHref
        entry.stamp = current
        tasks.entries[key] = entry
        tasks.hrefs[newHref] = key
        tasks.tombstones[newHref] = nil
        tasks.stamp = current
        pruneTombstones(&tasks)
        lists[list] = tasks
    }

    private func pruneTombstones(_ tasks: inout ListTasks) {
        guard tasks.tombstones.count > tombstoneLimit else { return }
        let oldest = tasks.tombstones.sorted { $0.value < $1.value }.prefix(tasks.tombstones.count - tombstoneLimit)
        for (href, stamp) in oldest {
            tasks.tombstones[href] = nil
            tasks.horizon = max(tasks.horizon, stamp)
        }
    }

    /// A UID for a task listd made (an item added elsewhere): listd's instance, the list, the
    /// revision its item was first seen at and its place then. Made again the same when the same
    /// change is applied again — after a restart of listd-web that came before the book was saved,
    /// it is followed again from the book's revision — so a UID and href a client already has are
    /// never swapped for new ones (the client would keep a task the server no longer knows, and
    /// miss the one it made instead: its sync token is past the change).
    func madeUID(list: ListID, revision: Revision, position: Int) -> String {
        "\(instance ?? "listd")-\(list)-\(revision)-\(position)"
    }
}
