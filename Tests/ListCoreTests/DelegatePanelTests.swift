import ListModel
import ListRPC
import Testing

@testable import ListCore

/// The delegates' rules without sockets or timers: who is asked, what a timeout, an error or a
/// connection gone means, and when a delegate stops being asked.
@Suite struct DelegatePanelTests {
    static let params = DelegateQuestionParams(
        .addItem("eggs", to: .id(1)),
        list: nil,
        origin: .client(pid: 1, uid: 1, name: "test"),
        revision: 1
    )

    static func seat(_ connection: Int, _ name: String, onTimeout: TimeoutVerdict = .allow, lists: Set<ListID>? = nil) -> DelegatePanel.Seat {
        DelegatePanel.Seat(
            connection: connection,
            name: name,
            pid: Int32(connection),
            interest: DelegateInterest(questions: [.shouldAdd], lists: lists, listNames: []),
            timeout: .seconds(2),
            onTimeout: onTimeout
        )
    }

    @Test func onlyTheDelegatesThatWantAQuestionAreAskedAndTheVerdictWaitsForAll() {
        var panel = DelegatePanel()
        panel.seat(Self.seat(1, "pantry"))
        panel.seat(Self.seat(2, "budget", lists: [7]))
        #expect(panel.wants(.shouldAdd, list: 1, name: nil))
        #expect(!panel.wants(.shouldRemove, list: 1, name: nil))
        let puts = panel.ask(.proposal(1), .shouldAdd, Self.params, list: 7, name: nil)
        #expect(puts.map(\.seat.name) == ["pantry", "budget"])
        let first = panel.replied(puts[1].id, .answered(DelegateAnswer(allow: false, reason: "over budget")))
        #expect(first.verdicts.isEmpty, "pantry has not answered")
        #expect(first.ended == [puts[1].id], "its timer is cancelled")
        let last = panel.replied(puts[0].id, .answered(DelegateAnswer(allow: true)))
        #expect(last.verdicts.count == 1)
        let verdict = last.verdicts[0].1
        #expect(last.verdicts[0].0 == .proposal(1))
        #expect(verdict.denied && verdict.consulted)
        #expect(verdict.denials == [DelegateDenial(delegate: "budget", reason: "over budget")])
    }

    @Test func aTimeoutIsDecidedByTheDelegatesOwnPolicyAndAMissingMethodAllows() {
        var panel = DelegatePanel()
        panel.seat(Self.seat(1, "lenient"))
        panel.seat(Self.seat(2, "strict", onTimeout: .deny))
        var puts = panel.ask(.proposal(1), .shouldAdd, Self.params, list: 1, name: nil)
        _ = panel.replied(puts[0].id, .timedOut)
        var verdict = panel.replied(puts[1].id, .methodNotFound).verdicts[0].1
        #expect(!verdict.denied, "the lenient one's timeout allows; a delegate without the method has no say")
        #expect(verdict.timedOut == ["lenient"])

        puts = panel.ask(.proposal(2), .shouldAdd, Self.params, list: 1, name: nil)
        _ = panel.replied(puts[0].id, .answered(DelegateAnswer(allow: true)))
        verdict = panel.replied(puts[1].id, .unanswered).verdicts[0].1
        #expect(verdict.denied, "the strict one's silence denies")
        #expect(verdict.timedOut == ["strict"])
    }

    @Test func threeTimeoutsInARowDropADelegateAndAnAnswerResetsTheCount() {
        var panel = DelegatePanel()
        panel.seat(Self.seat(1, "sleepy"))
        func ask(_ id: Int) -> String { panel.ask(.proposal(id), .shouldAdd, Self.params, list: 1, name: nil)[0].id }
        _ = panel.replied(ask(1), .timedOut)
        _ = panel.replied(ask(2), .timedOut)
        _ = panel.replied(ask(3), .answered(DelegateAnswer(allow: true)))
        _ = panel.replied(ask(4), .timedOut)
        #expect(panel.replied(ask(5), .timedOut).dropped == nil, "two in a row since the answer")
        let third = panel.replied(ask(6), .timedOut)
        #expect(third.dropped?.name == "sleepy")
        #expect(third.verdicts.count == 1, "the question it missed is still decided")
        #expect(!panel.wants(.shouldAdd, list: 1, name: nil), "no longer asked")
    }

    @Test func aDelegateThatLeavesSettlesItsQuestionsAtOnce() {
        var panel = DelegatePanel()
        panel.seat(Self.seat(1, "strict", onTimeout: .deny))
        let put = panel.ask(.saveEdit(save: 1, index: 0), .shouldAdd, Self.params, list: 1, name: nil)[0]
        #expect(panel.isOut(put.id))
        #expect(panel.involves(1))
        #expect(!panel.involves(2), "a connection that is no delegate: its end needs no pass")
        let outcome = panel.unseat(1)
        #expect(outcome.ended == [put.id], "its timer is cancelled: nobody waits it out")
        #expect(outcome.verdicts.map(\.0) == [.saveEdit(save: 1, index: 0)])
        #expect(outcome.verdicts[0].1.denied, "settled by its onTimeout")
        #expect(!panel.isOut(put.id))
        #expect(!panel.involves(1))
        #expect(panel.replied(put.id, .answered(DelegateAnswer(allow: true))).verdicts.isEmpty, "a late answer counts for nothing")
    }

    /// Issue 46, case 10: at most `questionsOutPerDelegate` questions are out to one delegate;
    /// the rest go as answers come, each then timed from its sending; a delegate that leaves
    /// settles those never sent too.
    @Test func questionsToOneDelegateGoAFewAtATime() {
        var panel = DelegatePanel()
        panel.seat(Self.seat(1, "pantry"))
        let limit = CoreLimits.standard.questionsOutPerDelegate
        var sent: [DelegatePanel.Put] = []
        for part in 0..<(limit + 5) { sent += panel.ask(.proposalPart(1, part: part), .shouldAdd, Self.params, list: 1, name: nil) }
        #expect(sent.count == limit)
        let next = panel.replied(sent[0].id, .answered(DelegateAnswer(allow: true)))
        #expect(next.puts.count == 1 && next.verdicts.count == 1)
        #expect(panel.consult(.proposal(2), .shouldAdd, Self.params, list: 1, name: nil)?.waiting == true)
        let gone = panel.unseat(1)
        // Out: limit (one answered, one sent in its place); waiting: 4 of the parts and proposal 2.
        #expect(gone.verdicts.count == limit + 5, "every question ends: \(gone.verdicts.count)")
        #expect(gone.puts.isEmpty)
    }
}
