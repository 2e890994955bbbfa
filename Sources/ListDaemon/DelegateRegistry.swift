import Foundation
import ListModel
import ListRPC
import Logging
import NIOCore
import Synchronization

/// The delegate shell: the connections that asked to vet edits (multicast delegates), and the
/// questions in flight to them. Held weakly in effect: a delegate whose connection ends is dropped at once, and its
/// questions in flight are settled immediately by its `onTimeout`.
final class DelegateRegistry: Sendable {
    /// How long a delegate has to answer when it does not say (`registerDelegate {timeoutMs}`).
    static let defaultTimeoutMs = 2_000
    /// The longest it may ask for.
    static let maximumTimeoutMs = 30_000
    /// Timeouts in a row after which a delegate is no longer consulted.
    static let strikeLimit = 3

    struct Delegate: Sendable {
        var connection: Int
        var name: String
        var pid: Int32
        var outbox: Outbox
        var questions: Set<DelegateQuestion>
        /// nil: every list.
        var lists: Set<ListID>?
        /// Name keys (from name references) that also match creates.
        var listNames: Set<String>
        var timeout: Duration
        var onTimeout: TimeoutVerdict
        var strikes = 0

        func wants(_ question: DelegateQuestion, list: ListID?, nameKey: String?) -> Bool {
            guard questions.contains(question) else { return false }
            guard let lists else { return true }
            if let list, lists.contains(list) { return true }
            if list == nil, let nameKey { return listNames.contains(nameKey) }
            return false
        }
    }

    /// How one delegate's question ended.
    enum Reply: Sendable {
        case answered(DelegateAnswer)
        case timedOut
        /// The connection ended, or the answer was an error or unreadable.
        case unanswered
    }

    private struct Question: Sendable {
        var connection: Int
        var continuation: CheckedContinuation<Reply, Never>
    }

    private struct State {
        var delegates: [Int: Delegate] = [:]
        var questions: [String: Question] = [:]
        var nextQuestion = 1
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    var isEmpty: Bool { state.withLock { $0.delegates.isEmpty } }

    func register(_ delegate: Delegate) {
        state.withLock { $0.delegates[delegate.connection] = delegate }
        logger.info(
            "delegate “\(delegate.name)” registered (pid \(delegate.pid))",
            metadata: ["client_pid": "\(delegate.pid)"]
        )
    }

    /// Drops the connection's delegate; its questions in flight are settled now.
    func remove(connection: Int) {
        let (removed, questions) = state.withLock { state in
            let removed = state.delegates.removeValue(forKey: connection)
            let ids = state.questions.filter { $0.value.connection == connection }.map(\.key)
            return (removed, ids.compactMap { state.questions.removeValue(forKey: $0) })
        }
        for question in questions { question.continuation.resume(returning: .unanswered) }
        if let removed { logger.info("delegate “\(removed.name)” gone (pid \(removed.pid))") }
    }

    /// Routes a response from a client; false when it answers no question of ours.
    func answer(_ response: RPCResponse) -> Bool {
        guard case .string(let id)? = response.id,
            let question = state.withLock({ $0.questions.removeValue(forKey: id) })
        else { return false }
        switch response.outcome {
        case .success(let value):
            if let answer = try? RPCEncoding.decode(DelegateAnswer.self, from: value) {
                question.continuation.resume(returning: .answered(answer))
            } else {
                question.continuation.resume(returning: .unanswered)
            }
        case .failure:
            question.continuation.resume(returning: .unanswered)
        }
        return true
    }

    /// Whether some delegate wants `question` about `list` (or, for a create, `name`).
    func wants(_ question: DelegateQuestion, list: ListID?, name: String?) -> Bool {
        state.withLock { state in
            !state.delegates.isEmpty
                && state.delegates.values.contains { $0.wants(question, list: list, nameKey: name.map(ListText.key)) }
        }
    }

