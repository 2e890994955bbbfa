// Whether a runtime directory is the user's own. Without XDG_RUNTIME_DIR (su, cron, ssh without
// logind) the sockets live in /tmp/listd-UID and /tmp/listd-web-UID, names any user can take
// first: one made by someone else, or open to others, would let them serve a fake listd or
// listen in. The XDG Base Directory spec asks the same of a replacement: owned by the user, with
// access mode 0700.
import Glibc

/// A runtime directory that is not safe to use, and why: said to the person as it is.
public struct UnsafeRuntimeDirectory: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// A symbolic link, a file, anything but a directory.
        case notADirectory
        /// Made by another user.
        case ownedBy(uid: UInt32)
        /// Others may enter it (group or other permission bits).
        case openToOthers(mode: UInt32)
        /// It could not be made or looked at (errno).
        case unusable(errno: Int32)
    }

    public let path: String
    public let problem: Problem

    public var description: String {
        let way = "remove it if it is not yours, or set XDG_RUNTIME_DIR (or --socket) to a directory of your own"
        switch problem {
        case .notADirectory:
            return "\(path) is not a directory (a link or a file is there): refusing to use it; \(way)."
        case .ownedBy(let uid):
            return "\(path) belongs to another user (uid \(uid)), not to you (uid \(geteuid())): refusing to use it, "
                + "someone else may be listening there; \(way)."
        case .openToOthers(let mode):
            return "\(path) is open to other users (mode \(String(mode, radix: 8))): refusing to use it; "
                + "if it is yours, chmod 700 \(path), else \(way)."
        case .unusable(let code):
            return "\(path) cannot be used as a runtime directory: \(String(cString: strerror(code)))."
        }
    }
}

public enum RuntimeDirectory {
    /// A client's check before it connects through `path`: nothing there is fine (nothing to
    /// connect to either); a directory must be the user's own and closed to others.
    public static func check(_ path: String) throws(UnsafeRuntimeDirectory) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw UnsafeRuntimeDirectory(path: path, problem: .unusable(errno: errno))
        }
        try verify(path, info)
    }

    /// A server's: makes `path` with mode 0700 (and any missing directory above it, as
    /// `mkdir -p`), or checks the one there — made now or before, by anyone.
    public static func make(_ path: String) throws(UnsafeRuntimeDirectory) {
        if mkdir(path, 0o700) != 0, errno == ENOENT {
            var above = path.hasPrefix("/") ? "" : "."
            for component in path.split(separator: "/").dropLast() {
                above += "/" + component
                _ = mkdir(above, 0o700)
            }
            _ = mkdir(path, 0o700)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw UnsafeRuntimeDirectory(path: path, problem: .unusable(errno: errno)) }
        try verify(path, info)
    }

    private static func verify(_ path: String, _ info: stat) throws(UnsafeRuntimeDirectory) {
        guard info.st_mode & S_IFMT == S_IFDIR else { throw UnsafeRuntimeDirectory(path: path, problem: .notADirectory) }
        guard info.st_uid == geteuid() else { throw UnsafeRuntimeDirectory(path: path, problem: .ownedBy(uid: info.st_uid)) }
        guard info.st_mode & 0o077 == 0 else {
            throw UnsafeRuntimeDirectory(path: path, problem: .openToOthers(mode: info.st_mode & 0o7777))
        }
    }
}
