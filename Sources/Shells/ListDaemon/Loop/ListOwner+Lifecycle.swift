// The owner's reload (SIGHUP) and stop, and how they wait: on conditions of the core, checked at
// the end of every pass (nothing polls).
import ListCore
import NIOCore
import ServiceLifecycle

extension ListOwner {
    /// Reads the list file again from scratch (SIGHUP) and returns once that is done, and what
    /// it brought is decided.
    package func reload() async {
        let done = loop.flatSubmit {
            self.handle(.reloadAsked)
            return self.whenTrue(\.fileTaken)
        }
        try? await done.get()
    }

    package func run() async throws {
        try? await gracefulShutdown()
        // Shutting down: refuse new edits, finish every one accepted (delegates are gone by now,
        // so each open question is settled by its delegate's onTimeout), then write the file. A
        // save still undecided stays in the file and is taken in at the next start.
        let quiet = loop.flatSubmit {
            self.handle(.stopping)
            return self.whenTrue(\.editsFinished)
        }
        try? await quiet.get()
        try? await loop.flatSubmit { self.writeFileNow() }.get()
        // What the stop journalled is written before listd exits.
        try? await loop.flatSubmit {
            self.handJournalOver()
            return self.journal.written(on: self.loop)
        }.get()
        // Every edit is durable by now: the shared store's connection ends cleanly, and its work
        // with it.
        await share?.stop()
    }

    /// Completes once `condition` holds of the core (checked at the end of every pass: the core
    /// says when it is quiescent; nothing polls).
    func whenTrue(_ condition: @escaping (ListCore) -> Bool) -> EventLoopFuture<Void> {
        loop.assertInEventLoop()
        if condition(core) { return loop.makeSucceededVoidFuture() }
        let promise = loop.makePromise(of: Void.self)
        waiters.append((condition, promise))
        schedulePass()
        return promise.futureResult
    }

    /// Once what is under way is durable, writes the list file if it lags behind the lists, then
    /// makes its note durable (start and stop: a restart knows the file by its note). Completes
    /// when all of it is done (or failed: the core retries a failed write later, as ever).
    func writeFileNow() -> EventLoopFuture<Void> {
        whenIdle().flatMap {
            self.handle(.fileWriteForced)
            return self.whenIdle()
        }.flatMap {
            self.handle(.fileNoteForced)
            return self.whenIdle()
        }
    }

    /// Completes once nothing is on its way to the log or the list file.
    func whenIdle() -> EventLoopFuture<Void> {
        whenTrue { [unowned self] core in
            appendDue == nil && core.idle
        }
    }
}
