import Foundation
import ListFileFormat
import ListModel
import ListRPC
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The sole owner of the lists. Every edit, whatever its source, goes through `edit`, is checked
/// by the model, made durable, and only then confirmed and announced to subscribers.
///
/// Edits are queued and applied by one loop (`run`), so they are serialised without an actor's
/// reentrancy; edits that queue up while the file is being written are written together (one
/// fsync for many confirms). Reads and subscriptions take a lock on the committed state, and
/// fan-out happens under that same lock: a subscriber's snapshot and the notifications after it
/// can neither miss nor repeat a revision.
public final class ListStore: Service, Sendable {
    /// Why the store did not apply an edit.
    public enum EditFailure: Error, Sendable {
        case denied(ListError)
        case storageFailed(String)
        case shuttingDown
    }

    /// What a subscriber wants to hear.
    struct Subscription: Sendable {
        var outbox: Outbox
        var events: Set<ListEventName>
        /// nil: every list.
        var lists: Set<ListID>?
    }

    private struct State {
        var book: ListBook
        var subscribers: [Int: Subscription] = [:]
    }

    private struct PendingEdit: Sendable {
        var edit: ListEdit
        var ifRevision: Revision?
        var origin: ChangeOrigin
        var continuation: CheckedContinuation<Result<ShoppingList, EditFailure>, Never>
    }

    private let state: Mutex<State>
    private let pending = Mutex<(edits: [PendingEdit], accepting: Bool)>(([], true))
    private let wakeStream: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let fileStore: ListFileStore
    private let logger: Logger

