import Synchronization

/// One async lock per key, granted in the order asked: edits to the same list wait, in order,
/// behind the one being vetted, while edits to other lists go on.
final class KeyedFIFOLock<Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let entries = Mutex<[Key: Entry]>([:])

    func acquire(_ key: Key) async {
        await withCheckedContinuation { continuation in
            let granted = entries.withLock { entries in
                if entries[key] == nil {
                    entries[key] = Entry()
                    return true
                }
                entries[key]!.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release(_ key: Key) {
        let next = entries.withLock { entries -> CheckedContinuation<Void, Never>? in
            guard var entry = entries[key] else { return nil }
            if entry.waiters.isEmpty {
                entries.removeValue(forKey: key)
                return nil
            }
            let next = entry.waiters.removeFirst()
            entries[key] = entry
            return next
        }
        next?.resume()
    }
}
