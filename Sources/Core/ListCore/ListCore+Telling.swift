// When listd tells what it did: the journal's lines go to its thread together, `journalLag`
// after the first of them (behind the replies, one wake-up of that thread for the passes of that
// time), and the service manager's status line at most once per `statusInterval`.

/// What is owed to the journal and the status line, and when they were last told.
struct Telling: Sendable {
    /// A hand-over of the journal's lines is scheduled (`handJournalOver(after:)`).
    var journalArmed = false
    /// The lists, the subscribers or the file's state changed: the status line is due.
    var statusDue = false
    var statusToldAt: ContinuousClock.Instant?
    /// A telling of the status line is scheduled (`scheduleStatus(after:)`).
    var statusArmed = false
}

extension ListCore {
    /// The status line's facts changed (the lists, the file's state, the store's reach).
    mutating func statusChanged() {
        telling.statusDue = true
    }

    /// The tellings `actions` call for, after them.
    mutating func tell(after actions: inout [CoreAction], now: ContinuousClock.Instant) {
        if !telling.journalArmed, actions.contains(where: { if case .journal = $0 { true } else { false } }) {
            telling.journalArmed = true
            actions.append(.handJournalOver(after: limits.journalLag))
        }
        guard telling.statusDue else { return }
        telling.statusDue = false
        actions.append(.publishStatus)
        if telling.statusArmed { return }
        if let told = telling.statusToldAt, told.duration(to: now) < limits.statusInterval {
            telling.statusArmed = true
            actions.append(.scheduleStatus(after: limits.statusInterval - told.duration(to: now)))
        } else {
            telling.statusToldAt = now
            actions.append(.tellStatus)
        }
    }

    /// The timer of `scheduleStatus(after:)` fired.
    mutating func statusTimerFired(now: ContinuousClock.Instant) -> [CoreAction] {
        telling.statusArmed = false
        telling.statusToldAt = now
        return [.tellStatus]
    }
}
