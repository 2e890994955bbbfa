// How often a journal line that can repeat without end is written: the rest held back and counted.
import Synchronization

/// At most one line a second of each kind that repeats for as long as a fault lasts (an edit
/// refused while the shared lists' server is away comes with every edit a client sends): the
/// others are held back and counted, and the next line of that kind written says how many were,
/// and how many edits they were about. Pure: the time is handed in.
struct RepeatedLines {
    /// What was held back of a kind since its last line written.
    struct HeldBack: Equatable {
        var lines = 0
        var edits = 0
    }

    var interval: Duration = .seconds(1)
    private var lastWritten: [String: ContinuousClock.Instant] = [:]
    private var heldBack: [String: HeldBack] = [:]

    /// Whether a line of `kind` (about `edits` edits) is written at `now`: nil when it is held
    /// back; else what was held back before it (none: zero lines).
    mutating func admit(_ kind: String, edits: Int = 0, at now: ContinuousClock.Instant) -> HeldBack? {
        if let last = lastWritten[kind], now < last + interval {
            heldBack[kind, default: HeldBack()].lines += 1
            heldBack[kind, default: HeldBack()].edits += edits
            return nil
        }
        lastWritten[kind] = now
        return heldBack.removeValue(forKey: kind) ?? HeldBack()
    }

    /// The end of a line written after some were held back: `(41 more like it held back since the last, about 96 edit(s))`.
    static func suffix(_ held: HeldBack) -> String {
        guard held.lines > 0 else { return "" }
        let edits = held.edits > 0 ? ", about \(held.edits) edit(s)" : ""
        return " (\(held.lines) more like it held back since the last\(edits))"
    }
}

/// `RepeatedLines` shared by the journal's writer (one thread) and whoever else writes.
final class RepeatedLinesGate: Sendable {
    private let lines = Mutex(RepeatedLines())

    /// The suffix to write the line with, or nil to hold it back.
    func admit(_ kind: String, edits: Int = 0, at now: ContinuousClock.Instant = .now) -> String? {
        lines.withLock { $0.admit(kind, edits: edits, at: now) }.map(RepeatedLines.suffix)
    }
}
