import Foundation
import Glibc
import Testing

/// The directory holding the binaries `swift build` made next to this test bundle.
enum Binaries {
    static let directory: URL = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent()
    }()

    static var listd: URL { directory.appendingPathComponent("listd") }
    static var listctl: URL { directory.appendingPathComponent("listctl") }
}

/// What a test needs of the machine (a tool, a privilege). Outside CI a test whose need is not
/// met is skipped and says why; under CI (`CI=true`: `make test` installed everything and runs as
/// root) it runs, and its first line fails it, naming what is missing: nothing hides there.
enum Requirement {
    static var underCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// For `.enabled(if:)`.
    static func runs(_ met: Bool, needing what: String) -> Bool {
        if met || underCI { return true }
        print("skipped: needs \(what) (with CI=true this fails instead)")
        return false
    }

    /// The first line of such a test.
    static func check(_ met: Bool, needing what: String) throws {
        guard met else {
            throw TestFailure(
                "needs \(what), which this machine lacks (CI=true: a missing need fails, it is not skipped)"
            )
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A fresh private directory for one test's socket and list file, removed at the end.
final class Sandbox: @unchecked Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/listd-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        path = String(cString: made)
        socket = path + "/listd.sock"
        file = path + "/lists.md"
    }

    var socket: String
    var file: String

    /// A shell script `name` in the sandbox (`#!/bin/sh` and `body`), executable; its path.
    /// Written through a close-on-exec descriptor: a process another test starts meanwhile must
    /// not inherit it open for writing, or running the script fails with "Text file busy".
    func script(_ name: String, _ body: String) throws -> String {
        let target = path + "/" + name
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw TestFailure("cannot write \(target): errno \(errno)") }
        let bytes = Array(("#!/bin/sh\n" + body).utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw TestFailure("cannot write \(target)") }
        return target
    }

    func read(_ name: String = "lists.md") throws -> String {
        try String(contentsOfFile: path + "/" + name, encoding: .utf8)
    }

    /// The list file with the `rev=N` of its headings taken out: for a test that compares the
    /// file's lines, not the revision listd last wrote it at.
    func readLines(_ name: String = "lists.md") throws -> String {
        try read(name).withoutRevisions
    }

