// The owner's side of the store: it carries out the appends and fetches the core asks for and
// reports how they ended. When each runs is the core's decision (`ListCore+Store`).
import ListCore
import ListModel

extension ListOwner {
    /// Makes the batch the core sent durable, and tells the core how that ended.
    func append(_ entries: [LogEntry]) {
        persistence.append(entries, on: loop).whenComplete { result in
            switch result {
            case .success:
                self.handle(.appended(compactionDue: self.persistence.compactionDue))
            case .failure(let behind as AppendBehind):
                self.handle(.appendBehind(behind.remote))
            case .failure(let doubt as AppendInDoubt):
                self.handle(.appendFailed(doubt.failure, inDoubt: doubt.revision))
                self.share?.wasMade(doubt, on: self.loop).whenSuccess { made in
                    self.handle(.inDoubtResolved(doubt.revision, made: made))
                }
            case .failure(let error):
                let failure =
                    error as? DaemonError
                    ?? .changeLogFailed(path: "the change log", step: "append: \(error)", errno: 0)
                self.handle(.appendFailed(failure, inDoubt: nil))
            }
        }
    }

    /// Fetches what other machines committed after `revision` (`--share`), and hands it to the
    /// core. A failure means the connection is being made again: its wake-up fetches anew.
    func fetchRemote(after revision: Revision) {
        guard let share else { return }
        share.changes(after: revision, on: loop).whenComplete { result in
            switch result {
            case .success(let remote): self.handle(.fetched(remote))
            case .failure(let error): self.handle(.fetchFailed(.unavailable("\(error)")))
            }
        }
    }
}
