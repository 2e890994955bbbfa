// The peers listd is measured beside in the same run (issue 14): Redis with its append-only file
// fsynced before every reply, driven by the same client code over Redis's inline commands (one
// line each); whole processes timed with wait4 (wall clock, and user + system CPU).
import Foundation
import Glibc

/// redis-server on a Unix socket only (`--port 0`), its files in the scratch directory,
/// `appendonly yes` + `appendfsync always`: it replies once the change is on disk, as listd does.
/// Stopped by its pid.
final class RedisUnderTest {
    let socket: String
    let child: Child

    static var serverPath: String? {
        ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first { access($0, X_OK) == 0 }
    }

    init(_ name: String) throws {
        guard let path = Self.serverPath else {
            throw BenchError("redis-server is not installed (make bench installs it with apt-get)")
        }
        let directory = "\(work)/redis-\(name)"
        mkdir(directory, 0o700)
        socket = directory + "/redis.sock"
        child = try Child(
            path,
            [
                "--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--dir", directory,
                "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no",
                "--maxclients", "20000",
            ]
        )
        try waitForSocket(socket, probe: "PING")
    }

    func connect() throws -> LineSocket { try LineSocket(path: socket) }
    deinit { child.stop() }
}

/// The Redis edit matching listd's `addOrRemove`: each one changes the set (an add, then the
/// remove of the same member), so each is appended and fsynced before its reply.
func redisAddOrRemove(_ index: Int, member: String = "probe", set: String = "busy") -> String {
    "\(index % 2 == 0 ? "SADD" : "SREM") \(set) \(member)"
}

/// A whole process's cost: wall clock from spawn to exit, and the CPU it used (user + system,
/// from wait4), in ms.
struct ProcessCost {
    var wallMs: Double
    var cpuMs: Double
    /// Minor and major: the pages the process first touched (a count, not a time, so the same
    /// from run to run on a noisy machine).
    var pageFaults: Double
}

/// Runs `path` to its end, its output discarded, and says what it cost.
func timedRun(_ path: String, _ arguments: [String]) throws -> ProcessCost {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = now()
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
    guard spawned == 0 else { throw BenchError("posix_spawn \(path): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
        guard errno == EINTR else { throw BenchError("wait4 \(path): \(String(cString: strerror(errno)))") }
    }
    let wall = ms(now() - start)
    func millis(_ time: timeval) -> Double { Double(time.tv_sec) * 1e3 + Double(time.tv_usec) / 1e3 }
    return ProcessCost(
        wallMs: wall,
        cpuMs: millis(usage.ru_utime) + millis(usage.ru_stime),
        pageFaults: Double(usage.ru_minflt + usage.ru_majflt)
    )
}
