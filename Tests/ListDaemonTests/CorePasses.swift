// The core driven as the owner drives it: an event, then the end of its pass (`commit`), which
// sends what the pass decided to the log. One code path: the core has no mode for tests.
@testable import ListCore
@testable import ListDaemon

extension ListCore {
    /// `event`'s actions, then those of the pass's end.
    mutating func pass(_ event: (inout ListCore) -> [CoreAction]) -> [CoreAction] {
        var actions = event(&self)
        actions += commit()
        return actions
    }
}
