// The core's side of delegation: a question put to the delegates that want it, and the events
// that end questions (a reply, a timeout, a delegate leaving), which `DelegatePanel` turns into
// verdicts for the edits that wait for them.
import ListModel

extension ListCore {
    /// Puts `question` to the delegates that want it (the caller checked that some do).
    mutating func ask(
        _ asker: Asker,
        _ question: DelegateQuestion,
        _ params: DelegateQuestionParams,
        list: ListID?,
        name: String?
    ) -> [CoreAction] {
        // None wants it: decided as if allowed, once the event at hand is (`handle`).
        guard let asked = panel.consult(asker, question, params, list: list, name: name) else {
            unasked.append(asker)
            return []
        }
        return asked.puts.map(CoreAction.putQuestion)
    }

    /// A delegate registers (`registerDelegate`).
    mutating func delegateRegistered(_ seat: DelegatePanel.Seat) {
        panel.seat(seat)
    }

    /// `connection`'s delegate unregisters, or its connection ended: its open questions are
    /// settled now by its `onTimeout`.
    mutating func delegateGone(_ connection: Int, at time: Timestamp) -> [CoreAction] {
        conclude(panel.unseat(connection), at: time)
    }

    /// Question `id` ended as `reply` says (an answer, an error, its timer).
    mutating func delegateReplied(_ id: String, _ reply: DelegatePanel.Reply, at time: Timestamp) -> [CoreAction] {
        conclude(panel.replied(id, reply), at: time)
    }

    private mutating func conclude(_ outcome: DelegatePanel.Outcome, at time: Timestamp) -> [CoreAction] {
        var actions = outcome.ended.map(CoreAction.endQuestion)
        if let dropped = outcome.dropped { actions.append(.dropDelegate(dropped)) }
        actions += outcome.puts.map(CoreAction.putQuestion)
        for (asker, verdict) in outcome.verdicts {
            actions += answered(asker, verdict, at: time)
        }
        return actions
    }
}
