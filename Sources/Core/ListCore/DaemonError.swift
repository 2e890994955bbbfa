// Why listd cannot start or keep going, each with a sentence a person can act on.
import ErrnoText

/// Why listd cannot start or keep going, each with a sentence a person can act on.
package enum DaemonError: Error, CustomStringConvertible, Sendable, Hashable {
    case alreadyRunning(socketPath: String)
    case socketPathOccupied(socketPath: String)
    case cannotCreateDirectory(path: String, errno: Int32)
    case cannotReadListFile(path: String, errno: Int32)
    case unreadableState(path: String, detail: String)
    /// A person saved the file while listd was writing it; listd's write was not made.
    case changedWhileWriting(path: String)
    case cannotWriteListFile(path: String, step: String, errno: Int32)
    /// The list file's directory cannot be watched for a person's saves.
    case cannotWatch(path: String, detail: String)
    /// The signalfd that SIGTERM, SIGINT and SIGHUP are read from cannot be made.
    case cannotWatchSignals(errno: Int32)
    /// A line of the change log that is not the last one cannot be read (or does not follow
    /// from the lists before it).
    case damagedLog(path: String, line: Int)
    /// The change log could not be opened, read or appended to: confirms stop until it can.
    case changeLogFailed(path: String, step: String, errno: Int32)
    /// The snapshot beside the change log could not be read or written.
    case snapshotFailed(path: String, step: String, errno: Int32)
    /// The socket or its directory could not be given its owner group or mode: listd does not
    /// serve a socket whose access is not the one asked for.
    case cannotSetSocketAccess(path: String, step: String, errno: Int32)
    /// Another listd keeps the lists of this list file (it holds the lock beside it).
    case listFileInUse(path: String, lockPath: String, pid: Int32?)
    case cannotLockState(path: String, errno: Int32)
    /// The socket cannot be made at this path (checked before anything is written).
    case socketPathTooLong(socketPath: String, bytes: Int, maximum: Int)
    case notADirectory(socketPath: String, component: String)
    case cannotBindSocket(socketPath: String, errno: Int32)
    /// The shared lists' server cannot be used at start (`--share`): no server there, a wrong
    /// password, a missing database, tables of a newer listd.
    case shareFailed(server: String, detail: String)
    /// The shared lists' server cannot be reached now: edits are refused until it is back.
    case shareUnavailable(server: String, detail: String)
    /// A change kept in the shared database cannot be read or does not follow the one before.
    case shareDamaged(server: String, revision: Int, detail: String)

    package var description: String {
        switch self {
        case .alreadyRunning(let path):
            "another listd is already serving \(path); stop it first, or give this one another --socket"
        case .socketPathOccupied(let path):
            "\(path) exists and is not a socket; listd will not remove it, move it away or choose another --socket"
        case .cannotCreateDirectory(let path, let errno):
            "cannot create the directory \(path): \(errorText(errno))"
        case .cannotReadListFile(let path, let errno):
            "cannot read the list file \(path): \(errorText(errno))"
        case .changedWhileWriting(let path):
            "\(path) was saved by someone else while listd was writing it; taking that save in first"
        case .unreadableState(let path, let detail):
            "the state file \(path) cannot be read (\(detail)); the lists are rebuilt from the list file"
        case .cannotWriteListFile(let path, let step, let errno):
            "cannot save the list file \(path) (\(step)): \(errorText(errno))"
        case .cannotWatch(let path, let detail):
            "cannot watch \(path) for saves of the list file: \(detail)"
        case .cannotWatchSignals(let errno):
            "cannot make the signalfd listd reads SIGTERM, SIGINT and SIGHUP from: \(errorText(errno))"
        case .changeLogFailed(let path, let step, let errno):
            "cannot use the change log \(path) (\(step)): \(errorText(errno)); edits are not confirmed until it can be written"
        case .snapshotFailed(let path, let step, let errno):
            "cannot use the snapshot \(path) (\(step)): \(errorText(errno))"
        case .cannotSetSocketAccess(let path, let step, let errno):
            "cannot set who may use \(path) (\(step)): \(errorText(errno)); listd does not serve a socket whose access is not the one asked for"
        case .listFileInUse(let path, let lockPath, let pid):
            "another listd\(pid.map { " (pid \($0))" } ?? "") already keeps the lists of \(path) (it holds \(lockPath)); stop it first, or give this one another --file"
        case .cannotLockState(let path, let errno):
            "cannot lock \(path), which keeps a second listd off the same lists: \(errorText(errno))"
        case .socketPathTooLong(let path, let bytes, let maximum):
            "cannot serve \(path): the path is \(bytes) bytes long, and a Unix socket's path may have at most \(maximum); choose a shorter --socket"
        case .notADirectory(let path, let component):
            "cannot serve \(path): \(component) is not a directory; move it away or choose another --socket"
        case .cannotBindSocket(let path, let errno):
            "cannot serve \(path): \(errorText(errno))"
        case .shareFailed(let server, let detail):
            "cannot use the shared lists at \(server): \(detail)"
        case .shareUnavailable(let server, let detail):
            "cannot reach the shared lists at \(server): \(detail)"
        case .shareDamaged(let server, let revision, let detail):
            "change #\(revision) in the shared lists at \(server) cannot be redone (\(detail)); listd will not start on a guess"
        case .damagedLog(let path, let line):
            "line \(line) of the change log \(path) is damaged, and confirmed changes follow it; listd will not start on a guess. Keep a copy, then remove that line (or the whole log, losing the changes since the last snapshot) and start again"
        }
    }
}
