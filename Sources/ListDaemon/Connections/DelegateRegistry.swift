import Foundation
import ListModel
import ListRPC
import Logging
import NIOCore

/// The delegate shell: the connections that asked to vet edits (multicast delegates), and the
/// questions out to them. Owned by the owner's loop: answers, timeouts (tasks scheduled on that
/// loop) and dropped connections all arrive there, in order, with no lock and no task. Held
/// weakly in effect: a delegate whose connection ends is dropped at once, and its questions in
/// flight are settled immediately by its `onTimeout`.
final class DelegateRegistry: @unchecked Sendable {
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
        /// Its connection is brief: questions carry the list without its items.
        var brief = false
        var questions: Set<DelegateQuestion>
        /// nil: every list.
        var lists: Set<ListID>?
        /// Name keys (from name references) that also match creates.
        var listNames: Set<String>
        var timeout: Duration
        var onTimeout: TimeoutVerdict
        var strikes = 0

        var interest: DelegateInterest { DelegateInterest(questions: questions, lists: lists, listNames: listNames) }

        func wants(_ question: DelegateQuestion, list: ListID?, nameKey: String?) -> Bool {
            interest.wants(question, list: list, nameKey: nameKey)
        }
    }

    /// How one delegate's question ended.
    enum Reply: Sendable {
        case answered(DelegateAnswer)
        case timedOut
        /// The connection ended, or the answer was an error or unreadable.
        case unanswered
    }

    /// One question to one delegate.
    private struct Question {
        var delegate: Delegate
        var consultation: Int
        var timeout: Scheduled<Void>
    }

    /// One edit put to every delegate that wants it: the verdict so far, and who has yet to answer.
    private struct Consultation {
        var unanswered: Int
        var verdict: DelegateVerdict
        var decided: (DelegateVerdict) -> Void
    }

    private let loop: any EventLoop
    private let logger: Logger
    private var delegates: [Int: Delegate] = [:]
    private var questions: [String: Question] = [:]
    private var consultations: [Int: Consultation] = [:]
    private var nextQuestion = 1
    private var nextConsultation = 1
    /// Told (on the loop) whenever a delegate comes or goes, with what they all want now.
    var onChange: ([DelegateInterest]) -> Void = { _ in }

    var interests: [DelegateInterest] { delegates.keys.sorted().compactMap { delegates[$0]?.interest } }

    init(loop: any EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    var isEmpty: Bool { delegates.isEmpty }

    func register(_ delegate: Delegate) {
        loop.assertInEventLoop()
        delegates[delegate.connection] = delegate
        onChange(interests)
        logger.info(
            "delegate “\(delegate.name)” registered (pid \(delegate.pid))",
            metadata: ["client_pid": "\(delegate.pid)"]
        )
    }

    /// Drops the connection's delegate; its questions in flight are settled now.
    func remove(connection: Int) {
        loop.assertInEventLoop()
        let removed = delegates.removeValue(forKey: connection)
        if removed != nil { onChange(interests) }
        for (id, question) in questions where question.delegate.connection == connection {
            settle(id, .unanswered)
        }
        if let removed { logger.info("delegate “\(removed.name)” gone (pid \(removed.pid))") }
    }

    /// Routes a response from a client; false when it answers no question of ours.
    @discardableResult
    func answer(_ response: RPCResponse) -> Bool {
        loop.assertInEventLoop()
        guard case .string(let id)? = response.id, questions[id] != nil else { return false }
        switch response.outcome {
        case .success(let value):
            if let answer = try? RPCEncoding.decode(DelegateAnswer.self, from: value) {
                settle(id, .answered(answer))
            } else {
                settle(id, .unanswered)
            }
        case .failure(let error) where error.code == -32601:
            // A delegate written before this question existed: it has no say, so it allows.
            settle(id, .answered(DelegateAnswer(allow: true)))
        case .failure:
            settle(id, .unanswered)
        }
        return true
    }

    /// Whether some delegate wants `question` about `list` (or, for a create, `name`).
    func wants(_ question: DelegateQuestion, list: ListID?, name: String?) -> Bool {
        guard !delegates.isEmpty else { return false }
        let nameKey = name.map(ListText.key)
        return delegates.values.contains { $0.wants(question, list: list, nameKey: nameKey) }
    }

    /// Asks every delegate that wants `question` about `list` (or, for a create, `name`), all at
    /// once; `decided` gets the verdict on this loop once each has answered or timed out.
    func ask(
        _ question: DelegateQuestion,
        _ params: DelegateQuestionParams,
        list: ListID?,
        name: String?,
        decided: @escaping (DelegateVerdict) -> Void
    ) {
        loop.assertInEventLoop()
        let nameKey = name.map(ListText.key)
        let asked = delegates.values.filter { $0.wants(question, list: list, nameKey: nameKey) }
        guard !asked.isEmpty else { return decided(.allowed) }
        let consultation = nextConsultation
        nextConsultation += 1
        var verdict = DelegateVerdict()
        verdict.consulted = true
        consultations[consultation] = Consultation(unanswered: asked.count, verdict: verdict, decided: decided)
        for delegate in asked {
            let id = "listd-\(nextQuestion)"
            nextQuestion += 1
            let encoded =
                delegate.brief
                ? try? RPCEncoding.request(id: .string(id), method: question.rawValue, params: BriefQuestionParams(params))
                : try? RPCEncoding.request(id: .string(id), method: question.rawValue, params: params)
            guard var bytes = encoded else {
                record(.unanswered, from: delegate, in: consultation)
                continue
            }
            bytes.append(UInt8(ascii: "\n"))
            let timeout = loop.scheduleTask(in: TimeAmount(delegate.timeout)) { [self] in settle(id, .timedOut) }
            questions[id] = Question(delegate: delegate, consultation: consultation, timeout: timeout)
            delegate.outbox.sendReply(ByteBuffer(bytes: bytes))
        }
    }

    private func settle(_ id: String, _ reply: Reply) {
        guard let question = questions.removeValue(forKey: id) else { return }
        question.timeout.cancel()
        recordStrike(question.delegate, timedOut: { if case .timedOut = reply { true } else { false } }())
        record(reply, from: question.delegate, in: question.consultation)
    }

    private func record(_ reply: Reply, from delegate: Delegate, in id: Int) {
        guard var consultation = consultations[id] else { return }
        switch reply {
        case .answered(let answer):
            if !answer.allow {
                consultation.verdict.denied = true
                consultation.verdict.denials.append(
                    DelegateDenial(delegate: delegate.name, reason: answer.reason ?? "no reason given")
                )
            }
        case .timedOut, .unanswered:
            consultation.verdict.timedOut.append(delegate.name)
            if delegate.onTimeout == .deny { consultation.verdict.denied = true }
        }
        consultation.unanswered -= 1
        guard consultation.unanswered == 0 else {
            consultations[id] = consultation
            return
        }
        consultations[id] = nil
        var verdict = consultation.verdict
        verdict.denials.sort { $0.delegate < $1.delegate }
        verdict.timedOut.sort()
        consultation.decided(verdict)
    }

    /// Three timeouts in a row and a delegate is no longer asked; it is told so.
    private func recordStrike(_ delegate: Delegate, timedOut: Bool) {
        guard var current = delegates[delegate.connection] else { return }
        current.strikes = timedOut ? current.strikes + 1 : 0
        guard current.strikes >= Self.strikeLimit else {
            delegates[delegate.connection] = current
            return
        }
        delegates.removeValue(forKey: delegate.connection)
        onChange(interests)
        logger.warning(
            "delegate “\(current.name)” (pid \(current.pid)) did not answer \(Self.strikeLimit) times in a row; it is no longer consulted",
            metadata: ["client_pid": "\(current.pid)", "reason": "delegateTimedOut"]
        )
        let params = DelegateDroppedParams(
            name: current.name,
            reason:
                "You did not answer \(Self.strikeLimit) questions in a row in time; listd no longer asks you. Register again to resume."
        )
        if var bytes = try? RPCEncoding.request(id: nil, method: DelegateDroppedParams.method, params: params) {
            bytes.append(UInt8(ascii: "\n"))
            current.outbox.sendReply(ByteBuffer(bytes: bytes))
        }
    }
}

extension TimeAmount {
    /// A Swift duration as NIO's (nanoseconds, rounded down).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
