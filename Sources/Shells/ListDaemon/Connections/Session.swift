import ListCore
import ListModel
import ListRPCTransport
import ListRPC

/// One client connection as the owner knows it: who it is and where its bytes go. Its name
/// (`hello`) is set and read on the owner's loop only.
final class Session: @unchecked Sendable {
    let id: Int
    let credentials: PeerCredentials
    let outbox: Outbox
    /// Given by the client with `hello`.
    var clientName: String?
    /// Asked for with `hello {brief: true}`: confirms and notifications without the list's items.
    var brief = false
    /// What this client may change: all, until its `hello` declares less (never more again).
    var rights: ClientRights = .all
    /// It said `hello`, subscribed or became a delegate: a client that stays, never let go for
    /// being quiet (`ConnectionRules.idleCheck`).
    var introduced = false

    init(id: Int, credentials: PeerCredentials, outbox: Outbox) {
        self.id = id
        self.credentials = credentials
        self.outbox = outbox
    }

    var origin: ChangeOrigin {
        .client(pid: credentials.pid, uid: credentials.uid, name: clientName)
    }
}
