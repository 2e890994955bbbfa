// The delegates as the core decides about them: who is asked which questions, how each
// question ends (an answer, an error, a timeout, a connection gone), the verdict of all who were
// asked, and when a delegate that keeps not answering stops being asked. Pure: the delegate
// shell (`DelegateRegistry`) sends the questions, runs their timers and reports back.
import ListModel

package struct DelegatePanel: Sendable {
    /// Its thresholds (`delegateStrikeLimit`, `questionsOutPerDelegate`).
    let limits: CoreLimits

    package init(limits: CoreLimits = .standard) {
        self.limits = limits
    }

    /// One registered delegate, by its connection.
    package struct Seat: Sendable, Equatable {
        package var connection: Int
        package var name: String
        package var pid: Int32
        /// Its connection is brief: questions carry the list without its items.
        package var brief = false
        package var interest: DelegateInterest
        package var timeout: Duration
        package var onTimeout: TimeoutVerdict
        /// Timeouts in a row, a burst of them counting once.
        package internal(set) var strikes = 0
        /// The last question sent (by `sends`) when the last strike was counted: a question sent
        /// by then was out during that timeout, and timing out too it is the same burst.
        var strikeFence = 0

        package init(connection: Int, name: String, pid: Int32, brief: Bool = false, interest: DelegateInterest, timeout: Duration, onTimeout: TimeoutVerdict) {
            self.connection = connection
            self.name = name
            self.pid = pid
            self.brief = brief
            self.interest = interest
            self.timeout = timeout
            self.onTimeout = onTimeout
        }
    }

    /// How one delegate's question ended, as the shell saw it.
    package enum Reply: Sendable, Equatable {
        case answered(DelegateAnswer)
        /// An error saying the delegate has no such method: one written before the question
        /// existed, which has no say about it.
        case methodNotFound
        /// The connection ended before an answer came.
        case unanswered
        /// The delegate answered, but with an error or with what is not an answer (`why` says
        /// which, in words): its `onTimeout` decides, and a deny names it so, not as a timeout.
        case failed(why: String)
        case timedOut
    }

    /// A question to put to one delegate (`CoreAction.putQuestion`).
    package struct Put: Sendable {
        package var id: String
        /// Who waits for the verdict.
        var asker: Asker
        package var seat: Seat
        package var question: DelegateQuestion
        package var params: DelegateQuestionParams
    }

    /// What a reply, or a delegate leaving, brings about.
    struct Outcome: Sendable {
        /// Verdicts now complete: every delegate asked has answered or is out of time.
        var verdicts: [(Asker, DelegateVerdict)] = []
        /// A delegate no longer asked (`strikeLimit` timeouts in a row).
        var dropped: Seat?
        /// Questions that ended without their timer firing (to cancel).
        var ended: [String] = []
        /// Questions whose turn came (a question out to their delegate ended): to send now.
        var puts: [Put] = []
    }

    private struct Consultation: Sendable {
        var asker: Asker
        var unanswered: Int
        var verdict: DelegateVerdict
    }

    private(set) var seats: [Int: Seat] = [:]
    /// Per delegate (by connection): how many of its questions are out, and those waiting their
    /// turn, oldest first.
    private var outCount: [Int: Int] = [:]
    private var waiting: [Int: [Put]] = [:]
    /// Questions out, by id: to whom, for which consultation.
    private var questions: [String: (connection: Int, name: String, onTimeout: TimeoutVerdict, consultation: Int)] = [:]
    /// Questions sent, counted; and when each question out was sent (its number).
    private var sends = 0
    private var sentAs: [String: Int] = [:]
    private var consultations: [Int: Consultation] = [:]
    private var nextQuestion = 1
    private var nextConsultation = 1

    var isEmpty: Bool { seats.isEmpty }

    /// Whether some delegate wants `question` about `list` (or, for a create, `name`): the one
    /// place this is decided; an edit no delegate wants is decided by the rules alone.
    func wants(_ question: DelegateQuestion, list: ListID?, name: String?) -> Bool {
        guard !seats.isEmpty else { return false }
        let nameKey = name.map(ListText.key)
        return seats.values.contains { $0.interest.wants(question, list: list, nameKey: nameKey) }
    }

    /// A delegate registers (again: its last registration is replaced, its strikes forgotten).
    mutating func seat(_ seat: Seat) {
        seats[seat.connection] = seat
    }

    /// `connection` is a delegate, or one it was asked is still out (else its end changes nothing
    /// here: a closed client connection costs the owner no pass).
    package func involves(_ connection: Int) -> Bool {
        seats[connection] != nil || questions.values.contains { $0.connection == connection }
    }

    /// `connection`'s delegate unregisters or its connection ends: its questions out end now
    /// (as unanswered: its `onTimeout` decides), nobody waits out their timeouts.
    mutating func unseat(_ connection: Int) -> Outcome {
        seats[connection] = nil
        var outcome = Outcome()
        endWaiting(connection, into: &outcome)
        for (id, question) in questions.sorted(by: { $0.key < $1.key }) where question.connection == connection {
            outcome.ended.append(id)
            reply(id, .unanswered, into: &outcome)
        }
        return outcome
    }

    /// Puts `question` to every delegate that wants it, at once unless it has
    /// `questionsOutPerDelegate` out already (then when its turn comes: `Outcome.puts`); the
    /// verdict comes with the last reply. Empty when none wants it, or when each must wait.
    mutating func ask(
        _ asker: Asker,
        _ question: DelegateQuestion,
        _ params: DelegateQuestionParams,
        list: ListID?,
        name: String?
    ) -> [Put] {
        consult(asker, question, params, list: list, name: name)?.puts ?? []
    }

    /// `ask`, telling apart none wanting it (nil) from every delegate that does having to wait.
    mutating func consult(
        _ asker: Asker,
        _ question: DelegateQuestion,
        _ params: DelegateQuestionParams,
        list: ListID?,
        name: String?
    ) -> (puts: [Put], waiting: Bool)? {
        let nameKey = name.map(ListText.key)
        let asked = seats.keys.sorted().compactMap { seats[$0] }.filter {
            $0.interest.wants(question, list: list, nameKey: nameKey)
        }
        guard !asked.isEmpty else { return nil }
        let consultation = nextConsultation
        nextConsultation += 1
        consultations[consultation] = Consultation(
            asker: asker,
            unanswered: asked.count,
            verdict: DelegateVerdict(consulted: true)
        )
        let puts = asked.compactMap { seat -> Put? in
            let id = "listd-\(nextQuestion)"
            nextQuestion += 1
            questions[id] = (seat.connection, seat.name, seat.onTimeout, consultation)
            let put = Put(id: id, asker: asker, seat: seat, question: question, params: params)
            guard outCount[seat.connection, default: 0] < limits.questionsOutPerDelegate else {
                waiting[seat.connection, default: []].append(put)
                return nil
            }
            outCount[seat.connection, default: 0] += 1
            sent(put.id)
            return put
        }
        return (puts, puts.count < asked.count)
    }

    /// Sends `connection`'s waiting questions while it has room for them.
    private mutating func sendWaiting(_ connection: Int, into outcome: inout Outcome) {
        while outCount[connection, default: 0] < limits.questionsOutPerDelegate, var queue = waiting[connection], !queue.isEmpty {
            let put = queue.removeFirst()
            waiting[connection] = queue.isEmpty ? nil : queue
            outCount[connection, default: 0] += 1
            sent(put.id)
            outcome.puts.append(put)
        }
    }

    /// Ends `connection`'s questions that were never sent (it left, or is no longer asked): as
    /// unanswered, its `onTimeout` decides them.
    private mutating func endWaiting(_ connection: Int, into outcome: inout Outcome) {
        for put in waiting.removeValue(forKey: connection) ?? [] {
            guard let question = questions.removeValue(forKey: put.id) else { continue }
            tally(question, .unanswered, into: &outcome)
        }
    }

    private mutating func sent(_ id: String) {
        sends += 1
        sentAs[id] = sends
    }

    /// Whether `id` names a question out (a response with another id is no answer of ours).
    package func isOut(_ id: String) -> Bool { questions[id] != nil }

    /// Question `id` ended as `reply` says.
    mutating func replied(_ id: String, _ reply: Reply) -> Outcome {
        var outcome = Outcome()
        if reply != .timedOut, questions[id] != nil { outcome.ended.append(id) }
        self.reply(id, reply, into: &outcome)
        return outcome
    }

    private mutating func reply(_ id: String, _ reply: Reply, into outcome: inout Outcome) {
        guard let question = questions.removeValue(forKey: id) else { return }
        let sentAs = self.sentAs.removeValue(forKey: id) ?? 0
        let connection = question.connection
        outCount[connection, default: 1] -= 1
        if outCount[connection] == 0 { outCount[connection] = nil }
        if var seat = seats[connection] {
            // Questions out together that time out together (a clear's, when the delegate was
            // busy) are one strike: a burst is one failure to keep up, not three.
            if reply != .timedOut {
                seat.strikes = 0
            } else if sentAs > seat.strikeFence {
                seat.strikes += 1
                seat.strikeFence = sends
            }
            seats[connection] = seat
            if seat.strikes >= limits.delegateStrikeLimit {
                seats[connection] = nil
                outcome.dropped = seat
            }
        }
        tally(question, reply, into: &outcome)
        if seats[connection] != nil { sendWaiting(connection, into: &outcome) } else { endWaiting(connection, into: &outcome) }
    }

    /// Counts `reply` in its consultation; the verdict once every delegate asked is done.
    private mutating func tally(
        _ question: (connection: Int, name: String, onTimeout: TimeoutVerdict, consultation: Int),
        _ reply: Reply,
        into outcome: inout Outcome
    ) {
        guard var consultation = consultations[question.consultation] else { return }
        switch reply {
        case .answered(let answer) where !answer.allow:
            consultation.verdict.denied = true
            consultation.verdict.denials.append(
                DelegateDenial(delegate: question.name, reason: answer.reason ?? "no reason given")
            )
        case .answered, .methodNotFound:
            break
        case .failed(let why):
            if question.onTimeout == .deny {
                consultation.verdict.denied = true
                consultation.verdict.denials.append(
                    DelegateDenial(delegate: question.name, reason: "\(why), so its onTimeout (deny) decided")
                )
            }
        case .timedOut, .unanswered:
            consultation.verdict.timedOut.append(question.name)
            if question.onTimeout == .deny { consultation.verdict.denied = true }
        }
        consultation.unanswered -= 1
        guard consultation.unanswered == 0 else {
            consultations[question.consultation] = consultation
            return
        }
        consultations[question.consultation] = nil
        var verdict = consultation.verdict
        verdict.denials.sort { $0.delegate < $1.delegate }
        verdict.timedOut.sort()
        outcome.verdicts.append((consultation.asker, verdict))
    }
}

