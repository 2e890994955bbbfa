import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import ListCore
@testable import ListDaemon

/// The watchdog keep-alive is sent only while every event loop runs: one wedged loop (a handler
/// that never returns) stops it, so the service manager restarts listd.
@Suite struct WatchdogTests {
    @Test func pingsStopWhileOneEventLoopIsWedgedAndComeBackAfter() throws {
        let pings = Atomic<Int>(0)
        let interval = Duration.milliseconds(100)  // each loop says it is alive every 50 ms
        let tasks = RPCServer.startWatchdog(on: MultiThreadedEventLoopGroup.singleton, interval: interval) { pings.add(1, ordering: .relaxed) }
        defer { tasks.forEach { $0.cancel() } }
        func waitForPings(_ count: Int, _ what: String) throws {
            let deadline = Date().addingTimeInterval(10)
            let start = pings.load(ordering: .relaxed)
            while pings.load(ordering: .relaxed) < start + count {
                guard Date() < deadline else { throw TestFailure("no \(count) pings within 10 s: \(what)") }
                usleep(5_000)
            }
        }
        try waitForPings(3, "all loops run")

        // Wedge the last loop: a task on it that blocks until released.
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        #expect(loops.count >= 2, "the test needs a loop that is not wedged")
        let wedged = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        loops.last!.execute {
            wedged.signal()
            release.wait()
        }
        #expect(wedged.wait(timeout: .now() + 10) == .success, "the loop took the wedging task")
        // One ping may be on its way (the wedged loop said it was alive just before); then none,
        // over ten of its periods.
        let atWedge = pings.load(ordering: .relaxed)
        usleep(500_000)
        let whileWedged = pings.load(ordering: .relaxed) - atWedge
        release.signal()
        #expect(whileWedged <= 1, "\(whileWedged) pings while a loop was wedged")
        try waitForPings(2, "the loop runs again")
    }
}

private struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
