// Why this user may not use listd's socket, in words: the socket is there, and its mode or its
// directory's keeps this user out (a household's listd serves the members of one group).
import Glibc

enum SocketAccess {
    /// The sentence for a socket at `path` that exists and that this user may not use; nil when
    /// that is not why it cannot be reached.
    static func refusal(at path: String) -> String? {
        var info = stat()
        let guarded: (path: String, info: stat)
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK, access(path, W_OK) != 0, errno == EACCES else { return nil }
            guarded = (path, info)
        } else {
            // The socket's directory cannot be entered: it is the directory that keeps this user out.
            guard errno == EACCES else { return nil }
            let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            guard stat(directory.isEmpty ? "/" : directory, &info) == 0 else { return nil }
            guarded = (directory, info)
        }
        let owner = getpwuid(guarded.info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(guarded.info.st_uid)"
        let group = getgrgid(guarded.info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "gid \(guarded.info.st_gid)"
        let me = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(getuid())"
        let mode = String(guarded.info.st_mode & 0o777, radix: 8)
        let what = guarded.path == path ? "" : " (its directory \(guarded.path) is mode \(mode))"
        // Group access granted (0660, 0750): joining the group is the way in.
        guard guarded.info.st_mode & 0o070 != 0 else {
            return """
                listctl: listd's socket \(path) is there, but only \(owner) may use it\(what), and you are \(me).
                Run listctl as \(owner), or point --socket or LISTD_SOCKET at a listd of your own.
                """
        }
        return """
            listctl: listd's socket \(path) is there, but only \(owner) and the group \(group) may use it\(what), and you (\(me)) are not in \(group).
            Ask to be added (`sudo usermod -aG \(group) \(me)`, then log in again), or point --socket or LISTD_SOCKET at a listd of your own.
            """
    }
}