extension DelegatePanel.Seat {
    /// What a delegate that asked for a seat is given: the seat, and the questions (in its order)
    /// and timeout it is told.
    package struct Granted: Sendable {
        package var seat: DelegatePanel.Seat
        package var questions: [DelegateQuestion]
        package var timeoutMs: Int
    }

    /// Why a seat is not given: a sentence, and the field it is about (the shell answers the
    /// request with both).
    package struct Refused: Error, Sendable, Equatable {
        package var message: String
        package var field: String
    }

    /// The seat a delegate asks for (`registerDelegate`'s fields), with the defaults and bounds
    /// of `limits`; or why it cannot be given. `book`: the lists as they are, for the lists it
    /// names.
    package static func registering(
        name: String,
        questions: [DelegateQuestion]?,
        lists: [ListReference]?,
        timeoutMs: Int?,
        onTimeout: TimeoutVerdict?,
        connection: Int,
        pid: Int32,
        brief: Bool,
        on book: ListBook,
        limits: CoreLimits
    ) -> Result<Granted, Refused> {
        guard case .success(let name) = ListText.validated(name) else {
            return .failure(Refused(message: "“name” must be one line of text: it names the delegate in every denial.", field: "name"))
        }
        let longest = Int(limits.longestDelegateTimeout / .milliseconds(1))
        let timeoutMs = timeoutMs ?? Int(limits.defaultDelegateTimeout / .milliseconds(1))
        guard (1...longest).contains(timeoutMs) else {
            return .failure(Refused(message: "“timeoutMs” must be between 1 and \(longest).", field: "timeoutMs"))
        }
        // Lists named are kept by name too: one created later under that name is asked about.
        var ids: Set<ListID>?
        var names: Set<String> = []
        if let lists {
            ids = []
            for reference in lists {
                if case .name(let name) = reference { names.insert(ListText.key(name)) }
                if let list = try? book.list(reference) { ids!.insert(list.id) }
            }
        }
        let questions = questions ?? DelegateQuestion.allCases
        // A delegate that does not say is taken to allow what it could not answer in time: a
        // slow delegate delays edits, it does not block them.
        let onTimeout = onTimeout ?? .allow
        let seat = Self(
            connection: connection,
            name: name,
            pid: pid,
            brief: brief,
            interest: DelegateInterest(questions: Set(questions), lists: ids, listNames: names),
            timeout: .milliseconds(timeoutMs),
            onTimeout: onTimeout
        )
        return .success(Granted(seat: seat, questions: questions, timeoutMs: timeoutMs))
    }
}