    /// The list file once `condition` holds of it, or as it is after `timeout` seconds: listd
    /// rewrites the file shortly after a confirm (the change log is what makes a confirm durable).
    func read(_ name: String = "lists.md", when condition: (String) -> Bool, timeout: Double = 5) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let text = (try? read(name)) ?? ""
            if condition(text) || Date() > deadline { return text }
            usleep(2_000)
        }
    }

    /// The list file as listd wrote it at `revision` (its headings say `rev=N`), with the
    /// revisions taken out: the fence for reading listd's rewrite after a change, which follows
    /// the confirm and its notification by as long as the machine is busy.
    func lines(writtenAt revision: Int, _ name: String = "lists.md") throws -> String {
        let text = try read(name, when: { $0.contains("rev=\(revision) ") }, timeout: 20)
        try #require(text.contains("rev=\(revision) "), "the file to be rewritten at revision \(revision): \(text)")
        return text.withoutRevisions
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The real listd binary, running on a sandbox's socket and file.
final class Daemon: @unchecked Sendable {
    let sandbox: Sandbox
    private(set) var child: ChildProcess?
    private var logText = Data()
    private let logLock = NSLock()
    /// The log reader of the last launch reached the end of listd's output (listd exited and
    /// its output is all in `logText`).
    private var logEnded = false
    /// Extra environment for listd (NOTIFY_SOCKET, WATCHDOG_USEC, …).
    var environment: [String: String] = [:]
    /// A command listd is run through (`setpriv …` to run it as another user), or none.
    var launcher: [String] = []

    init(_ sandbox: Sandbox) {
        self.sandbox = sandbox
    }

    var pid: Int32? { child?.pid }

    /// Everything listd wrote to stderr so far (as far as the reader has taken it), across restarts.
    var logOutput: String {
        logLock.lock()
        defer { logLock.unlock() }
        return String(decoding: logText, as: UTF8.self)
    }

    /// Whether listd logs `text`, waiting for it up to `seconds` (listd logs as it goes, and the
    /// log reader takes it on a thread of its own).
    func logShows(_ text: String, within seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !logOutput.contains(text) {
            guard Date() < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    /// Starts listd and waits until its socket accepts connections.
    static func start() throws -> Daemon {
        try start(in: try Sandbox())
    }

    static func start(in sandbox: Sandbox, arguments: [String] = []) throws -> Daemon {
        let daemon = Daemon(sandbox)
        try daemon.start(arguments: arguments)
        return daemon
    }

    private func launch(arguments: [String]) throws -> ChildProcess {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        // A test's own connections are fixtures, often quiet while a browser starts or a load
        // runs: listd lets go of a quiet one that never said hello after a minute, and on a
        // loaded machine that minute has passed in a test about something else. Ten minutes
        // here, unless the test sets it (LimitsTests sets 300 ms to test the rule itself).
        let idle = arguments.contains("--idle-ms") ? [] : ["--idle-ms", "600000"]
        let command = launcher + [Binaries.listd.path, "--socket", sandbox.socket, "--file", sandbox.file] + idle + arguments
        let child = try ChildProcess(
            command[0],
            Array(command.dropFirst()),
            environment: env,
            mergeOutput: true
        )
        self.child = child
        // Collect the log on a thread of its own, on a descriptor of its own (the child closes
        // its own when it goes, and the number is soon another connection's); it ends when listd
        // closes its end.
        let fd = dup(child.stdout)
        logLock.withLock { logEnded = false }
        Thread.detachNewThread { [weak self] in
            defer {
                close(fd)
                if let self { self.logLock.withLock { self.logEnded = true } }
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(fd, &chunk, chunk.count)
                if count <= 0 { return }
                guard let self else { return }
                self.logLock.lock()
                self.logText.append(contentsOf: chunk[..<count])
                self.logLock.unlock()
            }
        }
        return child
    }

    /// Starts (or restarts) listd and waits until it, this very process, answers on the socket.
    func start(arguments: [String] = []) throws {
        // listd makes its inotify instance while starting: not while a test has lowered the
        // system's inotify queue limit for its own listd.
        let lock = InotifyLimitLock(.shared)
        defer { lock.release() }
        try startWithoutLock(arguments: arguments)
    }

    func startWithoutLock(arguments: [String] = []) throws {
        let child = try launch(arguments: arguments)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let status = child.exitStatus {
                throw TestFailure("listd exited with \(status): \(logOutput)")
            }
            if let connection = try? LineConnection(path: sandbox.socket),
                let hello = try? connection.result("hello"),
                hello["pid"] as? Int32 == child.pid
            {
                return
            }
            usleep(20_000)
        }
        throw TestFailure("listd did not start listening within 15 s: \(logOutput)")
    }

    /// Runs listd expecting it to refuse to start; returns its exit status.
    /// Its log is whole when this returns: the reader has reached the end of listd's output (a
    /// test reading `logOutput` right after the exit found it empty on a loaded machine).
    func startExpectingExit(arguments: [String] = [], timeout: Double = 15) throws -> Int32 {
        let status = try exitStatus(of: try launch(arguments: arguments), within: timeout, else: "listd kept running")
        let deadline = Date().addingTimeInterval(10)
        while !logLock.withLock({ logEnded }), Date() < deadline { usleep(2_000) }
        return status
    }

    /// `child`'s exit status once it exits, waiting at most `timeout` seconds; past that it is
    /// killed and `failure` thrown.
    private func exitStatus(of child: ChildProcess, within timeout: Double, else failure: @autoclosure () -> String) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while !child.hasExited {
            if Date() > deadline {
                kill()
                throw TestFailure(failure())
            }
            usleep(20_000)
        }
        return child.wait()
    }

    /// SIGTERM, then wait; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        guard let child else { return 0 }
        child.signal(SIGTERM)
        return child.wait()
    }

    /// SIGTERM, then wait at most `timeout` seconds (a stop that hangs is killed and fails the
    /// test); returns the exit status.
    func stop(within timeout: Double) throws -> Int32 {
        guard let child else { return 0 }
        child.signal(SIGTERM)
        return try exitStatus(of: child, within: timeout, else: "listd did not stop within \(Int(timeout)) s of SIGTERM: \(self.logOutput)")
    }

    /// SIGKILL: no chance to flush or clean up.
    func kill() {
        guard let child else { return }
        child.signal(SIGKILL)
        child.wait()
    }

    deinit {
        // LISTD_TEST_LOG=1 swift test --filter …: listd's whole log (a crash's backtrace too).
        if ProcessInfo.processInfo.environment["LISTD_TEST_LOG"] != nil { FileHandle.standardError.write(Data(logOutput.utf8)) }
        kill()
    }
}

