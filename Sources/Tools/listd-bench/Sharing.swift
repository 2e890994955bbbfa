// Figure 8 (issue 29): lists shared through PostgreSQL. A server of the bench's own (initdb in the
// scratch directory, a Unix socket only, as the `postgres` user when run as root), listd with
// `--share` on it, next to a listd on its own files in the same run.
import Foundation
import Glibc

/// PostgreSQL in the scratch directory, stopped by its pid.
final class PostgresUnderTest {
    let directory: String
    let child: Child
    /// `--share` for listd.
    var url: String { "postgresql://listd@/lists?host=\(directory)" }

    static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).max().map { "\(root)/\($0)/bin" }
    }

    /// As root: `setpriv` (it execs, so the pid is the server's).
    static var asServer: [String] {
        geteuid() == 0 ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] : []
    }

    init(_ name: String) throws {
        guard let binaries = Self.binaries else {
            throw BenchError("PostgreSQL is not installed (make bench installs it with apt-get)")
        }
        // Its own directory under /tmp: the scratch directory is root's alone, and the server
        // runs as `postgres`.
        var template = Array("/tmp/listd-bench-pg-\(name)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp failed") }
        directory = String(cString: made)
        if geteuid() == 0, let user = getpwnam("postgres") {
            chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        func run(_ tool: String, _ arguments: [String]) throws {
            let command = Self.asServer + [binaries + "/" + tool] + arguments
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchError("\(tool) \(arguments) failed") }
        }
        try run("initdb", ["-D", directory + "/data", "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
        let command = Self.asServer + [binaries + "/postgres"]
        child = try Child(
            command[0],
            Array(command.dropFirst())
                + ["-D", directory + "/data", "-k", directory, "-c", "listen_addresses=", "-c", "max_connections=200"]
        )
        let deadline = now() + 30_000_000_000
        while (try? run("psql", ["-h", directory, "-U", "postgres", "-XAtqc", "SELECT 1"])) == nil {
            guard now() < deadline else { throw BenchError("postgres did not start") }
            usleep(50_000)
        }
        try run("psql", ["-h", directory, "-U", "postgres", "-XAtqc", "CREATE ROLE listd LOGIN"])
        try run("psql", ["-h", directory, "-U", "postgres", "-XAtqc", "CREATE DATABASE lists OWNER listd"])
    }

    deinit {
        child.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// One change on `writer` → the time until `reader`, a subscriber on another listd, has its
/// notification, in µs.
func changeToOtherMachine(writer: LineSocket, reader: LineSocket, index: Int) -> Double {
    let start = now()
    writer.send(addOrRemove(index))
    var pollers = [pollfd(fd: reader.fd, events: Int16(POLLIN), revents: 0)]
    while reader.takeLines() == 0 {
        _ = poll(&pollers, 1, 5_000)
        guard reader.fill() else { break }
    }
    let elapsed = us(now() - start)
    _ = writer.readLine()  // the writer's confirm
    return elapsed
}

/// µs from the writer's confirm to the other machine's notification (0 when the notification came
/// first): how long a change others can already rely on takes to reach them.
func heardAfterConfirm(writer: LineSocket, reader: LineSocket, index: Int) -> Double {
    writer.send(addOrRemove(index))
    var confirmed: UInt64?
    var heard: UInt64?
    var pollers = [pollfd(fd: writer.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: reader.fd, events: Int16(POLLIN), revents: 0)]
    while confirmed == nil || heard == nil {
        guard poll(&pollers, 2, 5_000) > 0 else { break }
        if confirmed == nil, pollers[0].revents != 0 {
            guard writer.fill() else { break }
            if writer.takeLines() > 0 { confirmed = now() }
        }
        if heard == nil, pollers[1].revents != 0 {
            guard reader.fill() else { break }
            if reader.takeLines() > 0 { heard = now() }
        }
    }
    guard let confirmed, let heard else { return 5_000_000 }
    return heard > confirmed ? us(heard - confirmed) : 0
}

func measureSharing() throws {
    let postgres = try PostgresUnderTest("share")
    let kitchen = try ListdUnderTest("share-kitchen", extra: ["--share", postgres.url])
    let upstairs = try ListdUnderTest("share-upstairs", extra: ["--share", postgres.url])
    try createList(kitchen.connect(), "Busy")
    let local = try ListdUnderTest("share-local")
    try createList(local.connect(), "Busy")

    let writer = try kitchen.connect()
    let reader = try upstairs.connect()
    guard reader.call(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#) != nil else {
        throw BenchError("the subscriber was refused")
    }
    for index in 0..<50 { _ = changeToOtherMachine(writer: writer, reader: reader, index: index) }  // warm-up
    let runs = (0..<3).map { run in
        percentile((0..<300).map { changeToOtherMachine(writer: writer, reader: reader, index: run * 300 + $0) }.sorted(), 0.5)
    }
    let p50 = Stat(runs)
    report(
        "change on one machine → a subscriber on another (shared through PostgreSQL) p50",
        "any",
        "µs",
        listd: p50,
        target: "≤ 5 ms",
        met: p50.median <= 5_000
    )
    let p99 = Stat((0..<3).map { run in
        percentile((0..<300).map { heardAfterConfirm(writer: writer, reader: reader, index: 900 + run * 300 + $0) }.sorted(), 0.99)
    })
    report(
        "change confirmed on one machine → heard by a subscriber on another, p99",
        "any",
        "µs",
        listd: p99,
        target: "≤ 2 ms",
        met: p99.median <= 2_000
    )

    for clients in [1, 8, 64] {
        let shared = editFigures(kitchen.socket, clients: clients) { client, index in
            addOrRemove(index, item: "client \(client)")
        }
        let alone = editFigures(local.socket, clients: clients) { client, index in
            addOrRemove(index, item: "client \(client)")
        }
        report(
            "durable edits/s through PostgreSQL, \(clients) client\(clients == 1 ? "" : "s"), listd on its own files as baseline",
            "any",
            "edits/s",
            listd: shared.rate,
            baseline: alone.rate,
            target: clients == 64 ? "≥ 0.5× baseline" : "",
            met: clients == 64 ? shared.rate.median >= 0.5 * alone.rate.median : nil
        )
    }
}
