import Dispatch
import Glibc
import Inotify
import Logging
import ServiceLifecycle
import Synchronization

/// Watches the list file's directory (for saves that replace, create or delete the file) and the
/// file itself (for writes into it), and says when a person's save has settled.
///
/// Writes are watched on the file's inode, not the directory: listd appends to its change log
/// beside the file on every edit, and a directory watch for writes woke the watcher for each one.
/// The inode watch is made again whenever a new file takes the name (editors save by rename).
public final class FileWatcher: Service, Sendable {
    private struct State {
        var tracker: SettleTracker
        var onSettled: (@Sendable () -> Void)?
        var waiters: [@Sendable () -> Void] = []
        /// The burst being settled: when it began and how many events it had (for the log).
        var burstStart: ContinuousClock.Instant?
        var burstEvents = 0
        var burstEnd: ContinuousClock.Instant?
    }

    let path: String
    private let directory: String
    private let fileName: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "listd.file-watcher")
    private let state: Mutex<State>
    private let inotify = Mutex<Inotify?>(nil)
    /// Cookies of renames from listd's own temp files, to tell its writes from a person's.
    private let ownRenames = Mutex<Set<UInt32>>([])
    /// The directory's watch descriptor; events of any other watch are writes into the file.
    private let watchedDirectory = Mutex<Int32>(-1)
    /// When the list file is a symlink: the watch of its target's directory and the target's
    /// name, so a save made to the target by its own path (a rename beside it) is seen too.
    private let watchedTarget = Mutex<(watch: Int32, name: String)?>(nil)

    /// Watches writes into the file now under the name (none when there is no file yet: its
    /// creation is seen on the directory, and the watch is made then).
    private func watchFile() {
        let failure = inotify.withLock { instance -> Inotify.Error? in
            do throws(Inotify.Error) {
                try instance?.addWatch(path: path, mask: UInt32(IN_MODIFY))
                return nil
            } catch {
                return error
            }
        }
        // ENOENT: the file went away since the event; a new one is seen on the directory.
        guard let failure, failure.errno != ENOENT else { return }
        let problem = DaemonError.cannotWatch(path: path, detail: "\(failure)")
        logger.error(
            "\(problem); a program that writes into the file without closing it goes unnoticed until it closes it"
        )
    }

    /// - Parameter quietPeriod: how long the file must be left alone before it is read.
    public init(path: String, quietPeriod: Duration, logger: Logger) {
        self.path = path
        self.directory = directoryName(of: path)
        self.fileName = String(path.split(separator: "/").last ?? "")
        self.logger = logger
        self.state = Mutex(State(tracker: SettleTracker(quietPeriod: quietPeriod)))
    }

    public var quietPeriod: Duration { state.withLock { $0.tracker.quietPeriod } }

    /// What to call once a save has settled.
    func setHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onSettled = handler }
    }

    /// Calls `body` at once when no save is in progress, else once it has settled (on the
    /// watcher's queue): listd never reads a file in the middle of a save, not even to check it
    /// before its own write.
    func whenSettled(_ body: @escaping @Sendable () -> Void) {
        let settled = state.withLock { state in
            if state.tracker.isSettled { return true }
            state.waiters.append(body)
            return false
        }
        if settled { body() }
    }

    /// Whether a person's save is under way: seen, not settled yet. Changes the kernel has
    /// reported already are taken first, so a save whose write returned before this call is
    /// seen. Call from outside the watcher's queue.
    func saveUnderway() -> Bool {
        inotify.withLock { $0 }?.deliverPending()
        return !state.withLock { $0.tracker.isSettled }
    }

    /// Makes the inotify instance and its watch (at start-up, before the file is first read, so
    /// that no save is missed in between; the kernel keeps the events until `run` reads them).
    func open() throws(DaemonError) {
        guard inotify.withLock({ $0 == nil }) else { return }
        do throws(Inotify.Error) {
            let instance = try Inotify(queue: queue) { [self] events in handle(events) }
            let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ONLYDIR)
            let directoryWatch = try instance.addWatch(path: directory, mask: mask)
            let destination = ListFileStorage(path: path).destination()
            if destination != path {
                let targetWatch = try instance.addWatch(path: directoryName(of: destination), mask: mask)
                watchedTarget.withLock { $0 = (targetWatch, String(destination.split(separator: "/").last ?? "")) }
            }
            inotify.withLock { $0 = instance }
            watchedDirectory.withLock { $0 = directoryWatch }
            watchFile()
        } catch {
            throw .cannotWatch(path: directory, detail: "\(error)")
        }
    }

    public func run() async throws {
        try open()
        guard let inotify = self.inotify.withLock({ $0 }) else { return }
        inotify.start()
        logger.debug("watching \(directory) for changes to \(fileName)")
        try? await gracefulShutdown()
        inotify.stop()
    }

    private func handle(_ events: [InotifyEvent]) {
        var observed: [SettleTracker.Event] = []
        let directoryWatch = watchedDirectory.withLock { $0 }
        let target = watchedTarget.withLock { $0 }
        for event in events {
            // The list file's own name, in its directory or (a symlink's) its target's.
            let isListFile =
                (event.watch == directoryWatch && event.name == fileName)
                || (event.watch == target?.watch && event.name == target?.name)
            if isListFile, event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                // A new file under the name (an editor's rename, or listd's): watch its writes.
                watchFile()
            }
            if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                // Events were lost; listd always reads the whole file, so reading it is enough.
                logger.warning("the inotify queue overflowed; re-reading the list file in full")
                observed.append(.overflowed)
            } else if event.mask & UInt32(IN_MOVED_FROM) != 0, FileIO.isTemporaryName(event.name) {
                // listd's own write is a rename from its temp file; the rename onto the list file
                // that carries the same cookie is not a person's save.
                ownRenames.withLock { _ = $0.insert(event.cookie) }
            } else if event.mask & UInt32(IN_MOVED_TO) != 0, ownRenames.withLock({ $0.remove(event.cookie) != nil }) {
                continue
            } else if event.watch != directoryWatch, event.watch != target?.watch {
                // The file's own watch: only IN_MODIFY is asked for (IN_IGNORED when it goes).
                if event.mask & UInt32(IN_MODIFY) != 0 { observed.append(.written) }
            } else if isListFile {
                let completes = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
                observed.append(event.mask & completes != 0 ? .completed : .written)
            }
        }
        guard !observed.isEmpty else { return }
        var actions: [SettleTracker.Action] = []
        state.withLock { state in
            let now = ContinuousClock.now
            if state.burstStart == nil { state.burstStart = now }
            state.burstEvents += observed.count
            state.burstEnd = now
            for event in observed { actions.append(state.tracker.record(event, at: now)) }
        }
        actions.forEach(perform)
    }

    private func perform(_ action: SettleTracker.Action) {
        switch action {
        case .none:
            return
        case .checkAt(let instant):
            // A strict timer without leeway: the quiet period is what a save waits, and a
            // default timer may fire some milliseconds late.
            let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
            timer.schedule(
                deadline: .now() + dispatchInterval(ContinuousClock.now.duration(to: instant)),
                leeway: .nanoseconds(0)
            )
            timer.setEventHandler { [self] in
                timer.cancel()
                perform(state.withLock { $0.tracker.check(at: .now) })
            }
            timer.resume()
        case .read:
            let (handler, waiters, burst) = state.withLock { state in
                defer {
                    state.waiters = []
                    state.burstStart = nil
                    state.burstEvents = 0
                }
                return (state.onSettled, state.waiters, (state.burstStart, state.burstEnd, state.burstEvents))
            }
            if let start = burst.0, let end = burst.1 {
                // How long the save itself took, first event to last: what the quiet period must cover.
                logger.debug("list file settled", metadata: ["events": "\(burst.2)", "save_span": "\(end - start)"])
            }
            handler?()
            for waiter in waiters { waiter() }
        }
    }
}

func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
    let (seconds, attoseconds) = duration.components
    return .nanoseconds(max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
}
