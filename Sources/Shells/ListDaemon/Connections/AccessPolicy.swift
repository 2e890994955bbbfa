// Who may use this listd: its own user, root, and the members of one group.
import Glibc
import ListCore
import ListRPCTransport

/// Who may use this listd, decided from the peer's credentials on accept.
package struct AccessPolicy: Sendable, Hashable {
    /// The group whose members may connect too (the system service's), by name and id.
    package struct Group: Sendable, Hashable {
        package var name: String
        package var gid: UInt32

        /// Looks the group up by name; nil when there is no such group.
        package init?(named name: String) {
            guard let entry = getgrnam(name) else { return nil }
            self.name = name
            self.gid = entry.pointee.gr_gid
        }
    }

    /// listd's own user: always served, as is root.
    package var ownerUID: UInt32
    package var group: Group?

    package init(ownerUID: UInt32 = getuid(), group: Group? = nil) {
        self.ownerUID = ownerUID
        self.group = group
    }

    /// Whether `peer` is served; `groupsOf` gives a user's groups (looked up only when needed).
    func allows(_ peer: PeerCredentials, groupsOf: (UInt32, UInt32) -> [UInt32] = userGroups) -> Bool {
        if isOwner(peer) { return true }
        guard let group else { return false }
        return peer.gid == group.gid || groupsOf(peer.uid, peer.gid).contains(group.gid)
    }

    /// Whether `peer` is listd's own user or root: served up to the connection limit, with the
    /// last connections kept for them (`ConnectionRules.admission`).
    func isOwner(_ peer: PeerCredentials) -> Bool {
        peer.uid == ownerUID || peer.uid == 0
    }

    /// Why `peer` is not served, for the peer and the log.
    func refusal(of peer: PeerCredentials) -> String {
        if let group {
            return "this listd serves its own user (uid \(ownerUID)), root and members of the group “\(group.name)”"
        }
        return "this listd serves only its own user (uid \(ownerUID)) and root"
    }
}

/// The groups a user is in (primary and supplementary), from the user database.
func userGroups(uid: UInt32, primary gid: UInt32) -> [UInt32] {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16_384)
    guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
        return [gid]
    }
    var count: Int32 = 64
    var groups = [gid_t](repeating: 0, count: Int(count))
    if getgrouplist(name, gid, &groups, &count) < 0 {
        groups = [gid_t](repeating: 0, count: Int(count))
        guard getgrouplist(name, gid, &groups, &count) >= 0 else { return [gid] }
    }
    return Array(groups.prefix(Int(count)))
}
