import ListModel
import ListRPC

/// One client connection's state, owned by the task that serves it.
struct Session: Sendable {
    let id: Int
    let credentials: PeerCredentials
    let outbox: Outbox
    /// Given by the client with `hello`.
    var clientName: String?

    var origin: ChangeOrigin {
        .client(pid: credentials.pid, uid: credentials.uid, name: clientName)
    }
}
