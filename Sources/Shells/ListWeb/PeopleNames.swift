// Who made a change, as a person reads it: the page names a change by a user's login name
// ("alice (listctl)") rather than the program's, and a save of the list file by the person
// listd runs as. Names come from the user database (getpwuid_r), only for the uids a page asks
// about: a paired phone learns the names of those who changed its lists, not every account.
import Glibc

enum PeopleNames {
    /// The lowest uid of a person's account (Debian's UID_MIN): below it are system accounts,
    /// such as the `listd` user of a system unit, which are no one's name for a save.
    static let firstPersonUID: UInt32 = 1000

    /// The most uids one /whoami answers for.
    static let maximumAsked = 64

    /// `uid`'s login name, or nil when the user database has none.
    static func name(of uid: UInt32) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid_t(uid), &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let name = entry.pw_name
        else { return nil }
        return String(cString: name)
    }

    /// The uids asked for as `?uids=1000,1001` (at most `maximumAsked`, each a number).
    static func asked(_ query: String?) -> [UInt32] {
        guard let query else { return [] }
        return query.split(separator: ",").prefix(maximumAsked).compactMap { UInt32($0) }
    }

    /// Each asked uid's name, by uid as text (JSON's keys), those the database knows.
    static func names(of uids: [UInt32]) -> [String: String] {
        var names: [String: String] = [:]
        for uid in uids { if let name = name(of: uid) { names[String(uid)] = name } }
        return names
    }

    /// Who saves the list file: the person listd runs as, known by its socket's owner (listd
    /// makes it, or systemd makes it for listd's user); nil for a system account.
    static func fileAuthor(listdSocket: String) -> String? {
        var status = stat()
        guard stat(listdSocket, &status) == 0, status.st_uid >= firstPersonUID, status.st_uid != 65_534 else { return nil }
        return name(of: status.st_uid)
    }
}
