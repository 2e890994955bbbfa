// What the owner tells besides replies, when the core says: the journal's lines, handed to its
// thread in batches, and the service manager's status line.
import ListCore
import NIOCore

extension ListOwner {
    /// Hands what the journal is owed to its thread.
    func handJournalOver() {
        guard !journalDue.isEmpty else { return }
        let entries = journalDue
        journalDue = []
        journal.write(entries)
    }

    /// The status line, as the service manager shows it.
    func publishSummary() {
        statusTextStale = false
        let book = core.durable
        let subscribers = hub.subscriberCount
        var text =
            "\(book.lists.count) list\(book.lists.count == 1 ? "" : "s"), \(subscribers) subscriber\(subscribers == 1 ? "" : "s")"
        if let last = published.current.lastChange {
            text += ", last change: revision \(last.revision) by \(last.origin) at \(last.list.edited)"
        }
        if core.file.invalidOffset != nil {
            text += "; line \(core.file.invalidLine) of the list file is not UTF-8, edits wait"
        }
        if let share, !share.connected {
            text += "; the shared lists at \(share.serverDescription) cannot be reached, edits are refused until they can"
        }
        if let writeFailure = core.file.writeFailure {
            text += "; the list file is behind the lists, retrying: \(writeFailure)"
        }
        published.update { $0.summary = text }
    }
}
