// The notification lines of the latest changes, by revision, each made once by whoever needed it
// first — the live fan-out or a subscriber catching up — so that pages reconnecting together
// after a network blip are sent the same bytes, not each a copy redone and encoded for it alone.
import ListModel
import ListRPC
import NIOCore

/// Recent notification lines (whole and brief) by the revision they tell, within a byte budget:
/// the oldest go first. Keyed by state too (`instance`): a revision names one change only within
/// one state of the lists.
struct RecentLines {
    struct Entry {
        var event: ListEventName
        var listID: ListID
        var whole: ByteBuffer?
        var brief: ByteBuffer?

        var bytes: Int { (whole?.readableBytes ?? 0) + (brief?.readableBytes ?? 0) }
    }

    /// Bytes of lines kept at most (a 10,000-item list's whole line is ~150 KB).
    let byteLimit: Int
    private var instance = ""
    private var entries: [Revision: Entry] = [:]
    /// Revisions in the order they were kept, oldest first (`first` onwards are live).
    private var order: [Revision] = []
    private var first = 0
    private var bytes = 0

    init(byteLimit: Int = 32 << 20) {
        self.byteLimit = byteLimit
    }

    /// The entry kept for `revision` of state `instance`.
    func entry(_ revision: Revision, instance: String) -> Entry? {
        instance == self.instance ? entries[revision] : nil
    }

    /// Keeps `line` (whole or brief) for `revision`, which tells `event` about `listID`.
    mutating func keep(_ line: ByteBuffer, brief: Bool, revision: Revision, event: ListEventName, listID: ListID, instance: String) {
        if instance != self.instance {
            self = RecentLines(byteLimit: byteLimit)
            self.instance = instance
        }
        var entry = entries[revision] ?? Entry(event: event, listID: listID)
        if entries[revision] == nil { order.append(revision) }
        bytes -= entry.bytes
        if brief { entry.brief = line } else { entry.whole = line }
        bytes += entry.bytes
        entries[revision] = entry
        while bytes > byteLimit, first < order.count - 1 {
            bytes -= entries.removeValue(forKey: order[first])?.bytes ?? 0
            first += 1
        }
        if first > 1_024, first * 2 > order.count {
            order.removeFirst(first)
            first = 0
        }
    }
}
