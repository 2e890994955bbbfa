// SIGTERM and SIGINT, read by a thread of listd-web's own (sigwait) rather than by a
// libdispatch signal source: listd-web starts no libdispatch worker pool, whose monitor aborts
// the process when it cannot open a file (a flood of connections that took every descriptor).
import Foundation
import Glibc

enum StopSignals {
    static let signals = [SIGTERM, SIGINT]

    /// Blocks the signals in this thread and every thread started after (call first in main).
    static func block() {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
    }

    /// Calls `stop` from a thread of its own each time one of the signals arrives.
    static func wait(_ stop: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            var mask = sigset_t()
            sigemptyset(&mask)
            for signal in signals { sigaddset(&mask, signal) }
            while true {
                var received: Int32 = 0
                if sigwait(&mask, &received) == 0 { stop(received) }
            }
        }
    }
}
