import ListCore
import ListModel
import ListRPC
import Synchronization

/// What the owner shows threads other than its own: the committed lists, replaced whole (a
/// copy-on-write value) under one short lock. The hub stores them as it publishes a durable
/// batch, before any confirm of that batch is handed to a connection, so a client that has its
/// confirm reads the change on any connection, whatever loop serves it: read your writes, by
/// construction rather than by timing.
final class PublishedLists: Sendable {
    struct View: Sendable {
        var book: ListBook
        var lastChange: ListChange?
        var subscribers = 0
        /// The service manager's status line, as of the owner's last pass that changed it.
        var summary = ""
    }

    private let view: Mutex<View>
    /// Names this state (see `PersistedState.instance`).
    let instance: String

    init(book: ListBook, instance: String) {
        view = Mutex(View(book: book))
        self.instance = instance
    }

    var current: View { view.withLock { $0 } }
    var book: ListBook { view.withLock { $0.book } }

    var snapshot: ListsSnapshot {
        let book = book
        return ListsSnapshot(revision: book.revision, lists: book.lists, instance: instance)
    }

    func update(_ body: (inout View) -> Void) {
        view.withLock { body(&$0) }
    }
}
