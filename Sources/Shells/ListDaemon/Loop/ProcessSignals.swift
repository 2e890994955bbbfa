import CLinux
import Glibc
import ListCore
import NIOCore
import NIOPosix

/// The signals listd acts on, read from a `signalfd` on an event loop like a socket
/// (`ReadableDescriptor`) instead of by Dispatch sources: no thread or queue of their own.
///
/// A signalfd only hears signals that no thread takes: `blockInEveryThread` must run first
/// thing in `main`, before any thread exists (threads inherit the mask). Until `start` hands the
/// descriptor a handler, a signal stays pending; `stopByDefault` lets one that must stop the
/// process before it serves do what it did before it was blocked.
package final class ProcessSignals: Sendable {
    /// The signal numbers (SIGTERM, SIGINT, SIGHUP, …).
    package let signals: [Int32]
    private let descriptor: Int32

    /// Blocks `signals` in the calling thread and every thread it starts from now on.
    package static func blockInEveryThread(_ signals: [Int32]) {
        var mask = Self.mask(signals)
        pthread_sigmask(SIG_BLOCK, &mask, nil)
    }

    /// A signalfd for `signals` (blocked already: `blockInEveryThread`).
    package init(_ signals: [Int32]) throws(DaemonError) {
        self.signals = signals
        var mask = Self.mask(signals)
        let fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw .cannotWatchSignals(errno: errno) }
        descriptor = fd
    }

    /// Reads the signals on `loop`: `handler` runs there with each one's number, in the order
    /// they came (one of a kind while it is pending: the kernel merges repeats).
    package func start(on loop: any EventLoop, handler: @escaping @Sendable (Int32) -> Void) -> EventLoopFuture<Void> {
        // `struct signalfd_siginfo` is 128 bytes, `ssi_signo` its first field.
        let record = 128
        return loop.flatSubmit {
            ReadableDescriptor.register(
                self.descriptor,
                on: loop,
                bufferSize: record * 16,
                read: { buffer in
                    var buffer = buffer
                    while buffer.readableBytes >= record,
                        let number = buffer.getInteger(at: buffer.readerIndex, endianness: .little, as: UInt32.self)
                    {
                        buffer.moveReaderIndex(forwardBy: record)
                        handler(Int32(number))
                    }
                },
                // A signalfd read fails only on a bad buffer; there is nothing to retry.
                failed: { _ in }
            ).map { _ in }
        }
    }

    /// The default action of `signal` (SIGTERM: the process ends by it), as if it had never been
    /// blocked: for a signal that comes before listd serves.
    package static func stopByDefault(_ signal: Int32) -> Never {
        Glibc.signal(signal, SIG_DFL)
        var mask = Self.mask([signal])
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        raise(signal)
        exit(128 + signal)
    }

    private static func mask(_ signals: [Int32]) -> sigset_t {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        return mask
    }

    deinit { close(descriptor) }
}
