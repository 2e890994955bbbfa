import ListCore
import Synchronization

/// One callback that may be set once and called from any thread.
///
/// The closure lives inside a struct on purpose: a bare closure stored in a `Mutex` is
/// reabstracted on the way into and out of `withLock`'s generic `inout`, and the converted value
/// is written back, so every read wrapped it in two more thunks. Each call then walked all of
/// them: quadratic in the number of calls, and a stack overflow after enough commits.
final class CallbackSlot<Argument>: Sendable {
    private struct Callback: Sendable {
        let call: @Sendable (Argument) -> Void
    }

    private let stored = Mutex<Callback?>(nil)

    init() {}

    func set(_ callback: @escaping @Sendable (Argument) -> Void) {
        stored.withLock { $0 = Callback(call: callback) }
    }

    var isSet: Bool { stored.withLock { $0 != nil } }

    /// Calls the callback, if one is set (outside the lock).
    func callAsFunction(_ argument: Argument) {
        stored.withLock { $0 }?.call(argument)
    }
}