/// A plain blocking Unix-socket connection that speaks lines: the test's own client, sharing no
/// code with listd or ListClient.
final class LineConnection: @unchecked Sendable {
    /// How long a read waits for a line before the test fails: a hang's bound, not a speed. A
    /// reply may wait out a deadline of listd's own (5 s for a gone shared server), and a full
    /// run on two cores has stretched that past 10 s (SharingTests, once).
    static let silenceBound: Double = 30

    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        // Close on failure here, before `fd` is set: a throwing init that had set it would also
        // run deinit, and a second close could hit a descriptor another test just opened.
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8.prefix(raw.count - 1)))
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            let code = errno
            close(descriptor)
            throw TestFailure("connect(\(path)): \(String(cString: strerror(code)))")
        }
        fd = descriptor
    }

    deinit { close(fd) }

    /// Ends the connection now (the descriptor itself is closed once, by deinit).
    func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Says it will send nothing more (`shutdown(SHUT_WR)`); replies can still be read.
    func finishSending() {
        shutdown(fd, Int32(SHUT_WR))
    }

    func send(_ text: String) throws {
        try sendBytes(Array((text + "\n").utf8))
    }

    func sendBytes(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 { throw TestFailure("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// The next line, or nil when the peer closed; throws after `timeout` seconds of silence.
    func readLine(timeout: Double = LineConnection.silenceBound) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { throw TestFailure("no line within \(timeout) s") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(remaining * 1000)) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[..<count]
        }
    }

    /// The first message once `marker` has run: the fence that shows nothing more arrives. A
    /// quiet wait alone passes whether listd stopped sending or not; so after it `marker` makes
    /// something this connection surely receives (a change it hears, a reply), and the caller
    /// asserts that the very next message is that. A message that arrives during the quiet wait
    /// is returned at once, without `marker`, for the assertion to name.
    func firstMessage(afterQuiet seconds: Double = 0.2, marker: () throws -> Void) throws -> [String: Any] {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if buffer.contains(UInt8(ascii: "\n")) || poll(&poller, 1, Int32(seconds * 1000)) > 0 {
            return try readObject()
        }
        try marker()
        return try readObject()
    }

    /// Nothing more arrives here: after a quiet wait, this connection's own request (`hello`) is
    /// answered before anything else comes.
    func expectNothingBeforeAReply(
        _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let first = try firstMessage { try send(#"{"jsonrpc":"2.0","id":"fence","method":"hello"}"#) }
        #expect(
            first["id"] as? String == "fence",
            "\(comment.map { "\($0): " } ?? "")\(first) came first",
            sourceLocation: sourceLocation
        )
    }

    /// Nothing more arrives on this subscription: after a quiet wait, `marker` makes a change it
    /// hears, and the very next message is that change's notification (`isMarker` of its params).
    func expectNothingBeforeMarker(
        _ marker: () throws -> Void,
        isMarker: ([String: Any]) -> Bool,
        _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let first = try firstMessage(marker: marker)
        #expect(
            (first["params"] as? [String: Any]).map(isMarker) == true,
            "\(comment.map { "\($0): " } ?? "")\(first) came before the marker",
            sourceLocation: sourceLocation
        )
    }

    /// The next line as a JSON value.
    func readJSON(timeout: Double = LineConnection.silenceBound) throws -> Any {
        guard let line = try readLine(timeout: timeout) else { throw TestFailure("connection closed") }
        return try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
    }

    func readObject(timeout: Double = LineConnection.silenceBound) throws -> [String: Any] {
        let value = try readJSON(timeout: timeout)
        guard let object = value as? [String: Any] else { throw TestFailure("not an object: \(value)") }
        return object
    }

    private var nextID = 1

    /// Sends a request and returns its reply (skipping notifications that arrive first).
    func call(_ method: String, _ params: [String: Any]? = nil, timeout: Double = LineConnection.silenceBound) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method]
        if let params { message["params"] = params }
        try send(String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self))
        while true {
            let reply = try readObject(timeout: timeout)
            if reply["method"] != nil { continue }
            guard (reply["id"] as? Int) == id else { throw TestFailure("reply for another id: \(reply)") }
            return reply
        }
    }

    /// The `result` of a call that must succeed.
    func result(_ method: String, _ params: [String: Any]? = nil) throws -> [String: Any] {
        let reply = try call(method, params)
        guard let result = reply["result"] as? [String: Any] else { throw TestFailure("\(method) failed: \(reply)") }
        return result
    }

    /// The `error` of a call that must fail.
    func error(_ method: String, _ params: [String: Any]? = nil) throws -> [String: Any] {
        let reply = try call(method, params)
        guard let error = reply["error"] as? [String: Any] else {
            throw TestFailure("\(method) did not fail: \(reply)")
        }
        return error
    }
}

