// How one shared-store operation ends, decided once: by the operation or by its deadline.
import NIOCore
import Synchronization

/// Whether an append's COMMIT goes out: decided once, by the append (about to send it) or by
/// its deadline (giving up on it), whichever comes first. An append given up on before its
/// COMMIT never sends it, so its "not made" is certain; one whose COMMIT went is in doubt.
final class CommitGate: Sendable {
    private static let open = 0, committing = 1, abandoned = 2
    private let state = Atomic<Int>(CommitGate.open)

    /// The append is about to send COMMIT: false if its deadline gave up on it first.
    func commit() -> Bool {
        state.compareExchange(expected: Self.open, desired: Self.committing, ordering: .acquiringAndReleasing).exchanged
            || state.load(ordering: .acquiring) == Self.committing
    }

    /// The deadline gives up on the append: false if its COMMIT was already on its way.
    func abandon() -> Bool {
        state.compareExchange(expected: Self.open, desired: Self.abandoned, ordering: .acquiringAndReleasing).exchanged
            || state.load(ordering: .acquiring) == Self.abandoned
    }
}

/// A promise completed once, by whichever of an operation and its deadline ends first.
final class Once<Value: Sendable>: Sendable {
    private let promise: EventLoopPromise<Value>
    private let settled = Atomic<Bool>(false)

    init(_ promise: EventLoopPromise<Value>) { self.promise = promise }

    var done: Bool { settled.load(ordering: .acquiring) }
    /// Where it completes.
    var eventLoop: any EventLoop { promise.futureResult.eventLoop }

    /// Runs `body` once it has completed, either way.
    func ended(_ body: @escaping @Sendable () -> Void) { promise.futureResult.whenComplete { _ in body() } }

    func succeed(_ value: Value) {
        if settled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            promise.succeed(value)
        }
    }

    func fail(_ error: any Error) {
        if settled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            promise.fail(error)
        }
    }
}
