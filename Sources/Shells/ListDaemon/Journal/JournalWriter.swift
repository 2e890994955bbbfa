// The journal off the owner's path: the owner hands over its passes' entries together, at most
// every 10 ms (after their replies are written), and they are formatted and written here, on a
// thread of their own — one write(2) for stderr's lines (`StderrLines.batch`); journald takes
// one datagram per entry.
import ListCore
import Logging
import NIOCore
import NIOPosix

/// Writes the journal's entries on its own thread, a pass's worth at a time, in the order they
/// were handed over.
final class JournalWriter: Sendable {
    private let entries: JournalEntries
    private let lines: StderrLines
    /// One thread: batches are written in the order they come.
    private let thread: NIOThreadPool

    /// - Parameters:
    ///   - output: where the entries go (stderr's lines are batched per pass, with whatever else
    ///     listd logs to `lines` meanwhile).
    ///   - level: entries below it are not made.
    ///   - keptIn: where the lists are safe while the list file cannot be written.
    init(output: JournalOutput, level: Logger.Level, keptIn: String = "the change log", lines: StderrLines = .shared) {
        entries = JournalEntries(output: output, level: level, keptIn: keptIn)
        self.lines = lines
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    /// Writes `batch` after every batch handed over before it.
    func write(_ batch: [JournalEntry]) {
        thread.submit { [entries, lines] _ in
            // Also when the pool is stopping (`.cancelled`): these lines are still owed.
            lines.batch {
                for entry in batch { entries.write(entry) }
            }
        }
    }

    /// Completes once every batch handed over before this call is written (a stop waits for it).
    func written(on loop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = loop.makePromise(of: Void.self)
        thread.submit { _ in promise.succeed() }
        return promise.futureResult
    }
}
