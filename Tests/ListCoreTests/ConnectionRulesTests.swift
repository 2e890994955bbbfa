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
        func admission(allowed: Bool = true, uid: UInt32 = 1000, owner: Bool = true, open: Int, ofUser: Int = 1) -> ConnectionRules.Refusal.Reason? {
            rules.admission(allowed: allowed, policy: "only its own user", uid: uid, isOwner: owner, open: open, openOfUser: ofUser)?
                .reason
        }
        #expect(admission(open: 3) == nil)
        #expect(admission(open: 4) == .full(limit: 3))
        let refused = admission(allowed: false, uid: 1001, owner: false, open: 1)
        #expect(refused == .notAllowed(uid: 1001, policy: "only its own user"), "who is not allowed is told so first")
        #expect(
            rules.admission(allowed: true, policy: "", uid: 0, isOwner: true, open: 4, openOfUser: 4)?.why
                == "3 connections are open already"
        )
    }

    /// Issue 61, case 5: one member held all 1,024 connections, and the owner's listctl was
    /// refused. A member may hold a quarter; the last sixteenth is the owner's and root's.
    @Test func aMemberHoldsItsShareAndTheOwnersReserveStaysFree() {
        let rules = ConnectionRules(maximumConnections: 1_024)
        #expect(rules.maximumConnectionsPerUser == 256)
        #expect(rules.ownersReserve == 64)
        func admitted(owner: Bool, open: Int, ofUser: Int) -> Bool {
            rules.admission(allowed: true, policy: "", uid: 1001, isOwner: owner, open: open, openOfUser: ofUser) == nil
        }
        #expect(admitted(owner: false, open: 256, ofUser: 256))
        #expect(!admitted(owner: false, open: 257, ofUser: 257), "a 257th of one member's")
        #expect(
            rules.admission(allowed: true, policy: "", uid: 1001, isOwner: false, open: 300, openOfUser: 257)?.reason
                == .userShareFull(uid: 1001, share: 256, limit: 1_024)
        )
        // Four members at their share leave the reserve, but a fifth cannot take it.
        #expect(admitted(owner: false, open: 960, ofUser: 1))
        #expect(!admitted(owner: false, open: 961, ofUser: 1))
        #expect(
            rules.admission(allowed: true, policy: "", uid: 1001, isOwner: false, open: 961, openOfUser: 1)?.reason
                == .keptForOwner(limit: 1_024, reserve: 64)
        )
        // The owner and root use the reserve, up to the limit.
        #expect(admitted(owner: true, open: 1_024, ofUser: 1_000))
        #expect(!admitted(owner: true, open: 1_025, ofUser: 1_000))
        // A share set by hand; tiny limits keep one connection for anyone.
        #expect(ConnectionRules(maximumConnections: 1_024, maximumConnectionsPerUser: 300).maximumConnectionsPerUser == 300)
        #expect(ConnectionRules(maximumConnections: 1).ownersReserve == 0)
        #expect(ConnectionRules(maximumConnections: 1).maximumConnectionsPerUser == 1)
        #expect(ConnectionRules(maximumConnections: 2).ownersReserve == 1)
    }

    @Test func aQuietClientThatNeverSaidWhoItIsIsLetGo() {
        let limit = CoreLimits.standard.idleLimit
        #expect(rules.idleCheck(introduced: false, busy: false, quietFor: limit) == .letGo)
        #expect(rules.idleCheck(introduced: false, busy: false, quietFor: limit - .seconds(20)) == .lookAgain(after: .seconds(20)))
        #expect(rules.idleCheck(introduced: false, busy: true, quietFor: limit * 3) == .lookAgain(after: limit), "waits for a reply")
        #expect(rules.idleCheck(introduced: true, busy: false, quietFor: limit * 3) == .stopWatching, "said hello")
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
        limits.idleLimit = .seconds(5)
        let changed = ConnectionRules(limits: limits, outboundLimit: 1_000)
        #expect(changed.readsMore(waiting: 1) && !changed.readsMore(waiting: 2))
        #expect(ConnectionRules().readsMore(waiting: 2), "the standard reads further")
        #expect(changed.stallCheck(writtenBefore: 0, writtenNow: 1) == .lookAgain(after: .seconds(9)))
        #expect(changed.reconnectDelay(after: nil) == .seconds(2))
        #expect(changed.reconnectDelay(after: .seconds(2)) == .seconds(3))
        #expect(changed.closeGrace == .seconds(7))
        #expect(changed.idleCheck(introduced: false, busy: false, quietFor: .seconds(5)) == .letGo)
    }
}
