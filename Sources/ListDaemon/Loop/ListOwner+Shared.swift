// What sharing the lists (`--share`) adds to the owner: fetching the changes other machines
// committed, and the fetch a denial waits for.
import ListCore
import ListModel

extension ListOwner {
    /// Fetches what other machines committed, when some may have and nothing of this listd's
    /// is on its way to the store (an append refused as behind brings them along anyway).
    func fetchRemoteIfDue() {
        loop.assertInEventLoop()
        guard let share, remoteDue, !fetching, !appending, appendDue == nil, core.canTakeRemote else { return }
        remoteDue = false
        fetching = true
        // The edits held for a fetch so far are decided again once this fetch is taken in.
        let forDenials = denialFetchDue
        denialFetchDue = false
        handle(.fetchBegan(forDenials: forDenials))
        share.changes(after: core.durable.revision, on: loop).whenComplete { result in
            self.fetching = false
            switch result {
            case .success(let remote):
                self.handle(.fetched(remote, forDenials: forDenials))
            case .failure(let error):
                // The connection is being made again, and wakes this when it is back; the edits
                // waiting for the fetch are denied as edits are while the server is gone.
                self.handle(.fetchFailed(.unavailable("\(error)"), forDenials: forDenials))
            }
            self.schedulePass()
        }
    }
}
