// The asynchronous client of listd on SwiftNIO: a connection, its calls and what it reads.
// `import ListClient` is all a program needs: the model and the protocol's types come with it.
@_exported import ListClientCore
@_exported import ListModel
@_exported import ListRPC
import ListRPCTransport
import NIOCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A connection to listd: one async method per request, change events as an `AsyncSequence`
/// and through closure handlers.
///
/// For a piece of work, scoped:
///
/// ```swift
/// try await ListClient.withConnection(socketPath: path, name: "shopper") { client in
///     client.on(.didUpdateShoppingList) { event in print(event.list.items) }
///     _ = try await client.subscribe()
///     _ = try await client.addItem("milk", to: "Groceries")
/// }
/// ```
///
/// For an object that lives as long as a view model: `connect(socketPath:name:brief:)`, then
/// `close()`. Both work from any actor, the main actor included.
public final class ListClient: Sendable {
    /// What `on(_:_:)` calls with each change notification.
    public typealias EventHandler = @Sendable (ListEvent) -> Void

    struct State {
        var nextID: Int64 = 1
        var waiting: [RPCRequestID: EventLoopPromise<Result<JSONValue, RPCError>>] = [:]
        var closed = false
        var handlers: [(name: ListEventName?, handler: EventHandler)] = []
        var streams: [Int: AsyncStream<ListEvent>.Continuation] = [:]
        var changeStreams: [Int: AsyncThrowingStream<ListEvent, any Error>.Continuation] = [:]
        /// This side is closing the connection: `changes()` ends without an error.
        var closing = false
        var briefStreams: [Int: AsyncStream<(ListEventName, BriefChangeParams)>.Continuation] = [:]
        var rejectionHandlers: [@Sendable (FileRejectionParams) -> Void] = []
        var delegate: (any ListDelegate)?
        var rejectionStreams: [Int: AsyncStream<FileRejectionParams>.Continuation] = [:]
        var nextStreamID = 0
        /// An error listd sent for the connection itself (not refused, too many connections…),
        /// just before it closed it: what pending calls fail with.
        var connectionError: RPCError?
    }

    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let eventLoop: any EventLoop
    let state = Mutex(State())
    /// For a connection made by `connect`: asked to close, and the task that holds it open.
    let lifetime = Mutex(Lifetime())

    struct Lifetime {
        var closeAsked = false
        var waiting: CheckedContinuation<Void, Never>?
        var holder: Task<Void, Never>?
    }

