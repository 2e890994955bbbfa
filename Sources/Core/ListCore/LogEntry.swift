import ListModel

/// One line of the change log, and its text: a change (what changed, never the whole list), or
/// a note about the list file.
package enum LogEntry: Sendable, Hashable {
    case change(ChangeRecord)
    /// The list file with this digest shows the lists as of `revision` (listd wrote it, or took
    /// in a person's save of it): a start that finds that file knows what it shows.
    case fileShows(digest: String, revision: Revision)
    /// The lists were put in this order (a person moved them in the file).
    case order([ListID], revision: Revision)
    /// A person's save taken in, its text whole, and the revision right after it: an editor
    /// that saves again from the same buffer after a restart is read against it too (its
    /// `rev=` is the one the save carried), so the person's own earlier save is not taken for
    /// theirs to make again.
    case saveTaken(text: [UInt8], revision: Revision)
    /// A change as listd logged it before it kept records: the notification line, with the
    /// whole list. Read from an older log, never written.
    case fullChange(ListChange)

    package var isChange: Bool {
        if case .change = self { true } else { false }
    }
}
