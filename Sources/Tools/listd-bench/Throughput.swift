// Figure 2's clients: connections that send requests as fast as their replies come, timing each
// round trip (listd, Redis and the ping-pong alike: the same code, only the request line differs).
import Foundation
import Glibc

/// Starts `clients` threads, each on its own connection sending `request(client, index)` and
/// waiting for the reply, until `stop`; returns the group to wait on and every round trip (µs).
/// `greeting`, when given, is sent first on each connection (a `hello`), outside the timing.
func requestsUntil(
    _ stop: UInt64,
    socket: String,
    clients: Int,
    greeting: String? = nil,
    _ request: @escaping (Int, Int) -> String
) -> (DispatchGroup, Samples) {
    let roundTrips = Samples()
    let group = DispatchGroup()
    for client in 0..<clients {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            guard let connection = try? LineSocket(path: socket) else { return }
            if let greeting { connection.call(greeting) }
            var mine: [Double] = []
            var index = 0
            while now() < stop {
                let sent = now()
                guard connection.call(request(client, index)) != nil else { break }
                mine.append(us(now() - sent))
                index += 1
            }
            roundTrips.add(mine)
        }
    }
    return (group, roundTrips)
}

/// One run of `clients` connections editing as fast as their replies come: confirms per second,
/// and each request's round trip (µs, sorted).
func measureEdits(
    _ socket: String,
    clients: Int,
    seconds: Double = 1.5,
    greeting: String? = nil,
    _ request: @escaping (Int, Int) -> String
) -> (perSecond: Double, latencies: [Double]) {
    let start = now()
    let (group, roundTrips) = requestsUntil(
        start + UInt64(seconds * 1e9),
        socket: socket,
        clients: clients,
        greeting: greeting,
        request
    )
    group.wait()
    let all = roundTrips.values.sorted()
    return (Double(all.count) / (Double(now() - start) / 1e9), all)
}

/// Confirms per second with `clients` connections each adding and removing its own item.
func editsPerSecond(_ socket: String, clients: Int) -> Double {
    measureEdits(socket, clients: clients) { client, index in addOrRemove(index, item: "client \(client)") }
        .perSecond
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
    greeting: String? = nil,
    _ request: @escaping (Int, Int) -> String
) -> (
    rate: Stat, p50: Stat, p99: Stat
) {
    let measured = (0..<3).map { _ in measureEdits(socket, clients: clients, greeting: greeting, request) }
    return (
        Stat(measured.map(\.perSecond)),
        Stat(measured.map { percentile($0.latencies, 0.5) }),
        Stat(measured.map { percentile($0.latencies, 0.99) })
    )
}

/// A server's CPU per durable edit (µs), and where it went: user space (the server's own code and
/// its libraries) and the kernel (system calls, the socket's and the disk's work in its name).
struct ServerCPU {
    var total: Stat
    var user: Stat
    var kernel: Stat
}

/// Three runs of `measureEdits`, each with the server's CPU time (all its threads) divided by the
/// edits confirmed: what one durable edit costs the server. The total is schedstat's, exact; it
/// is split in the ratio of the process's user and system clock ticks (/proc/PID/stat), which a
/// run of 1.5 s counts to about 1 %.
func cpuPerEdit(
    _ socket: String,
    pid: Int32,
    clients: Int,
    greeting: String? = nil,
    _ request: @escaping (Int, Int) -> String
) -> ServerCPU {
    let runs = (0..<3).map { _ in
        let before = (cpu: processCPU(pid), ticks: userAndSystemTicks(pid))
        let measured = measureEdits(socket, clients: clients, greeting: greeting, request)
        let after = (cpu: processCPU(pid), ticks: userAndSystemTicks(pid))
        let perEdit = Double(after.cpu - before.cpu) / 1e3 / Double(max(measured.latencies.count, 1))
        let user = Double(after.ticks.user - before.ticks.user)
        let system = Double(after.ticks.system - before.ticks.system)
        let userShare = user + system > 0 ? user / (user + system) : 0
        return (total: perEdit, user: perEdit * userShare, kernel: perEdit * (1 - userShare))
    }
    return ServerCPU(total: Stat(runs.map(\.total)), user: Stat(runs.map(\.user)), kernel: Stat(runs.map(\.kernel)))
}

/// Every thread's CPU time so far, by thread id (ns, from schedstat: exact where /proc/PID/stat
/// counts in clock ticks).
func threadCPUTimes(_ pid: Int32) -> [String: UInt64] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var times: [String: UInt64] = [:]
    for task in tasks {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
        if let time = UInt64(text.split(separator: " ").first ?? "") { times[task] = time }
    }
    return times
}

/// A process's CPU time so far, all its threads (ns).
func processCPU(_ pid: Int32) -> UInt64 {
    threadCPUTimes(pid).values.reduce(0, +)
}

/// A process's user and system time so far, in clock ticks (/proc/PID/stat's utime and stime:
/// every thread's, those that ended too).
func userAndSystemTicks(_ pid: Int32) -> (user: UInt64, system: UInt64) {
    let text = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    // The fields after the command's name, which is in parentheses and may hold spaces.
    guard let close = text.lastIndex(of: ")") else { return (0, 0) }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // fields[0] is the state (field 3): utime and stime are fields 14 and 15.
    guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return (0, 0) }
    return (user, system)
}

/// How many times a process's threads were switched to so far (voluntary and not): its wake-ups.
func contextSwitches(_ pid: Int32) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.reduce(0) { total, task in
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
        return total
            + text.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
            .compactMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            .reduce(0, +)
    }
}
