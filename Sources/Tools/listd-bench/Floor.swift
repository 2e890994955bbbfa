// Figure 13: the floor of listd's stack (issue 65). listd-floor (bench/floor) is the least a Swift
// server on SwiftNIO does for a durable edit — read a line, append it, one write and one fdatasync
// per turn of its one loop, a fixed reply — measured with the same client as listd and Redis, in
// the same run: how far the stack's floor is from Redis, and how far listd is from the floor.
// listd's clients are brief (`hello {brief: true}`: a confirm without the list), as the outside
// bench's verdict is; the floor and Redis need no greeting. The same floor on a raw epoll loop
// (`--epoll`) says what SwiftNIO's pipeline costs, and what a request path without it could reach.
import Foundation
import Glibc

func measureFloor() throws {
    let floorPath = binaries + "/listd-floor"
    guard access(floorPath, X_OK) == 0 else {
        throw BenchError("\(floorPath) is missing (make bench builds it)")
    }
    let floorSocket = "\(work)/floor.sock"
    let floor = try Child(floorPath, [floorSocket, "\(work)/floor.log"])
    defer { floor.stop() }
    try waitForSocket(floorSocket)
    let linesSocket = "\(work)/floor-lines.sock"
    let lines = try Child(floorPath, [linesSocket, "\(work)/floor-lines.log", "--lines-only"])
    defer { lines.stop() }
    try waitForSocket(linesSocket)
    let epollSocket = "\(work)/floor-epoll.sock"
    let epoll = try Child(floorPath, [epollSocket, "\(work)/floor-epoll.log", "--epoll"])
    defer { epoll.stop() }
    try waitForSocket(epollSocket)
    let epollLinesSocket = "\(work)/floor-epoll-lines.sock"
    let epollLines = try Child(floorPath, [epollLinesSocket, "\(work)/floor-epoll-lines.log", "--epoll", "--lines-only"])
    defer { epollLines.stop() }
    try waitForSocket(epollLinesSocket)
    let pingpongSocket = "\(work)/pingpong-floor.sock"
    let pingpong = try Child("\(baselines)/pingpong", [pingpongSocket])
    defer { pingpong.stop() }
    try waitForSocket(pingpongSocket)
    let listd = try ListdUnderTest("floor-listd")
    try createList(listd.connect(), "Busy")
    let redis = try RedisUnderTest("floor")
    let brief = #"{"jsonrpc":"2.0","id":0,"method":"hello","params":{"brief":true}}"#
    func edit(_ client: Int, _ index: Int) -> String { addOrRemove(index, item: "client \(client)") }
    func redisEdit(_ client: Int, _ index: Int) -> String { redisAddOrRemove(index, member: "client-\(client)") }

    for clients in [1, 8, 64] {
        let label = "\(clients) client\(clients == 1 ? "" : "s")"
        let floorRate = editFigures(floorSocket, clients: clients, edit).rate
        let epollRate = editFigures(epollSocket, clients: clients, edit).rate
        let redisRate = editFigures(redis.socket, clients: clients, redisEdit).rate
        let listdRate = editFigures(listd.socket, clients: clients, greeting: brief, edit).rate
        report("floor: durable edits/s, \(label), Redis as baseline", "any", "edits/s", listd: floorRate, baseline: redisRate)
        report("floor on raw epoll: durable edits/s, \(label), Redis as baseline", "any", "edits/s", listd: epollRate, baseline: redisRate)
        report(
            "listd (brief) durable edits/s, \(label), the floor as baseline",
            "any",
            "edits/s",
            listd: listdRate,
            baseline: floorRate,
            target: "≥ 1.0× Redis (\(String(format: "%.2f", listdRate.median / redisRate.median))× here)",
            met: listdRate.median >= redisRate.median
        )
    }
    let floorCPU = cpuPerEdit(floorSocket, pid: floor.pid, clients: 64, edit)
    let epollCPU = cpuPerEdit(epollSocket, pid: epoll.pid, clients: 64, edit)
    let redisCPU = cpuPerEdit(redis.socket, pid: redis.child.pid, clients: 64, redisEdit)
    let listdCPU = cpuPerEdit(listd.socket, pid: listd.child.pid, clients: 64, greeting: brief, edit)
    report("floor: server CPU per durable edit, 64 clients, Redis as baseline", "any", "µs", listd: floorCPU.total, baseline: redisCPU.total)
    report("floor on raw epoll: server CPU per durable edit, 64 clients, Redis as baseline", "any", "µs", listd: epollCPU.total, baseline: redisCPU.total)
    report(
        "listd (brief) server CPU per durable edit, 64 clients, the floor as baseline",
        "any",
        "µs",
        listd: listdCPU.total,
        baseline: floorCPU.total,
        target: "≤ 1.0× Redis (\(String(format: "%.2f", listdCPU.total.median / redisCPU.total.median))× here)",
        met: listdCPU.total.median <= redisCPU.total.median
    )
    // Where each one's CPU went: the kernel's share (system calls, the socket's and the disk's
    // work) is the same job for all three; user space is each server's own code.
    report("floor: user-space CPU per durable edit, 64 clients, Redis as baseline", "any", "µs", listd: floorCPU.user, baseline: redisCPU.user)
    report("listd (brief): user-space CPU per durable edit, 64 clients, Redis as baseline", "any", "µs", listd: listdCPU.user, baseline: redisCPU.user)
    report("floor: kernel CPU per durable edit, 64 clients, Redis as baseline", "any", "µs", listd: floorCPU.kernel, baseline: redisCPU.kernel)
    report("listd (brief): kernel CPU per durable edit, 64 clients, Redis as baseline", "any", "µs", listd: listdCPU.kernel, baseline: redisCPU.kernel)
    // The request/reply floor: the same server without the append and the fdatasync, next to the
    // C ping-pong (a thread per connection): what SwiftNIO's loop costs a line, disk aside.
    let linesRate = Stat((0..<3).map { _ in measureEdits(linesSocket, clients: 64, edit).perSecond })
    let pingpongRate = Stat((0..<3).map { _ in measureEdits(pingpongSocket, clients: 64, edit).perSecond })
    report("floor without the disk: requests/s, 64 clients, C ping-pong as baseline", "any", "requests/s", listd: linesRate, baseline: pingpongRate)
    let linesCPU = cpuPerEdit(linesSocket, pid: lines.pid, clients: 64, edit)
    report("floor without the disk: server CPU per request, 64 clients, the floor as baseline", "any", "µs", listd: linesCPU.total, baseline: floorCPU.total)
    let epollLinesRate = Stat((0..<3).map { _ in measureEdits(epollLinesSocket, clients: 64, edit).perSecond })
    report(
        "floor on raw epoll without the disk: requests/s, 64 clients, C ping-pong as baseline",
        "any",
        "requests/s",
        listd: epollLinesRate,
        baseline: pingpongRate
    )
    let epollLinesCPU = cpuPerEdit(epollLinesSocket, pid: epollLines.pid, clients: 64, edit)
    report(
        "floor on raw epoll without the disk: server CPU per request, 64 clients, the NIO floor's as baseline",
        "any",
        "µs",
        listd: epollLinesCPU.total,
        baseline: linesCPU.total
    )
}
