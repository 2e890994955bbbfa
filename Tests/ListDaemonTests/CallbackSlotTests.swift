import Synchronization
import Testing

@testable import ListCore
@testable import ListDaemon

@Suite struct CallbackSlotTests {
    /// listd calls its commit observer after every pass. Kept as a bare closure in a `Mutex`, each
    /// read wrapped it in more conversion thunks: the millionth call walked two million of them
    /// (quadratic time, then a stack overflow). Through the slot every call costs the same.
    /// 200,000 calls: growing, the last would walk 400,000 thunks (4·10¹⁰ in all, far past the
    /// minute); not growing, they take well under it even on two loaded cores (a million once
    /// took 80 s there while a full build ran beside the tests).
    @Test(.timeLimit(.minutes(1)))
    func manyCallsCallTheSameClosureWithoutGrowing() throws {
        let slot = CallbackSlot<Int>()
        let total = Mutex(0)
        slot.set { value in total.withLock { $0 += value } }
        for round in 0..<200_000 {
            // The time limit cancels the test; a slot that slows down fails here, not by hanging.
            if round % 10_000 == 0 { try Task.checkCancellation() }
            slot(1)
        }
        #expect(total.withLock { $0 } == 200_000)
    }

    @Test func anUnsetSlotCallsNothing() {
        let slot = CallbackSlot<Int>()
        #expect(!slot.isSet)
        slot(1)
    }
}
