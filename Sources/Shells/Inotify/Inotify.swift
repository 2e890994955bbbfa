import Glibc

/// An inotify instance: owns the descriptor, adds watches, and reads the events the kernel has
/// queued. It never waits and has no thread or queue of its own: its owner registers
/// `descriptor` with the event loop it already runs (listd: the owner's NIO loop), reads it when
/// it is readable and parses what it read with `InotifyEvent.parse`.
public final class Inotify: Sendable {
    /// A failed system call, with the errno it returned.
    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        public var call: String
        public var errno: Int32
        public var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    /// Non-blocking and close-on-exec; closed when this instance goes.
    public let descriptor: Int32

    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
    public init() throws(Error) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw Error(call: "inotify_init1", errno: errno) }
        descriptor = fd
    }

    /// `inotify_add_watch`; returns the watch descriptor.
    @discardableResult
    public func addWatch(path: String, mask: UInt32) throws(Error) -> Int32 {
        let watch = inotify_add_watch(descriptor, path, mask)
        guard watch >= 0 else { throw Error(call: "inotify_add_watch(\(path))", errno: errno) }
        return watch
    }

    deinit { close(descriptor) }
}
