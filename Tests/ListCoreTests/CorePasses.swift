// The core driven as the owner drives it: events through its one door (`handle`), and the end
// of each pass (`passEnded`), which sends what the pass decided to the log. One code path: the
// core has no mode for tests.
import ListModel

@testable import ListCore

extension ListCore {
    /// The tests' clocks: a fixed wall clock, and the monotonic one when a test names no instant.
    static let testTime = Timestamp(millisecondsSinceEpoch: 1_000)

    /// Delivers `event` as the owner does.
    @discardableResult
    mutating func feed(_ event: CoreEvent, now: ContinuousClock.Instant = .now, at time: Timestamp = testTime) -> [CoreAction] {
        handle(event, now: now, at: time)
    }

    /// `event`'s actions, then those of the pass's end.
    mutating func pass(_ event: (inout ListCore) -> [CoreAction]) -> [CoreAction] {
        var actions = event(&self)
        actions += feed(.passEnded)
        return actions
    }
}
