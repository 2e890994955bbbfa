import Foundation
import Glibc
import Testing

/// A real PostgreSQL server of the test's own: `initdb` in a temporary directory, `postgres`
/// listening on a Unix socket in it only (no TCP port), stopped by its pid. The role `listd`
/// (password `secret`, a password checked over the socket: scram-sha-256) owns the database
/// `lists`. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.
final class PostgresServer: @unchecked Sendable {
    let directory: String
    var data: String { directory + "/data" }
    private(set) var postmaster: ChildProcess?
    /// The log the server writes.
    var logPath: String { directory + "/postgres.log" }

    static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).max().map { "\(root)/\($0)/bin" }
    }()

    static var available: Bool { binaries.map { access($0 + "/initdb", X_OK) == 0 } ?? false }

    /// A URL listd connects with (`--share`).
    func url(user: String = "listd", password: String = "secret", database: String = "lists") -> String {
        "postgresql://\(user):\(password)@/\(database)?host=\(directory)"
    }

    init() throws {
        try Requirement.check(Self.available, needing: "PostgreSQL's initdb and postgres (Debian: postgresql)")
        var template = Array("/tmp/listd-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        directory = String(cString: made)
        try asServer(Self.binaries! + "/initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
        // The superuser over the socket without a password (to set up); everyone else with one.
        try "local all postgres trust\nlocal all all scram-sha-256\n".write(
            toFile: data + "/pg_hba.conf",
            atomically: true,
            encoding: .utf8
        )
        if geteuid() == 0 { _ = chown(data + "/pg_hba.conf", Self.postgresUID, Self.postgresGID) }
        try start()
        try psql("CREATE ROLE listd LOGIN PASSWORD 'secret'")
        try psql("CREATE DATABASE lists OWNER listd")
    }

    /// Starts the server (again) on the same data and waits until it accepts connections. After
    /// a SIGKILL the old server's backends may hold its shared memory for a moment: tried again.
    func start() throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let before = serverLog.count
            if try launch(until: deadline) { return }
            let said = String(serverLog.dropFirst(before))
            guard said.contains("shared memory block is still in use"), Date() < deadline else {
                throw TestFailure("postgres exited: \(said)")
            }
            usleep(100_000)
        }
    }

    /// True once the server accepts connections; false when it exited.
    private func launch(until deadline: Date) throws -> Bool {
        let server = try ChildProcess(
            asServerCommand[0],
            Array(asServerCommand.dropFirst())
                + [
                    Self.binaries! + "/postgres", "-D", data, "-k", directory, "-c", "listen_addresses=",
                    "-c", "logging_collector=off", "-c", "max_connections=100",
                ],
            mergeOutput: true
        )
        postmaster = server
        // The reader's own descriptor: `server` closes its own when it goes (at `kill`), and a
        // reader still reading that number would read whatever was opened under it next — the
        // next test connection, whose reply it took (a hello "unanswered" for 30 s).
        let log = dup(server.stdout)
        let path = logPath
        Thread.detachNewThread {
            defer { close(log) }
            let file = fopen(path, "a")
            defer { if file != nil { fclose(file) } }
            var chunk = [UInt8](repeating: 0, count: 8_192)
            while true {
                let count = read(log, &chunk, chunk.count)
                if count <= 0 { return }
                if let file { fwrite(chunk, 1, count, file); fflush(file) }
            }
        }
        while Date() < deadline {
            if server.hasExited {
                server.wait()
                postmaster = nil
                usleep(50_000)  // the log reader takes the last lines
                return false
            }
            if (try? psql("SELECT 1")) != nil { return true }
            usleep(50_000)
        }
        throw TestFailure("postgres did not accept connections within 30 s: \(serverLog)")
    }

    /// SIGKILL to the postmaster: no shutdown, as a crash or a pulled plug. Its children notice
    /// and exit; the next `start` recovers from the write-ahead log.
    func kill() {
        guard let postmaster else { return }
        resume()
        postmaster.signal(SIGKILL)
        postmaster.wait()
        self.postmaster = nil
    }

    /// SIGSTOP (`hang`) or SIGCONT (`resume`) to the postmaster and every backend: a server that
    /// keeps its sockets open and answers nothing, as a hung machine.
    func hang() { signalAll(SIGSTOP) }
    func resume() { signalAll(SIGCONT) }

    private func signalAll(_ signal: Int32) {
        guard let postmaster else { return }
        var pids = [postmaster.pid]
        // The backends are the postmaster's children: their parent is field 4 of /proc/pid/stat.
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster.pid { pids.append(pid) }
        }
        for pid in pids { Glibc.kill(pid, signal) }
    }

    /// A fast shutdown (SIGINT), waited for.
    func stop() {
        guard let postmaster else { return }
        postmaster.signal(SIGINT)
        postmaster.wait()
        self.postmaster = nil
    }

    var serverLog: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Runs SQL as the superuser.
    @discardableResult
    func psql(_ sql: String, database: String = "postgres") throws -> String {
        let run = try ChildProcess.run(
            asServerCommand[0],
            Array(asServerCommand.dropFirst())
                + [Self.binaries! + "/psql", "-h", directory, "-U", "postgres", "-d", database, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql]
        )
        guard run.status == 0 else { throw TestFailure("psql \(sql): \(run.stderr)") }
        return run.stdout
    }

    private static let postgresUID: uid_t = getpwnam("postgres")?.pointee.pw_uid ?? 0
    private static let postgresGID: gid_t = getpwnam("postgres")?.pointee.pw_gid ?? 0

    /// As root: the command runs as `postgres` (setpriv execs, so a pid is the server's own).
    private var asServerCommand: [String] {
        geteuid() == 0
            ? ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
            : ["/usr/bin/env"]
    }

    private func asServer(_ executable: String, _ arguments: [String]) throws {
        if geteuid() == 0 { _ = chown(directory, Self.postgresUID, Self.postgresGID) }
        let run = try ChildProcess.run(asServerCommand[0], Array(asServerCommand.dropFirst()) + [executable] + arguments)
        guard run.status == 0 else { throw TestFailure("\(executable): \(run.stderr)\(run.stdout)") }
    }

    deinit {
        postmaster?.signal(SIGKILL)
        postmaster?.wait()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
