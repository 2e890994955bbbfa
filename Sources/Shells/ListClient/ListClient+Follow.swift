// Following the lists across disconnects: a sequence that reconnects by itself and resumes from
// the last revision it saw, so a long-lived program neither misses nor repeats a change.
import ListClientCore
import ListModel
import ListRPC

/// What `ListClient.follow` yields.
public enum ListUpdate: Sendable {
    /// The lists as they are: first, and again when listd could not resume where it left off
    /// (it keeps no longer the changes since, or it serves another state): start over from it.
    case snapshot(ListsSnapshot)
    /// A change, in revision order: exactly once, across disconnects and listd's restarts.
    case change(ListEvent)
    /// The connection was lost (listd stopped, say); the sequence reconnects and resumes by itself.
    case disconnected(ListClientError)
}

extension ListClient {
    /// The lists and every change to them, across disconnects: reconnects (after `retryDelay`,
    /// doubling up to 5 s) and resumes with `subscribe {since, instance}` from the last
    /// revision it yielded. Throws only when the first connection cannot be made (a wrong
    /// socket path is said at once); ends when the consuming task is cancelled.
    ///
    /// ```swift
    /// for try await update in ListClient.follow(socketPath: path, name: "fridge") {
    ///     switch update {
    ///     case .snapshot(let snapshot): lists = snapshot.lists
    ///     case .change(let event): apply(event)
    ///     case .disconnected: showOffline()
    ///     }
    /// }
    /// ```
    public static func follow(
        socketPath: String,
        name: String? = nil,
        events: [ListEventName]? = nil,
        lists: [ListReference]? = nil,
        retryDelay: Duration = .milliseconds(250)
    ) -> AsyncThrowingStream<ListUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ListUpdate.self)
        let follower = Task {
            let place = FollowPlace()
            var delay = retryDelay
            while !Task.isCancelled {
                do {
                    try await withConnection(socketPath: socketPath, name: name, isolation: nil) { client in
                        place.connectedOnce = true
                        try await follow(client, from: place, events: events, lists: lists, into: continuation)
                    }
                    delay = retryDelay
                } catch {
                    if Task.isCancelled { break }
                    let reason = error as? ListClientError ?? .connectionClosed
                    guard place.connectedOnce else { return continuation.finish(throwing: reason) }
                    if place.heardSince { delay = retryDelay }
                    continuation.yield(.disconnected(reason))
                }
                place.heardSince = false
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in follower.cancel() }
        return stream
    }

    /// Subscribes on `client` from where `place` says, and yields what comes until the
    /// connection ends.
    private static func follow(
        _ client: ListClient,
        from place: FollowPlace,
        events: [ListEventName]?,
        lists: [ListReference]?,
        into continuation: AsyncThrowingStream<ListUpdate, any Error>.Continuation
    ) async throws {
        let changes = client.changes()
        var resumed: ListsSnapshot?
        do {
            resumed = try await client.subscribe(events: events, lists: lists, since: place.since, instance: place.instance)
        } catch {
            guard case .denied(let denial) = error, [DenialReason.historyCompacted, .instanceChanged].contains(denial.reason) else { throw error }
            // Not resumable: start over from a fresh snapshot.
            place.since = nil
        }
        let snapshot: ListsSnapshot
        if let resumed { snapshot = resumed } else { snapshot = try await client.subscribe(events: events, lists: lists) }
        place.heardSince = true
        if place.since == nil {
            continuation.yield(.snapshot(snapshot))
            place.since = snapshot.revision
        }
        place.instance = snapshot.instance
        for try await event in changes {
            place.since = max(place.since ?? 0, event.revision)
            continuation.yield(.change(event))
        }
    }
}

/// Where a follower is: the last revision it yielded and the state it belongs to.
private final class FollowPlace {
    var since: Revision?
    var instance: String?
    var connectedOnce = false
    /// Subscribed since the last disconnect (the retry delay starts over).
    var heardSince = false
}
