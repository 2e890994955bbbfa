// What a client may owe, how long it may take, who is let in and how a lost store is tried again,
// decided on numbers alone: each rule here, without a socket; the shells that carry them out are
// tested through the real binary (SlowSubscriberTests, ConnectionLimitTests, SharingTests).
import ListRPC
import Testing

@testable import ListCore

@Suite struct ConnectionRulesTests {
    private let rules = ConnectionRules(outboundLimit: 1_000, maximumConnections: 3)

    @Test func aClientThatOwesMoreThanTheLimitOverflowsButOneLineAloneAlwaysGoes() {
        #expect(!rules.overflows(adding: 400, owed: 600), "up to the limit")
        #expect(rules.overflows(adding: 401, owed: 600))
        #expect(!rules.overflows(adding: 5_000, owed: 0), "a big list to a client that owes nothing")
        #expect(rules.overflows(adding: 5_000, owed: 1))
    }

    @Test func aSubscriberLagsPastHalfTheLimitAndIsServedAgainAtAQuarter() {
        #expect(!rules.lags(owed: 500))
        #expect(rules.lags(owed: 501))
        #expect(rules.hasDrained(owed: 250))
        #expect(!rules.hasDrained(owed: 251))
    }

    @Test func aSubscriberIsBehindPastAQuarterOfTheLimitNotOnlyHalf() {
        #expect(!rules.isBehind(owed: 250, lagging: false), "a few unread lines are not enough")
        #expect(rules.isBehind(owed: 251, lagging: false))
        #expect(rules.isBehind(owed: 0, lagging: true))
    }

    @Test func aSubscriberBehindWhoseSocketTookNothingIsDisconnected() {
        #expect(rules.stallCheck(writtenBefore: 10, writtenNow: 10) == .disconnect)
        #expect(rules.stallCheck(writtenBefore: 10, writtenNow: 11) == .lookAgain(after: CoreLimits.standard.stallGrace))
    }

    @Test func theRefusalsSayWhy() {
        #expect(rules.admission(allowed: true, policy: "", uid: 1000, open: 3) == nil)
        #expect(rules.admission(allowed: true, policy: "", uid: 1000, open: 4) == .tooManyConnections(3))
        let refused = rules.admission(allowed: false, policy: "only its own user", uid: 1001, open: 1)
        #expect(refused == .notAllowed(uid: 1001, detail: "only its own user"), "who is not allowed is told so first")
    }

    @Test func aLostStoreIsTriedAgainSoonThenLessOften() {
        var delays: [Duration] = []
        var delay: Duration?
        for _ in 0..<6 {
            delay = rules.reconnectDelay(after: delay)
            delays.append(delay!)
        }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
    }

    /// The rules read the table: a number changed there is what they go by.
    @Test func theRulesFollowTheTable() {
        var limits = CoreLimits.standard
        limits.requestsReadAhead = 2
        limits.stallGrace = .seconds(9)
        limits.firstReconnectDelay = .seconds(2)
        limits.longestReconnectDelay = .seconds(3)
        limits.closeGrace = .seconds(7)
        let changed = ConnectionRules(limits: limits, outboundLimit: 1_000)
        #expect(changed.readsMore(waiting: 1) && !changed.readsMore(waiting: 2))
        #expect(ConnectionRules().readsMore(waiting: 2), "the standard reads further")
        #expect(changed.stallCheck(writtenBefore: 0, writtenNow: 1) == .lookAgain(after: .seconds(9)))
        #expect(changed.reconnectDelay(after: nil) == .seconds(2))
        #expect(changed.reconnectDelay(after: .seconds(2)) == .seconds(3))
        #expect(changed.closeGrace == .seconds(7))
    }
}
