// Figure 3's clients: subscribers (listd's `subscribe`, the C baseline's `SUB`, Redis's
// `SUBSCRIBE`), one publication timed until the last of them has the whole message, and
// notifications per second under load.
import Foundation
import Glibc

/// Subscribers connected and subscribed (listd: `subscribe`; the C baseline: `SUB`).
func subscribers(_ socket: String, count: Int, request: String) throws -> [LineSocket] {
    try (0..<count).map { _ in
        let connection = try LineSocket(path: socket)
        guard connection.call(request) != nil else { throw BenchError("a subscriber was refused") }
        return connection
    }
}

/// One publication → the time until the last of `subscribers` has the whole message, in µs. A
/// message is `linesPerMessage` lines (Redis's are several), the publisher's reply `replyLines`.
func fanOutOnce(
    publisher: LineSocket,
    subscribers: [LineSocket],
    publication: String,
    linesPerMessage: Int = 1,
    replyLines: Int = 1
) -> Double {
    var lines = [Int](repeating: 0, count: subscribers.count)
    var waiting = Set(0..<subscribers.count)
    var pollers = subscribers.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    let start = now()
    publisher.send(publication)
    while !waiting.isEmpty {
        _ = poll(&pollers, nfds_t(pollers.count), 5_000)
        for index in waiting where pollers[index].revents != 0 {
            guard subscribers[index].fill() else { continue }
            lines[index] += subscribers[index].takeLines()
            if lines[index] >= linesPerMessage { waiting.remove(index) }
        }
    }
    let elapsed = us(now() - start)
    for _ in 0..<replyLines { _ = publisher.readLine() }  // the publisher's own reply
    return elapsed
}

/// Redis subscribers of the channel `fan` (`SUBSCRIBE`'s reply is six lines).
func redisSubscribers(_ socket: String, count: Int) throws -> [LineSocket] {
    try (0..<count).map { _ in
        let connection = try LineSocket(path: socket)
        connection.send("SUBSCRIBE fan")
        for _ in 0..<6 where connection.readLine() == nil { throw BenchError("a Redis subscriber was refused") }
        return connection
    }
}

/// Redis's durable change and its broadcast, as one transaction: the set changes (appended and
/// fsynced before EXEC replies) and `fan` gets a message as long as listd's notification.
func redisPublication(_ index: Int, payload: String) -> String {
    "MULTI\n\(redisAddOrRemove(index, set: "fanset"))\nPUBLISH fan \(payload)\nEXEC"
}

/// Notifications per second delivered to `subscribers` while `publishers` publish as fast as they can.
func notificationsPerSecond(
    _ socket: String,
    subscribeWith request: String,
    publishers: Int,
    publication: @escaping (Int, Int) -> String
) throws -> Double {
    let subs = try subscribers(socket, count: 100, request: request)
    let seconds = 1.5
    let stop = now() + UInt64(seconds * 1e9)
    let (group, _) = requestsUntil(stop, socket: socket, clients: publishers, publication)
    let start = now()
    var pollers = subs.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    var count = 0
    while now() < stop {
        _ = poll(&pollers, nfds_t(pollers.count), 100)
        for index in pollers.indices where pollers[index].revents != 0 {
            if subs[index].fill() { count += subs[index].takeLines() }
        }
    }
    let elapsed = Double(now() - start) / 1e9
    group.wait()
    return Double(count) / elapsed
}
