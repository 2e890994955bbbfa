import DurableFiles
import Glibc
import Inotify
import ListCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Watches the list file's directory (for saves that replace, create or delete the file) and the
/// file itself (for writes into it), and tells the owner what happened to the list file, as
/// `FileChange`s: whether a save is over is the core's to decide (`SettleTracker`).
///
/// The inotify descriptor is read on the owner's loop, registered with NIO like a socket
/// (`ReadableDescriptor`): no thread, queue or timer of its own. Writes are watched on the file's inode, not the directory:
/// listd appends to its change log beside the file on every edit, and a directory watch for
/// writes woke the watcher for each one. The inode watch is made again whenever a new file takes
/// the name (editors save by rename).
///
/// Confined to the owner's loop once `start` has run (`@unchecked Sendable`, as `ListOwner`).
package final class FileWatcher: Service, @unchecked Sendable {
    let path: String
    private let fileName: String
    private let logger: Logger
    private let inotify: Inotify
    /// The directory's watch descriptor; events of any other watch are writes into the file.
    let watchedDirectory: Int32
    /// When the list file is a symlink: the watch of its target's directory and the target's
    /// name, so a save made to the target by its own path (a rename beside it) is seen too.
    private let watchedTarget: (watch: Int32, name: String)?

    // On the owner's loop:
    /// Cookies of renames from listd's own temp files, to tell its writes from a person's.
    private var ownRenames: Set<UInt32> = []
    /// Directory watches whose last event of the list file's name was listd's own temp file
    /// arriving under it. An exchange's other half (the list file moved to the temp file's name)
    /// is the name's next event, as the kernel holds the directory's rename lock across both; a
    /// read can fall between the halves, and the half read later is known by this.
    private var lastWasOwnArrival: Set<Int32> = []
    private var onChange: ([FileChange]) -> Void = { _ in }
    /// What the reads of this turn saw, reported at the end of the reads.
    private(set) var seen: [FileChange] = []
    private var channel: (any Channel)?

    /// Makes the inotify instance and its watches (at start-up, before the file is first read,
    /// so that no save is missed in between: the kernel keeps the events until they are read).
    package init(path: String, logger: Logger) throws(DaemonError) {
        self.path = path
        let directory = directoryName(of: path)
        self.fileName = String(path.split(separator: "/").last ?? "")
        self.logger = logger
        do throws(Inotify.Error) {
            inotify = try Inotify()
            let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ONLYDIR)
            watchedDirectory = try inotify.addWatch(path: directory, mask: mask)
            let destination = ListFileStorage(path: path).destination()
            if destination != path {
                let targetWatch = try inotify.addWatch(path: directoryName(of: destination), mask: mask)
                watchedTarget = (targetWatch, String(destination.split(separator: "/").last ?? ""))
            } else {
                watchedTarget = nil
            }
        } catch {
            throw .cannotWatch(path: directory, detail: "\(error)")
        }
        watchFile()
        logger.debug("watching \(directory) for changes to \(fileName)")
    }

    /// Watches writes into the file now under the name (none when there is no file yet: its
    /// creation is seen on the directory, and the watch is made then).
    private func watchFile() {
        do throws(Inotify.Error) {
            try inotify.addWatch(path: path, mask: UInt32(IN_MODIFY))
        } catch where error.errno == ENOENT {
            // The file went away since the event; a new one is seen on the directory.
        } catch {
            let problem = DaemonError.cannotWatch(path: path, detail: "\(error)")
            logger.error(
                "\(problem); a program that writes into the file without closing it goes unnoticed until it closes it"
            )
        }
    }

    /// Registers the descriptor with `loop`: from then on `onChange` runs there once every batch
    /// of events is read, with what it says of the list file (nothing, when the events were of
    /// other files or listd's own writes). Call on `loop`.
    func start(on loop: any EventLoop, onChange: @escaping ([FileChange]) -> Void) -> EventLoopFuture<Void> {
        loop.assertInEventLoop()
        self.onChange = onChange
        return ReadableDescriptor.register(
            inotify.descriptor,
            on: loop,
            // One read takes every event queued (one needs at most 16 + NAME_MAX + 1 bytes).
            bufferSize: 65_536,
            read: { [self] bytes in take(InotifyEvent.parse(bytes.readableBytesView)) },
            readEnded: { [self] in reportSeen() },
            failed: { [self] error in
                logger.error("could not read the list file's inotify events", metadata: ["error": "\(error)"])
            }
        )
        .map { self.channel = $0 }
        .flatMapErrorThrowing { error in throw DaemonError.cannotWatch(path: self.path, detail: "\(error)") }
    }

    package func run() async throws {
        try? await gracefulShutdown()
        try? await channel?.close()
    }

    /// What `events` say of the list file, added to `seen`; listd's own writes are left out.
    func take(_ events: [InotifyEvent]) {
        var changes: [FileChange] = []
        for event in events {
            // The list file's own name, in its directory or (a symlink's) its target's.
            let isListFile =
                (event.watch == watchedDirectory && event.name == fileName)
                || (event.watch == watchedTarget?.watch && event.name == watchedTarget?.name)
            let followsOwnArrival = isListFile && lastWasOwnArrival.remove(event.watch) != nil
            // The file listd's last swap replaced, kept beside it: closed after a write, it may
            // hold an editor's save that raced the swap (`ListFileStorage.reclaimLateWrite`).
            let intoReplaced =
                event.mask & UInt32(IN_CLOSE_WRITE) != 0
                && ((event.watch == watchedDirectory && event.name == ListFileStorage.replacedName(of: fileName))
                    || (event.watch == watchedTarget?.watch && event.name == watchedTarget.map { ListFileStorage.replacedName(of: $0.name) }))
            if isListFile, event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                // A new file under the name (an editor's rename, or listd's): watch its writes.
                watchFile()
            }
            if intoReplaced {
                changes.append(.completed)
            } else if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                // Events were lost; listd always reads the whole file, so reading it is enough.
                logger.warning("the inotify queue overflowed; re-reading the list file in full")
                changes.append(.overflowed)
            } else if event.mask & UInt32(IN_MOVED_FROM) != 0, FileIO.isTemporaryName(event.name) {
                // listd's own write is a rename from its temp file; the rename onto the list file
                // that carries the same cookie is not a person's save.
                ownRenames.insert(event.cookie)
            } else if event.mask & UInt32(IN_MOVED_TO) != 0, ownRenames.remove(event.cookie) != nil {
                if isListFile { lastWasOwnArrival.insert(event.watch) }
                continue
            } else if isListFile, event.mask & UInt32(IN_MOVED_FROM) != 0, followsOwnArrival, access(path, F_OK) == 0 {
                // listd swaps its text in by exchanging names with its temp file (`FileIO.replace`):
                // this is the exchange's other half, the list file moved to the temp file's name.
                // (After a plain rename of listd's, a person's `mv` of the file elsewhere comes
                // here too, but then no file is left under the name, and it is reported.)
                continue
            } else if event.watch != watchedDirectory, event.watch != watchedTarget?.watch {
                // The file's own watch: only IN_MODIFY is asked for (IN_IGNORED when it goes).
                if event.mask & UInt32(IN_MODIFY) != 0 { changes.append(.written) }
            } else if isListFile {
                let completes = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
                changes.append(event.mask & completes != 0 ? .completed : .written)
            }
        }
        seen += changes
    }

    /// The reads of this turn are over: what they saw goes to the owner.
    func reportSeen() {
        let changes = seen
        seen = []
        if !changes.isEmpty { logger.debug("list file events", metadata: ["changes": "\(changes)"]) }
        onChange(changes)
    }
}
