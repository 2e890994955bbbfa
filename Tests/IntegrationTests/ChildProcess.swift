import Foundation
import Glibc
import Testing

/// A child process started with posix_spawn and reaped with waitpid by this type alone.
///
/// Foundation's `Process` is not used: with many children started from parallel tests, its
/// `waitUntilExit` was seen here spinning forever on a child that had already exited.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let executable: String
    /// Read ends of the child's stdout and stderr pipes (the same pipe when merged).
    let stdout: Int32
    let stderr: Int32
    private let lock = NSLock()
    private var status: Int32?
    private static let spawnLock = NSLock()

    /// Starts `executable`. With `mergeOutput`, stderr goes to the stdout pipe.
    init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        mergeOutput: Bool = false
    ) throws {
        // Other tests spawn children at the same time: a pipe end must be close-on-exec before
        // any child can be spawned, or it leaks into a child that outlives its test.
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0 else { throw TestFailure("pipe failed") }
        if mergeOutput {
            errPipe = outPipe
        } else {
            guard pipe(&errPipe) == 0 else { throw TestFailure("pipe failed") }
        }
        for fd in Set(outPipe + errPipe) { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        // A child starts as from a person's shell: no signal blocked (the spawning thread may be
        // one of Dispatch's, which block them all) and the stop signals at their default (the
        // test runner may ignore SIGINT, and an ignored signal stays ignored across exec).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for stop in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, stop) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, env)
        close(outPipe[1])
        if !mergeOutput { close(errPipe[1]) }
        guard result == 0 else {
            close(outPipe[0])
            if !mergeOutput { close(errPipe[0]) }
            throw TestFailure("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        self.executable = executable
        stdout = outPipe[0]
        stderr = errPipe[0]
    }

    deinit {
        if !hasExited {
            Glibc.kill(pid, SIGKILL)
            _ = reap()
        }
        close(stdout)
        if stderr != stdout { close(stderr) }
    }

    /// The exit status (128 + signal for a signalled child), once it has exited.
    var exitStatus: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        status = Self.decode(raw)
        return status
    }

    var hasExited: Bool { exitStatus != nil }

    /// How long `wait()` and `run` wait for a child before they fail the test and kill it.
    static let exitLimit: Double = 120

    /// Waits until the child exits; returns its status. A child still running after `limit`
    /// seconds fails the test (naming it) and is killed: no test hangs on one.
    @discardableResult
    func wait(limit: Double = exitLimit) -> Int32 {
        if wait(timeout: limit) == nil {
            Issue.record("\(executable) (pid \(pid)) did not exit within \(limit) s; killed")
            Glibc.kill(pid, SIGKILL)
        }
        return reap()
    }

    /// Blocks until the child, killed or exiting, is reaped.
    private func reap() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        status = Self.decode(raw)
        return status!
    }

    /// Waits at most `timeout` seconds for the child to exit; its status, or nil if it still runs.
    @discardableResult
    func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = exitStatus { return status }
            usleep(2_000)
        }
        return exitStatus
    }

    func signal(_ signal: Int32) {
        if !hasExited { Glibc.kill(pid, signal) }
    }

    private static func decode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7F
        return signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
    }

    /// Runs to completion, collecting stdout and stderr.
    static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        limit: Double = exitLimit
    ) throws -> Run {
        let child = try ChildProcess(executable, arguments, environment: environment)
        var out: [UInt8] = []
        var err: [UInt8] = []
        var open: [Int32: Bool] = [child.stdout: true, child.stderr: true]
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(limit)
        while open.values.contains(true) {
            // Output open past the limit: `wait` below fails the test and kills the child.
            guard Date() < deadline else { break }
            var fds = open.filter(\.value).map { pollfd(fd: $0.key, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), 1_000) <= 0 { continue }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &chunk, chunk.count)
                if count <= 0 {
                    open[entry.fd] = false
                } else if entry.fd == child.stdout {
                    out += chunk[..<count]
                } else {
                    err += chunk[..<count]
                }
            }
        }
        let status = child.wait(limit: limit)
        return Run(
            status: status,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self)
        )
    }
}

/// Reads lines from a file descriptor with a timeout.
final class LineReader: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(_ fd: Int32) { self.fd = fd }

    /// A whole line if one has arrived already, without waiting.
    func lineIfReady() -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if buffer.firstIndex(of: 0x0A) == nil, poll(&poller, 1, 0) > 0 {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(fd, &chunk, chunk.count)
            if count > 0 { buffer += chunk[..<count] }
        }
        guard let newline = buffer.firstIndex(of: 0x0A) else { return nil }
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
    }

    func line(timeout: Double = 10) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard Date() < deadline else { throw TestFailure("no line within \(timeout) s") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) > 0 {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let count = read(fd, &chunk, chunk.count)
                if count <= 0 { throw TestFailure("pipe closed") }
                buffer += chunk[..<count]
            }
        }
    }
}

/// Everything left to read from `fd` (a child's pipe once it has exited), as text.
func readToEnd(_ fd: Int32) -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(fd, &chunk, chunk.count)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
