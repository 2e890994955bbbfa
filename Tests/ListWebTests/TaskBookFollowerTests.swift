// The tasks apps' book waits for listd's changes a bounded time: a request waiting for a revision
// the book cannot reach (listd away, a sync token ahead of a book listd-web restarted from) is
// answered after its timeout, and one waiting for a revision the book has, at once.
@testable import ListWeb
import Logging
import Synchronization
import Testing

@Suite struct TaskBookFollowerTests {
    /// The times the waits took, written by the tasks that waited.
    final class Waited: Sendable {
        let times = Mutex<[Duration]>([])
    }

    static func follower() -> TaskBookFollower {
        // No listd at this socket, and never asked to follow: the book stays at revision 0.
        TaskBookFollower(
            path: "/nonexistent/caldav-tasks.json", listdSocket: "/nonexistent/listd.sock", tombstoneLimit: 10,
            logger: Logger(label: "test"), wanted: { false }
        )
    }

    @Test func aRevisionTheBookCannotReachIsWaitedForUntilTheTimeout() async throws {
        let follower = Self.follower()
        // Three at once, each resumed by its own timer; watched from outside, so a wait that
        // never ends fails here instead of holding the test run.
        let waited = Waited()
        for revision in [5, 6, 7] {
            Task {
                let start = ContinuousClock.now
                await follower.reached(revision, timeout: .milliseconds(200))
                let elapsed = ContinuousClock.now - start
                waited.times.withLock { $0.append(elapsed) }
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while waited.times.withLock({ $0.count }) < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let times = waited.times.withLock { $0 }
        #expect(times.count == 3, "answered: \(times)")
        #expect(times.allSatisfy { $0 >= .milliseconds(200) }, "\(times)")
    }

    @Test func aRevisionTheBookHasIsNotWaitedFor() async {
        let follower = Self.follower()
        let start = ContinuousClock.now
        await follower.reached(0, timeout: .seconds(30))
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}
