// Who is on the other end of a Unix socket, for every server that checks it (listd, and
// listd-web's control socket).
import Glibc
import NIOCore

/// Who is on the other end of a Unix socket, as the kernel says (SO_PEERCRED): a client cannot
/// claim to be someone else.
package struct PeerCredentials: Sendable, Hashable {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32

    package init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Reads SO_PEERCRED of an accepted channel. Call on the channel's event loop.
    package static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max))
        }
        let future: EventLoopFuture<KernelUcred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}

/// Glibc's `struct ucred` (hidden behind _GNU_SOURCE in the Swift overlay): same layout.
private struct KernelUcred: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