    /// Asks every delegate that wants `question` about `list` (or, for a create, `name`), all at
    /// once, and waits for each answer or timeout.
    func ask(
        _ question: DelegateQuestion,
        _ params: DelegateQuestionParams,
        list: ListID?,
        name: String?
    ) async -> DelegateVerdict {
        let nameKey = name.map(ListText.key)
        let delegates = state.withLock { state in
            state.delegates.values.filter { $0.wants(question, list: list, nameKey: nameKey) }
        }
        guard !delegates.isEmpty else { return .allowed }
        var verdict = DelegateVerdict()
        verdict.consulted = true
        await withTaskGroup(of: (Delegate, Reply).self) { group in
            for delegate in delegates {
                group.addTask { (delegate, await self.ask(delegate, question, params)) }
            }
            for await (delegate, reply) in group {
                switch reply {
                case .answered(let answer):
                    if !answer.allow {
                        verdict.denied = true
                        verdict.denials.append(
                            DelegateDenial(delegate: delegate.name, reason: answer.reason ?? "no reason given")
                        )
                    }
                case .timedOut, .unanswered:
                    verdict.timedOut.append(delegate.name)
                    if delegate.onTimeout == .deny { verdict.denied = true }
                }
            }
        }
        verdict.denials.sort { $0.delegate < $1.delegate }
        verdict.timedOut.sort()
        return verdict
    }

    private func ask(
        _ delegate: Delegate,
        _ question: DelegateQuestion,
        _ params: DelegateQuestionParams
    ) async -> Reply {
        let id = state.withLock { state in
            defer { state.nextQuestion += 1 }
            return "listd-\(state.nextQuestion)"
        }
        guard var bytes = try? RPCEncoding.request(id: .string(id), method: question.rawValue, params: params) else {
            return .unanswered
        }
        bytes.append(UInt8(ascii: "\n"))
        let timer = Task {
            try? await Task.sleep(for: delegate.timeout)
            if !Task.isCancelled { self.settle(id, .timedOut) }
        }
        let reply = await withCheckedContinuation { continuation in
            let stillThere = state.withLock { state in
                guard state.delegates[delegate.connection] != nil else { return false }
                state.questions[id] = Question(connection: delegate.connection, continuation: continuation)
                return true
            }
            if stillThere {
                delegate.outbox.sendReply(ByteBuffer(bytes: bytes))
            } else {
                continuation.resume(returning: .unanswered)
            }
        }
        timer.cancel()
        recordStrike(delegate, timedOut: { if case .timedOut = reply { return true } else { return false } }())
        return reply
    }

    private func settle(_ id: String, _ reply: Reply) {
        let question = state.withLock { $0.questions.removeValue(forKey: id) }
        question?.continuation.resume(returning: reply)
    }

    /// Three timeouts in a row and a delegate is no longer asked; it is told so.
    private func recordStrike(_ delegate: Delegate, timedOut: Bool) {
        let dropped = state.withLock { state -> Delegate? in
            guard var current = state.delegates[delegate.connection] else { return nil }
            current.strikes = timedOut ? current.strikes + 1 : 0
            if current.strikes >= Self.strikeLimit {
                state.delegates.removeValue(forKey: delegate.connection)
                return current
            }
            state.delegates[delegate.connection] = current
            return nil
        }
        guard let dropped else { return }
        logger.warning(
            "delegate “\(dropped.name)” (pid \(dropped.pid)) did not answer \(Self.strikeLimit) times in a row; it is no longer consulted",
            metadata: ["client_pid": "\(dropped.pid)", "reason": "delegateTimedOut"]
        )
        let params = DelegateDroppedParams(
            name: dropped.name,
            reason:
                "You did not answer \(Self.strikeLimit) questions in a row in time; listd no longer asks you. Register again to resume."
        )
        if var bytes = try? RPCEncoding.request(id: nil, method: DelegateDroppedParams.method, params: params) {
            bytes.append(UInt8(ascii: "\n"))
            dropped.outbox.sendReply(ByteBuffer(bytes: bytes))
        }
    }
}
