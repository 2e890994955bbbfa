// What the owner shows other threads: the status line's parts, under one short lock.
import ListCore
import ListModel
import ListRPC
import Synchronization

/// What the owner shows threads other than its own: the parts of the service manager's status
/// line (the last change, the subscribers, the line itself), under one short lock. The lists are
/// not here: they are the core's alone (`ListCore.durable`), read on the owner's loop, where every
/// connection is served — so a client that has its confirm reads the change, by construction.
final class PublishedStatus: Sendable {
    struct View: Sendable {
        var lastChange: ListChange?
        var subscribers = 0
        /// The service manager's status line, as of the owner's last pass that changed it.
        var summary = ""
    }

    private let view: Mutex<View>
    /// Names this state (see `PersistedState.instance`).
    let instance: String

    init(instance: String) {
        view = Mutex(View())
        self.instance = instance
    }

    var current: View { view.withLock { $0 } }

    func update(_ body: (inout View) -> Void) {
        view.withLock { body(&$0) }
    }
}