    /// Loads the list file (creating it when missing).
    public init(filePath: String, logger: Logger) throws(DaemonError) {
        self.fileStore = ListFileStore(path: filePath)
        self.logger = logger
        self.state = Mutex(State(book: try fileStore.load()))
        (wakeStream, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: Reads

    public var snapshot: ListsSnapshot {
        state.withLock { ListsSnapshot(revision: $0.book.revision, lists: $0.book.lists) }
    }

    public func list(_ reference: ListReference) throws(ListError) -> ShoppingList {
        let book = state.withLock { $0.book }
        return try book.list(reference)
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    // MARK: Subscriptions

    /// Registers (or replaces) a connection's subscription and returns the snapshot it starts
    /// from. Notifications for later revisions go to `outbox` from then on.
    func subscribe(
        connection: Int,
        outbox: Outbox,
        events: Set<ListEventName>,
        lists: [ListReference]?
    ) throws(ListError) -> ListsSnapshot {
        try state.withLock { state throws(ListError) in
            let ids = try lists.map { references throws(ListError) in
                Set(try references.map { reference throws(ListError) in try state.book.list(reference).id })
            }
            state.subscribers[connection] = Subscription(outbox: outbox, events: events, lists: ids)
            return ListsSnapshot(revision: state.book.revision, lists: state.book.lists)
        }
    }

    func unsubscribe(connection: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: connection) }
    }

    // MARK: Edits

    /// Applies `edit` once it is durable, or says why not.
    ///
    /// - Returns: the list after the edit (for a delete, as it was before).
    public func edit(
        _ edit: ListEdit,
        ifRevision: Revision? = nil,
        origin: ChangeOrigin
    ) async -> Result<ShoppingList, EditFailure> {
        await withCheckedContinuation { continuation in
            let accepted = pending.withLock { pending in
                guard pending.accepting else { return false }
                pending.edits.append(PendingEdit(edit: edit, ifRevision: ifRevision, origin: origin, continuation: continuation))
                return true
            }
            if accepted {
                wake.yield()
            } else {
                continuation.resume(returning: .failure(.shuttingDown))
            }
        }
    }

    public func run() async throws {
        for await _ in wakeStream.cancelOnGracefulShutdown() {
            await applyPending()
        }
        // Shutting down: finish every edit already accepted, refuse the rest.
        pending.withLock { $0.accepting = false }
        await applyPending()
    }

    private func applyPending() async {
        while true {
            let batch = pending.withLock { pending in
                defer { pending.edits.removeAll() }
                return pending.edits
            }
            if batch.isEmpty { return }
            await apply(batch)
        }
    }

    private func apply(_ batch: [PendingEdit]) async {
        var book = state.withLock { $0.book }
        let now = Timestamp.now()
        var outcomes: [Result<ShoppingList, EditFailure>] = []
        var changes: [ListChange] = []
        for proposal in batch {
            do throws(ListError) {
                if let change = try book.apply(proposal.edit, ifRevision: proposal.ifRevision, at: now, origin: proposal.origin) {
                    changes.append(change)
                    outcomes.append(.success(change.list))
                } else {
                    // Valid but changes nothing: confirm with the list as it is.
                    outcomes.append(.success(try book.list(proposal.edit.target!)))
                }
            } catch {
                outcomes.append(.failure(.denied(error)))
                log(denial: error, of: proposal)
            }
        }

        if !changes.isEmpty {
            let fileStore = self.fileStore
            let bookToSave = book
            do {
                try await NIOThreadPool.singleton.runIfActive { try fileStore.save(bookToSave) }
            } catch {
                logger.error("could not save the list file; \(changes.count) change(s) not applied", metadata: ["error": "\(error)"])
                for (index, outcome) in outcomes.enumerated() {
                    if case .success = outcome {
                        outcomes[index] = .failure(.storageFailed("\(error)"))
                    }
                }
                for (index, proposal) in batch.enumerated() { proposal.continuation.resume(returning: outcomes[index]) }
                return
            }
            state.withLock { state in
                state.book = book
                for change in changes { Self.broadcast(change, to: state.subscribers) }
            }
            for change in changes { log(change) }
        }
        for (index, proposal) in batch.enumerated() {
            proposal.continuation.resume(returning: outcomes[index])
        }
    }

    /// Encodes the notification once and hands the same bytes to every interested subscriber.
    private static func broadcast(_ change: ListChange, to subscribers: [Int: Subscription]) {
        guard !subscribers.isEmpty else { return }
        let name = ListEventName(change.kind)
        var bytes: ByteBuffer?
        for subscription in subscribers.values {
            guard subscription.events.contains(name) else { continue }
            if let lists = subscription.lists, !lists.contains(change.list.id) { continue }
            if bytes == nil {
                var data = (try? RPCEncoding.request(id: nil, method: name.rawValue, params: ListChangeParams(change))) ?? Data()
                data.append(UInt8(ascii: "\n"))
                bytes = ByteBuffer(bytes: data)
            }
            subscription.outbox.sendNotification(bytes!)
        }
    }

    // MARK: Journal

    private func log(_ change: ListChange) {
        var metadata = Self.metadata(change.origin)
        metadata["list_id"] = "\(change.list.id)"
        metadata["list_name"] = "\(change.list.name)"
        metadata["revision"] = "\(change.revision)"
        var summary: String
        switch change.kind {
        case .created: summary = "created list “\(change.list.name)”"
        case .deleted: summary = "deleted list “\(change.list.name)”"
        case .renamed, .updated: summary = "changed list “\(change.list.name)”"
        }
        for step in change.steps {
            switch step {
            case .add(let item):
                metadata["item"] = "\(item)"
                summary = "added “\(item)” to \(change.list.name)"
            case .remove(let item):
                metadata["item"] = "\(item)"
                summary = "removed “\(item)” from \(change.list.name)"
            case .replace(let item, let with):
                metadata["item"] = "\(item)"
                metadata["replacement"] = "\(with)"
                summary = "replaced “\(item)” with “\(with)” on \(change.list.name)"
            case .rename(let from, let to):
                summary = "renamed list “\(from)” to “\(to)”"
            }
        }
        logger.info("\(summary) (revision \(change.revision), by \(change.origin))", metadata: metadata)
    }

    private func log(denial: ListError, of proposal: PendingEdit) {
        var metadata = Self.metadata(proposal.origin)
        metadata["reason"] = "\(denial.reason)"
        switch proposal.edit {
        case .addItem(let item, _, _), .removeItem(let item, _), .replaceItem(let item, _, _):
            metadata["item"] = "\(item)"
        default: break
        }
        if let target = proposal.edit.target {
            switch target {
            case .id(let id): metadata["list_id"] = "\(id)"
            case .name(let name): metadata["list_name"] = "\(name)"
            }
        }
        logger.notice("denied: \(denial.message) (by \(proposal.origin))", metadata: metadata)
    }

    private static func metadata(_ origin: ChangeOrigin) -> Logger.Metadata {
        switch origin {
        case .client(let pid, let uid, let name):
            var metadata: Logger.Metadata = ["origin": "client", "client_pid": "\(pid)", "client_uid": "\(uid)"]
            if let name { metadata["client_name"] = "\(name)" }
            return metadata
        case .file:
            return ["origin": "file"]
        }
    }
}
