// Figure 2's clients: connections that edit as fast as their replies come, counting confirms and
// timing each round trip (listd and Redis alike: the same code, only the request line differs).
import Foundation
import Glibc

/// Starts `clients` threads, each on its own connection sending `request(client, index)` and
/// waiting for the reply, until `stop`; returns the group to wait on and the replies counter.
func requestsUntil(
    _ stop: UInt64,
    socket: String,
    clients: Int,
    _ request: @escaping (Int, Int) -> String
) -> (DispatchGroup, Atomic) {
    let replies = Atomic(0)
    let group = DispatchGroup()
    for client in 0..<clients {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            guard let connection = try? LineSocket(path: socket) else { return }
            var index = 0
            while now() < stop, connection.call(request(client, index)) != nil { index += 1 }
            replies.add(index)
        }
    }
    return (group, replies)
}

/// Confirms per second with `clients` connections each adding and removing its own item.
func editsPerSecond(_ socket: String, clients: Int, seconds: Double = 1.5) throws -> Double {
    let start = now()
    let (group, total) = requestsUntil(start + UInt64(seconds * 1e9), socket: socket, clients: clients) {
        client,
        index in
        addOrRemove(index, item: "client \(client)")
    }
    group.wait()
    return Double(total.value) / (Double(now() - start) / 1e9)
}

final class Atomic: @unchecked Sendable {
    private var stored: Int
    private let lock = NSLock()
    init(_ value: Int) { stored = value }
    func add(_ amount: Int) {
        lock.lock()
        stored += amount
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// One run of `clients` connections editing as fast as their replies come: confirms per second,
/// and each request's round trip (µs, sorted).
func measureEdits(
    _ socket: String,
    clients: Int,
    seconds: Double = 1.5,
    _ request: @escaping (Int, Int) -> String
) -> (perSecond: Double, latencies: [Double]) {
    let start = now()
    let stop = start + UInt64(seconds * 1e9)
    let latencies = Samples()
    let group = DispatchGroup()
    for client in 0..<clients {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            guard let connection = try? LineSocket(path: socket) else { return }
            var mine: [Double] = []
            var index = 0
            while now() < stop {
                let sent = now()
                guard connection.call(request(client, index)) != nil else { break }
                mine.append(us(now() - sent))
                index += 1
            }
            latencies.add(mine)
        }
    }
    group.wait()
    let all = latencies.values.sorted()
    return (Double(all.count) / (Double(now() - start) / 1e9), all)
}

/// Samples the client threads add to, under a lock.
final class Samples: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Double] = []
    func add(_ samples: [Double]) {
        lock.lock()
        stored += samples
        lock.unlock()
    }
    var values: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// Three runs of `measureEdits`: the rate, p50 and p99 over the runs.
func editFigures(
    _ socket: String,
    clients: Int,
    _ request: @escaping (Int, Int) -> String
) -> (
    rate: Stat, p50: Stat, p99: Stat
) {
    let measured = (0..<3).map { _ in measureEdits(socket, clients: clients, request) }
    return (
        Stat(measured.map(\.perSecond)),
        Stat(measured.map { percentile($0.latencies, 0.5) }),
        Stat(measured.map { percentile($0.latencies, 0.99) })
    )
}
