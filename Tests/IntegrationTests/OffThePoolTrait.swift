// Runs a synchronous test outside Swift's cooperative pool, a few at a time.
import Foundation
import Synchronization
import Testing

/// A synchronous test blocks the thread it runs on while it waits for listd (a socket read, a
/// child process). Swift Testing runs it on a thread of the cooperative pool, which has two
/// threads on a 2-core machine: two such tests at once and every asynchronous test in the run
/// waits — its delegates' answers past listd's timeouts, a delegate's registration past the
/// test's own bound (seen: five DelegateTests failing in one full run). With this trait the
/// test waits for a slot (`SynchronousTestSlots`) without holding a thread, then runs on a
/// thread of its own (`offThePool`); the pool stays free for the asynchronous tests. The slots,
/// one more than the processors, keep about as many synchronous tests running at once as the
/// pool did, so the machine is not given some 170 daemons at a time instead.
///
/// For synchronous tests only: an asynchronous test's own child tasks would share its one
/// thread (`DedicatedThreadExecutor` is serial), and a blocking call there would hold them.
///
/// Such a test's guard against a hang is `.hangLimit`, not `.timeLimit`: Swift Testing's clock
/// runs from when the test is queued, and a test waiting for its slot is not hanging (one waited
/// out a two-minute limit so in a clean-clone run).
struct OffThePoolTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope passes through; each of its tests takes a slot.
        guard testCase != nil else { return try await function() }
        if test.traits.contains(where: { $0 is TimeLimitTrait }) {
            Issue.record("an .offThePool test's clock must start with its slot: .hangLimit, not .timeLimit")
        }
        let limit = test.traits.lazy.compactMap { ($0 as? HangLimitTrait)?.limit }.first
        try await SynchronousTestSlots.shared.withSlot {
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let limit {
                    // On the pool, not the test's own thread: the test may be blocked there.
                    group.addTask(executorPreference: globalConcurrentExecutor) {
                        try? await Task.sleep(for: limit)
                        guard !Task.isCancelled else { return }
                        Issue.record("still running \(limit) after it started: a hang (`.hangLimit`)")
                    }
                }
                defer { group.cancelAll() }
                try await withTaskExecutorPreference(DedicatedThreadExecutor()) {
                    try await function()
                }
            }
        }
    }
}

/// How long a synchronous test (`.offThePool`) may run once it has its slot: a guard against a
/// hang, not a measure. `.offThePool` keeps the time; on a test without it the limit would be no
/// limit at all, so that is reported.
struct HangLimitTrait: TestTrait, TestScoping {
    let limit: Duration

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        if testCase != nil, !test.traits.contains(where: { $0 is OffThePoolTrait }) {
            Issue.record(".hangLimit is kept by .offThePool, which this test does not have")
        }
        try await function()
    }
}

extension Trait where Self == OffThePoolTrait {
    /// Runs the synchronous test (each test of the suite) on a thread of its own.
    static var offThePool: Self { OffThePoolTrait() }
}

extension Trait where Self == HangLimitTrait {
    /// Fails the synchronous test that still runs `minutes` after it got its slot.
    static func hangLimit(minutes: Int) -> Self { HangLimitTrait(limit: .seconds(60 * minutes)) }
}

/// At most `width` synchronous tests at once; the others wait without holding a thread.
final class SynchronousTestSlots: Sendable {
    /// One more than the processors (three on the 2-core machines this runs on; full runs took
    /// 143–159 s so, 190 s with the pool's two threads shared).
    static let shared = SynchronousTestSlots(width: ProcessInfo.processInfo.activeProcessorCount + 1)

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(width: Int) {
        state = Mutex(State(free: width))
    }

    func withSlot<T>(_ body: () async throws -> T) async rethrows -> T {
        await take()
        defer { give() }
        return try await body()
    }

    private func take() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Hands the slot to the longest waiter, or frees it.
    private func give() {
        let next = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil as CheckedContinuation<Void, Never>?
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
