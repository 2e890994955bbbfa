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

    /// Issue 63, case 5: a clear of 30 ticked items asked 30 questions at once; a delegate busy
    /// with them let several time out together, and was dropped as "three timeouts in a row".
    /// Questions out together that time out together are one strike.
    @Test func aBurstOfTimeoutsIsOneStrike() {
        var panel = DelegatePanel()
        panel.seat(Self.seat(1, "no-sweets"))
        let burst = (1...30).map { panel.ask(.proposal($0), .shouldAdd, Self.params, list: 1, name: nil)[0].id }
        // Answered in part, the rest out of time together; then some answered again, timed out.
        for id in burst.prefix(20) { _ = panel.replied(id, .answered(DelegateAnswer(allow: true))) }
        for id in burst.suffix(10) {
            #expect(panel.replied(id, .timedOut).dropped == nil, "one burst, one strike")
        }
        #expect(panel.wants(.shouldAdd, list: 1, name: nil), "still asked")
        // Two more failures, each with questions sent after the last: three strikes.
        func askAndTimeOut(_ asker: Int) -> DelegatePanel.Outcome {
            panel.replied(panel.ask(.proposal(asker), .shouldAdd, Self.params, list: 1, name: nil)[0].id, .timedOut)
        }
        #expect(askAndTimeOut(31).dropped == nil)
        #expect(askAndTimeOut(32).dropped?.name == "no-sweets", "three failures to keep up")
    }

    /// Questions past `questionsOutPerDelegate` wait their turn and are sent as others end: one
    /// sent after a strike, timing out, is a new strike.
    @Test func aQuestionSentAfterAStrikeIsANewOne() {
        var limits = CoreLimits.standard
        limits.questionsOutPerDelegate = 2
        var panel = DelegatePanel(limits: limits)
        panel.seat(Self.seat(1, "slow"))
        let first = (1...3).flatMap { panel.ask(.proposal($0), .shouldAdd, Self.params, list: 1, name: nil) }.map(\.id)
        #expect(first.count == 2, "the third waits")
        let afterFirst = panel.replied(first[0], .timedOut)  // strike 1; the third is sent now
        #expect(afterFirst.puts.count == 1)
        #expect(panel.replied(first[1], .timedOut).dropped == nil, "out with the first: same burst")
        #expect(panel.replied(afterFirst.puts[0].id, .timedOut).dropped == nil, "sent after strike 1: strike 2")
        let last = panel.ask(.proposal(4), .shouldAdd, Self.params, list: 1, name: nil)[0].id
        #expect(panel.replied(last, .timedOut).dropped?.name == "slow", "strike 3")
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
