import Dispatch
import Glibc
import Synchronization

/// An inotify instance: owns the descriptor, adds watches, and delivers events on a dispatch
/// queue as the kernel makes them readable (no polling).
public final class Inotify: @unchecked Sendable {
    /// A failed system call, with the errno it returned.
    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        public var call: String
        public var errno: Int32
        public var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    private let descriptor: Int32
    private let source: any DispatchSourceRead

    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`; `handler` runs on `queue` with every batch of
    /// events read.
    public init(queue: DispatchQueue, handler: @escaping @Sendable ([InotifyEvent]) -> Void) throws(Error) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw Error(call: "inotify_init1", errno: errno) }
        descriptor = fd
        self.queue = queue
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let drain: @Sendable () -> Void = {
            // Large enough for many events; one event needs at most 16 + NAME_MAX + 1 bytes.
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    handler(InotifyEvent.parse(buffer[..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return  // EAGAIN: drained
                }
            }
        }
        self.drain = drain
        source.setEventHandler(handler: drain)
        source.setCancelHandler { close(fd) }
    }

    private let queue: DispatchQueue
    private let drain: @Sendable () -> Void

    /// Delivers the events the kernel has queued now, before returning (on the queue, as always):
    /// a caller that must not overtake a change already made asks for this first. Cheap when
    /// there are none (one `poll`). Call from outside the queue.
    public func deliverPending() {
        let running = lifecycle.withLock { $0.started && !$0.stopped }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard running, poll(&poller, 1, 0) > 0 else { return }
        queue.sync(execute: drain)
    }

    /// `inotify_add_watch`; returns the watch descriptor.
    @discardableResult
    public func addWatch(path: String, mask: UInt32) throws(Error) -> Int32 {
        let watch = inotify_add_watch(descriptor, path, mask)
        guard watch >= 0 else { throw Error(call: "inotify_add_watch(\(path))", errno: errno) }
        return watch
    }

    /// Whether the source was started, and stopped: each happens once.
    private let lifecycle = Mutex((started: false, stopped: false))

    /// Starts delivering events (those the kernel queued since the watch was added come first).
    public func start() {
        let first = lifecycle.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        if first { source.resume() }
    }

    /// Stops delivery and closes the descriptor.
    public func stop() {
        let first = lifecycle.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { source.cancel() }
    }

    deinit {
        // A dispatch source must not be released suspended: resume it, then cancel.
        start()
        stop()
    }
}
