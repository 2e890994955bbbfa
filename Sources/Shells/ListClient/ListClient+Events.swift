// What listd tells a client unasked: changes (as an AsyncSequence or to handlers), refused saves,
// and the questions it puts to a delegate.
import ListModel
import ListRPC
import ListRPCTransport
import NIOCore
import NIOPosix
import Synchronization

extension ListClient {
    /// Subscribes to change notifications; returns the snapshot they continue from.
    ///
    /// - Parameters:
    ///   - events: only these notifications (nil: the changes and `didRejectFileEdit`).
    ///   - lists: only changes to these lists (nil: every list).
    ///   - since: resume: listd first sends every change after this revision (as notifications,
    ///     in order), then the live ones. Denied with `historyCompacted` when it no longer keeps
    ///     them all: fetch the lists again then.
    ///   - instance: with `since`, the `instance` of the reply that revision came from: a
    ///     different state is refused with `instanceChanged`.
    ///   - origin: only changes made by others (`.others`), or by this client's author (`.mine`:
    ///     the same user and `hello` name).
    ///   - steps: only changes with a step of one of these kinds (`.add`, `.check`, …).
    public func subscribe(
        events: [ListEventName]? = nil,
        lists: [ListReference]? = nil,
        since: Revision? = nil,
        instance: String? = nil,
        origin: OriginFilter? = nil,
        steps: [ListChange.Step.Kind]? = nil
    ) async throws(ListClientError) -> ListsSnapshot {
        try await call(
            Subscribe.self,
            .init(
                events: events?.map(\.rawValue),
                lists: lists,
                since: since,
                instance: instance,
                origin: origin?.rawValue,
                steps: steps?.map(\.rawValue)
            )
        )
    }

    /// Stops the subscription: no more change notifications on this connection.
    public func unsubscribe() async throws(ListClientError) {
        _ = try await call(Unsubscribe.self, NoParams())
    }

    /// Every change notification received from now on: the sequence ends when the connection is
    /// closed by this side (`close()`, or the end of `withConnection`), and throws the reason
    /// (`ListClientError.connectionClosed`, or what listd said) when it ends otherwise. To
    /// resume across disconnects by itself, use `ListClient.follow(socketPath:name:)`.
    public func changes() -> AsyncThrowingStream<ListEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ListEvent.self)
        let closed = state.withLock { state in
            if state.closed { return true }
            state.changeStreams[state.nextStreamID] = continuation
            state.nextStreamID += 1
            return false
        }
        if closed { continuation.finish(throwing: ListClientError.connectionClosed) }
        return stream
    }

    /// Every change notification received from now on, until the connection closes (however it
    /// closes: `changes()` tells a disconnect from a close).
    public func events() -> AsyncStream<ListEvent> {
        makeStream { state, continuation in state.streams[state.nextStreamID] = continuation }
    }

    /// Every change notification received from now on on a brief connection, until it closes.
    public func briefEvents() -> AsyncStream<(ListEventName, BriefChangeParams)> {
        makeStream { state, continuation in state.briefStreams[state.nextStreamID] = continuation }
    }

    /// Every `didRejectFileEdit` received from now on: what a person's save of the list file had
    /// that listd could not take.
    public func fileRejections() -> AsyncStream<FileRejectionParams> {
        makeStream { state, continuation in state.rejectionStreams[state.nextStreamID] = continuation }
    }

    /// A stream that `register` files in the state; finished at once when the connection is gone.
    func makeStream<Element>(
        _ register: (inout State, AsyncStream<Element>.Continuation) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let closed = state.withLock { state in
            if state.closed { return true }
            register(&state, continuation)
            state.nextStreamID += 1
            return false
        }
        if closed { continuation.finish() }
        return stream
    }

    /// Calls `handler` for every `didRejectFileEdit`.
    public func onFileRejection(_ handler: @escaping @Sendable (FileRejectionParams) -> Void) {
        state.withLock { $0.rejectionHandlers.append(handler) }
    }

    /// Calls `handler` for every change notification named `name` (every one when nil).
    public func on(_ name: ListEventName? = nil, _ handler: @escaping EventHandler) {
        state.withLock { $0.handlers.append((name, handler)) }
    }

    func setDelegate(_ delegate: (any ListDelegate)?) {
        state.withLock { $0.delegate = delegate }
    }

    /// Answers a question from listd with the registered delegate (each in its own task, so a
    /// slow answer does not hold up the connection).
    func answer(_ question: DelegateQuestion, _ params: DelegateQuestionParams?, id: RPCRequestID) {
        let delegate = state.withLock { $0.delegate }
        let outbound = self.outbound
        Task {
            let answer: DelegateAnswer
            if let delegate, let params {
                answer = await delegate.answer(question, params)
            } else {
                answer = DelegateAnswer(allow: true)
            }
            guard let line = try? RPCOutgoing.result(id: id, answer) else { return }
            try? await outbound.write(line)
        }
    }
}