/// `body`'s result, or a failure naming `what` once `seconds` pass first (`body` is cancelled
/// then: a `for await` over a stream ends on cancellation). No test waits for ever on a stream.
func withTimeLimit<T: Sendable>(
    _ seconds: Double,
    waitingFor what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestFailure("waited \(seconds) s for \(what)")
        }
        return value
    }
}

/// Waits for `group`, at most `seconds`; a failure naming `what` after that.
func wait(for group: DispatchGroup, _ what: String, seconds: Double = 120) throws {
    if group.wait(timeout: .now() + seconds) == .timedOut {
        throw TestFailure("waited \(seconds) s for \(what)")
    }
}

/// A marker's test: the notified list holds `item`.
func listHolds(_ item: String) -> ([String: Any]) -> Bool {
    { params in ((params["list"] as? [String: Any])?["items"] as? [String])?.contains(item) == true }
}

/// A marker's test: the notified list is named `name`.
func listNamed(_ name: String) -> ([String: Any]) -> Bool {
    { params in (params["list"] as? [String: Any])?["name"] as? String == name }
}

/// The outcome of running listctl.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the real listctl against `socket`.
func listctl(_ arguments: [String], socket: String?, environment: [String: String] = [:]) throws -> Run {
    var env = ProcessInfo.processInfo.environment
    env["LISTD_SOCKET"] = socket
    if socket == nil { env.removeValue(forKey: "LISTD_SOCKET") }
    for (key, value) in environment { env[key] = value }
    return try ChildProcess.run(Binaries.listctl.path, arguments, environment: env)
}

/// Serialises lowering fs.inotify.max_queued_events (exclusive) with making inotify instances
/// (shared), across test targets, through flock on a file.
struct InotifyLimitLock {
    enum Mode { case shared, exclusive }
    private let fd: Int32

    init(_ mode: Mode) {
        fd = open("/tmp/listd-tests-inotify.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        while flock(fd, mode == .shared ? LOCK_SH : LOCK_EX) != 0, errno == EINTR {}
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// Runs `command` with `sh -c` in the sandbox's directory (a person at a shell); a failure
/// fails the test, naming the command.
func shell(in sandbox: Sandbox, _ command: String) throws {
    let run = try ChildProcess.run("/bin/sh", ["-c", "cd '\(sandbox.path)' && \(command)"])
    #expect(run.status == 0, "\(command): \(run.stderr)")
}

/// Runs blocking socket calls on a thread of their own: blocking a thread of Swift's small
/// cooperative pool (two threads here) for seconds would starve whatever other tests run on it
/// meanwhile, delegates that must answer within their timeout among them. The body stays in the
/// test's own task (only its executor differs), so an expectation that fails in it is reported
/// under the test.
func offThePool(_ body: @escaping @Sendable () throws -> Void) async throws {
    try await withTaskExecutorPreference(DedicatedThreadExecutor()) {
        try body()
    }
}

/// The same, for a body that also awaits (a page connection's replies beside a browser).
func offThePool(_ body: @escaping @Sendable () async throws -> Void) async throws {
    try await withTaskExecutorPreference(DedicatedThreadExecutor()) {
        try await body()
    }
}

/// A task executor that runs each job on a Dispatch queue of its own, outside the cooperative pool.
final class DedicatedThreadExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "offThePool")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension String {
    /// The text with the `rev=N` (and the `of=` naming the listd) of listd's heading comments
    /// taken out.
    var withoutRevisions: String { replacing(/\ rev=\d+(?: of=[0-9a-f]+)? -->/, with: " -->") }
    /// The text with the `of=` naming the listd that wrote it taken out of listd's heading comments.
    var withoutListdName: String { replacing(/\ of=[0-9a-f]+ -->/, with: " -->") }
}