    private init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, eventLoop: any EventLoop) {
        self.outbound = outbound
        self.eventLoop = eventLoop
    }

    /// Connects, says `hello`, runs `body` with the client, and closes the connection when
    /// `body` returns. The hello marks the connection as a client that stays: listd lets go of one
    /// that never said it and sends nothing for a minute (`--idle-ms`), however long `body` runs.
    ///
    /// - Parameters:
    ///   - socketPath: listd's socket (`$XDG_RUNTIME_DIR/listd/listd.sock` by default).
    ///   - name: shown in the origin of every change this client makes.
    ///   - brief: nothing received grows with a list's length: edits are confirmed with a
    ///     `ListSummary` (decode them with `batch(_:_:decoding:)`), and changes come through
    ///     `briefEvents()` (the list without its items, each step with its place).
    ///   - isolation: where `body` runs: the caller's actor (the main actor, say), so that it
    ///     may touch that actor's state.
    ///   - body: the work to do with the connection; it is closed when `body` returns or throws.
    public static func withConnection<Result>(
        socketPath: String,
        name: String? = nil,
        brief: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ListClient) async throws -> sending Result
    ) async throws -> sending Result {
        try await withConnection(socketPath: socketPath, name: name, brief: brief, rights: nil, isolation: isolation, body)
    }

    static func withConnection<Result>(
        socketPath: String,
        name: String?,
        brief: Bool,
        rights: [String]?,
        isolation: isolated (any Actor)?,
        _ body: (ListClient) async throws -> sending Result
    ) async throws -> sending Result {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ListdConnection.open(socketPath: socketPath)
        } catch {
            throw ListClientError.cannotConnect(socketPath: socketPath, detail: error.detail)
        }
        let eventLoop = channel.channel.eventLoop
        return try await channel.executeThenClose { inbound, outbound in
            let client = ListClient(outbound: outbound, eventLoop: eventLoop)
            let reader = Task { await client.read(inbound) }
            defer { reader.cancel() }
            _ = try await client.call(Hello.self, .init(name: name, brief: brief ? true : nil, rights: rights))
            defer { client.state.withLock { $0.closing = true } }
            return try await body(client)
        }
    }

    /// Connects and says `hello`; the connection stays open until `close()` (or until listd
    /// goes: calls then fail with `connectionClosed`). For a client that lives as long as an
    /// object does, a SwiftUI view model say; `withConnection` closes it for you.
    public static func connect(socketPath: String, name: String? = nil, brief: Bool = false) async throws(ListClientError) -> ListClient {
        try await connect(socketPath: socketPath, name: name, brief: brief, rights: nil)
    }

    /// `connect`, declaring what the connection may change (`hello`'s `rights`: listd-web's
    /// tasks apps change items only).
    package static func connect(socketPath: String, name: String?, brief: Bool = false, rights: [String]?) async throws(ListClientError) -> ListClient {
        let handed = HandedOut()
        let outcome: Result<ListClient, ListClientError> = await withCheckedContinuation { ready in
            handed.holder = Task {
                do {
                    try await withConnection(socketPath: socketPath, name: name, brief: brief, rights: rights, isolation: nil) { client in
                        handed.mark()
                        ready.resume(returning: .success(client))
                        await client.untilCloseAsked()
                    }
                } catch {
                    // Before the client was handed out: connecting or saying hello failed.
                    if !handed.isMarked {
                        ready.resume(returning: .failure(error as? ListClientError ?? .connectionClosed))
                    }
                }
            }
        }
        let client = try outcome.get()
        client.lifetime.withLock { $0.holder = handed.holder }
        return client
    }

    /// Closes a connection made by `connect`, once what was sent is written; calls waiting for a
    /// reply then fail with `connectionClosed`. Closing twice does nothing.
    public func close() async {
        state.withLock { $0.closing = true }
        letGo()
        // Closed once the task that holds it open has closed the channel.
        await lifetime.withLock { $0.holder }?.value
    }

    /// Tells the task holding a `connect`ed connection open to let go of it (close asked, or the
    /// connection ended).
    private func letGo() {
        let waiting = lifetime.withLock { lifetime in
            lifetime.closeAsked = true
            defer { lifetime.waiting = nil }
            return lifetime.waiting
        }
        waiting?.resume()
    }

    /// Returns once `close()` is asked (or the connection ended), or at once if it was.
    private func untilCloseAsked() async {
        await withCheckedContinuation { continuation in
            let asked = lifetime.withLock { lifetime in
                if lifetime.closeAsked { return true }
                lifetime.waiting = continuation
                return false
            }
            if asked { continuation.resume() }
        }
    }

    // MARK: Calls

    /// Sends one request and waits for its reply.
    public func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params) async throws(ListClientError) -> M.Result {
        try await call(M.self) { id in try RPCOutgoing.request(id: id, method: M.name, params: params) }
    }

    /// An edit made away from listd (an offline queue, sent once the network is back): with the
    /// client's own `editId` (sent again after a lost reply, it is applied once) and the revision
    /// its lists had when it was made (`basedOn`: what others did since stands; an edit of an item
    /// they changed or removed is denied `changedMeanwhile`). See docs/protocol.md.
    public func call<M: RPCMethod>(
        _ method: M.Type,
        _ params: M.Params,
        editId: String,
        basedOn: Revision?
    ) async throws(ListClientError) -> M.Result {
        try await call(M.self) { id in
            let said = try EditProvenance(editId: editId, basedOn: basedOn).params(params)
            return try RPCOutgoing.request(id: id, method: M.name, params: said)
        }
    }

    /// Sends the request line `encode` makes for an id, and waits for its reply.
    private func call<M: RPCMethod>(
        _ method: M.Type,
        encoding encode: (RPCRequestID) throws -> ByteBuffer
    ) async throws(ListClientError) -> M.Result {
        let id = nextID()
        let reply: Result<JSONValue, RPCError>
        do {
            reply = try await send(try encode(id), awaiting: [id])[0]
        } catch let error as ListClientError {
            throw error
        } catch {
            throw .invalidReply("\(error)")
        }
        return try decodeReply(M.Result.self, reply)
    }

    /// Sends one JSON-RPC batch of the same method and returns each element's outcome, in order.
    public func batch<M: RPCMethod>(
        _ method: M.Type,
        _ params: [M.Params]
    ) async throws(ListClientError) -> [Result<M.Result, ListClientError>] {
        try await batch(method, params, decoding: M.Result.self)
    }

    /// The same, each result decoded as `result` (a brief connection's `ListSummary`). More
    /// requests than listd takes in one batch go as several, one after the other.
    public func batch<M: RPCMethod, R: Decodable>(
        _ method: M.Type,
        _ params: [M.Params],
        decoding result: R.Type
    ) async throws(ListClientError) -> [Result<R, ListClientError>] {
        var results: [Result<R, ListClientError>] = []
        var size = RPCLine.Limits.default.maximumBatch
        var start = 0
        while start < params.count {
            let chunk = Array(params[start..<min(start + size, params.count)])
            do throws(ListClientError) {
                results += try await oneBatch(method, chunk, decoding: result)
                start += chunk.count
            } catch .protocolError(let error) where error.maximumBatch.map({ $0 < chunk.count }) == true {
                // A listd that takes fewer at once refused it whole (nothing of it was done).
                size = error.maximumBatch!
            }
        }
        return results
    }

    private func oneBatch<M: RPCMethod, R: Decodable>(
        _ method: M.Type,
        _ params: [M.Params],
        decoding result: R.Type
    ) async throws(ListClientError) -> [Result<R, ListClientError>] {
        guard !params.isEmpty else { return [] }
        let ids = params.map { _ in nextID() }
        let replies: [Result<JSONValue, RPCError>]
        do {
            let elements = try zip(ids, params).map { try RPCOutgoing.request(id: $0, method: M.name, params: $1) }
            replies = try await send(RPCOutgoing.batch(elements), awaiting: ids)
        } catch let error as ListClientError {
            throw error
        } catch {
            throw .invalidReply("\(error)")
        }
        return replies.map { reply in
            do throws(ListClientError) {
                return .success(try decodeReply(R.self, reply))
            } catch {
                return .failure(error)
            }
        }
    }

    private func nextID() -> RPCRequestID {
        state.withLock { state in
            defer { state.nextID += 1 }
            return .number(state.nextID)
        }
    }

    /// Writes `line` and waits for the replies with `ids`.
    private func send(_ line: ByteBuffer, awaiting ids: [RPCRequestID]) async throws -> [Result<JSONValue, RPCError>] {
        // Register every reply before writing, so no reply can arrive unclaimed.
        let promises = ids.map { _ in eventLoop.makePromise(of: Result<JSONValue, RPCError>.self) }
        let closed = state.withLock { state in
            if state.closed { return true }
            for (id, promise) in zip(ids, promises) { state.waiting[id] = promise }
            return false
        }
        if closed {
            let error = closingError
            for promise in promises { promise.fail(error) }
            throw error
        }
        do {
            try await outbound.write(line)
        } catch {
            // listd closed the connection; the line it sent first (why) may still be on its way
            // to the reader, which fails every call with it. Give it a moment, then fail anyway.
            try? await Task.sleep(for: .milliseconds(100))
            failAll(with: closingError)
        }
        var replies: [Result<JSONValue, RPCError>] = []
        for promise in promises { replies.append(try await promise.futureResult.get()) }
        return replies
    }

    // MARK: Reading

    private func read(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>) async {
        do {
            for try await line in inbound {
                switch RPCLine.parse(line.readableBytesView) {
                case .empty: continue
                case .single(let message): deliver(message)
                case .batch(let messages): messages.forEach(deliver)
                }
            }
        } catch {}
        failAll(with: closingError)
    }

    /// What calls fail with once the connection is gone: listd's reason when it sent one.
    private var closingError: ListClientError {
        state.withLock { $0.connectionError }.map { .protocolError($0) } ?? .connectionClosed
    }

    private func deliver(_ message: Result<RPCMessage, RPCLine.InvalidMessage>) {
        switch message {
        case .success(.response(let response)):
            guard let id = response.id, id != .null else {
                // An error naming no request: a line listd could not take. Which call it was
                // cannot be told, and its reply will never come: every waiting call fails with
                // it rather than wait forever.
                if case .failure(let error) = response.outcome {
                    let waiting = state.withLock { state in
                        state.connectionError = error
                        defer { state.waiting = [:] }
                        return Array(state.waiting.values)
                    }
                    for continuation in waiting { continuation.fail(ListClientError.protocolError(error)) }
                }
                return
            }
            let continuation = state.withLock { $0.waiting.removeValue(forKey: id) }
            continuation?.succeed(response.outcome)
        case .success(.request(let request)):
            switch ListdMessage(request) {
            case .question(let question, let params, let id):
                answer(question, params, id: id)
            case .fileRejection(let params):
                let (handlers, streams) = state.withLock { ($0.rejectionHandlers, Array($0.rejectionStreams.values)) }
                for handler in handlers { handler(params) }
                for stream in streams { stream.yield(params) }
            case .event(let event):
                let (handlers, streams, changeStreams) = state.withLock {
                    ($0.handlers, Array($0.streams.values), Array($0.changeStreams.values))
                }
                for entry in handlers where entry.name == nil || entry.name == event.name { entry.handler(event) }
                for stream in streams { stream.yield(event) }
                for stream in changeStreams { stream.yield(event) }
            case .briefEvent(let name, let params):
                for stream in state.withLock({ Array($0.briefStreams.values) }) { stream.yield((name, params)) }
            case .delegateDropped, .denial, .delegatesChanged, nil:
                break
            }
        case .failure(let invalid):
            // A reply listd could not even frame: fail the request it names, if any.
            if let id = invalid.id {
                let continuation = state.withLock { $0.waiting.removeValue(forKey: id) }
                continuation?.succeed(.failure(invalid.error))
            }
        }
    }

    private func failAll(with error: ListClientError) {
        let (waiting, streams, changes, closing) = state.withLock { state in
            state.closed = true
            defer {
                state.waiting = [:]
                state.streams = [:]
                state.rejectionStreams = [:]
                state.briefStreams = [:]
                state.changeStreams = [:]
            }
            return (
                Array(state.waiting.values),
                (Array(state.streams.values), Array(state.rejectionStreams.values), Array(state.briefStreams.values)),
                Array(state.changeStreams.values),
                state.closing
            )
        }
        for promise in waiting { promise.fail(error) }
        for stream in changes { closing ? stream.finish() : stream.finish(throwing: error) }
        // A connection made by `connect` that listd ended: its holder lets go of it too.
        letGo()
        for stream in streams.0 { stream.finish() }
        for stream in streams.1 { stream.finish() }
        for stream in streams.2 { stream.finish() }
    }
}

/// Whether `connect` handed its client out (after that, the holder's errors are the connection's
/// end, not a failure to connect).
private final class HandedOut: Sendable {
    private let state = Mutex<(marked: Bool, holder: Task<Void, Never>?)>((false, nil))
    func mark() { state.withLock { $0.marked = true } }
    var isMarked: Bool { state.withLock { $0.marked } }
    /// The task that holds the connection open.
    var holder: Task<Void, Never>? {
        get { state.withLock { $0.holder } }
        set { state.withLock { $0.holder = newValue } }
    }
}
