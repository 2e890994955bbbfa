import Foundation
import Glibc
import Testing

/// The units in systemd/, with @BINDIR@ and @DOCDIR@ filled in for this build.
private func renderUnits(_ kind: String, into directory: String) throws {
    let source = Binaries.directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("systemd/\(kind)").path
    let docs = Binaries.directory.path
    for unit in ["listd.socket", "listd.service", "listd-web.service"] {
        let text = try String(contentsOfFile: source + "/" + unit, encoding: .utf8)
            .replacingOccurrences(of: "@BINDIR@", with: Binaries.directory.path)
            .replacingOccurrences(of: "@DOCDIR@", with: docs)
        try text.write(toFile: directory + "/" + unit, atomically: true, encoding: .utf8)
    }
}

@Suite(.offThePool) struct UnitFileTests {
    @Test func theSystemUnitsVerifyAndScoreAtMostOne() throws {
        let sandbox = try Sandbox()
        try renderUnits("system", into: sandbox.path)
        let verify = try ChildProcess.run(
            "/usr/bin/systemd-analyze",
            ["verify", sandbox.path + "/listd.socket", sandbox.path + "/listd.service"]
        )
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.isEmpty, "\(verify.stderr)")
        let security = try ChildProcess.run(
            "/usr/bin/systemd-analyze",
            ["security", "--offline=true", sandbox.path + "/listd.service"]
        )
        let line = try #require(security.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = try #require(Double(line.split(separator: ":")[1].split(separator: " ")[0]))
        #expect(score <= 1.0, "\(line)")
    }

    /// listd-web faces a network: hardened as listd (but for the network it serves on), and
    /// bounded: descriptors, memory, threads.
    @Test func theSystemWebUnitVerifiesScoresAtMostOneAndAHalfAndIsBounded() throws {
        let sandbox = try Sandbox()
        try renderUnits("system", into: sandbox.path)
        let unit = sandbox.path + "/listd-web.service"
        let verify = try ChildProcess.run("/usr/bin/systemd-analyze", ["verify", unit])
        #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stderr)")
        let security = try ChildProcess.run("/usr/bin/systemd-analyze", ["security", "--offline=true", unit])
        let line = try #require(security.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = try #require(Double(line.split(separator: ":")[1].split(separator: " ")[0]))
        #expect(score <= 1.5, "\(line)")
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        for setting in ["LimitNOFILE=", "MemoryMax=", "TasksMax="] {
            #expect(text.contains("\n" + setting), "listd-web.service sets no \(setting)")
        }
        let user = try String(contentsOfFile: Binaries.directory.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("systemd/user/listd-web.service").path, encoding: .utf8)
        #expect(user.contains("\nLimitNOFILE="))
    }

    /// Issue 61: the user units scored 9.6 (listd-web had only NoNewPrivileges). They are held
    /// to 5.0 with what a user's own service manager can apply (Tests/e2e runs them under one).
    @Test func theUserUnitsVerifyAndScoreAtMostFive() throws {
        let sandbox = try Sandbox()
        try renderUnits("user", into: sandbox.path)
        let runtime = sandbox.path + "/runtime"
        try FileManager.default.createDirectory(
            atPath: runtime,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime
        let verify = try ChildProcess.run(
            "/usr/bin/systemd-analyze",
            ["--user", "verify", sandbox.path + "/listd.socket", sandbox.path + "/listd.service", sandbox.path + "/listd-web.service"],
            environment: environment
        )
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.isEmpty, "\(verify.stderr)")
        for unit in ["listd.service", "listd-web.service"] {
            let security = try ChildProcess.run(
                "/usr/bin/systemd-analyze",
                ["--user", "security", "--offline=true", sandbox.path + "/" + unit],
                environment: environment
            )
            let line = try #require(security.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") })
            let score = try #require(Double(line.split(separator: ":")[1].split(separator: " ")[0]))
            #expect(score <= 5.0, "\(line)")
        }
    }
}

/// A datagram socket standing in for the service manager's NOTIFY_SOCKET.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8.prefix($0.count - 1))) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            throw TestFailure("bind(\(path)) failed")
        }
        fd = descriptor
    }

    deinit { close(fd) }

    /// The next datagram, or nil after `timeout` seconds.
    func receive(timeout: Double = 10) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Datagrams until one contains `text` (returned), skipping others.
    func await(_ text: String, timeout: Double = 10) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let message = receive(timeout: deadline.timeIntervalSinceNow), message.contains(text) { return message }
        }
        throw TestFailure("no notification containing \(text)")
    }
}

@Suite(.offThePool) struct ServiceManagerTests {
    @Test func readyStatusWatchdogReloadingAndStoppingReachTheNotifySocket() throws {
        let sandbox = try Sandbox()
        let notify = try NotifySocket(path: sandbox.path + "/notify.sock")
        let daemon = Daemon(sandbox)
        daemon.environment = ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"]
        try daemon.start()

        let ready = try notify.await("READY=1")
        #expect(ready.contains("STATUS=0 lists, 0 subscribers"))
        // Two event loops alive: a keep-alive every half interval (200 ms).
        _ = try notify.await("WATCHDOG=1", timeout: 2)
        _ = try notify.await("WATCHDOG=1", timeout: 2)

        _ = try LineConnection(path: sandbox.socket).result("createList", ["name": "Groceries"])
        let status = try notify.await("STATUS=1 list")
        #expect(status.contains("last change: revision 1 by pid "))

        kill(daemon.pid!, SIGHUP)
        _ = try notify.await("RELOADING=1")
        #expect(try notify.await("READY=1").contains("STATUS=1 list"))

        kill(daemon.pid!, SIGTERM)
        _ = try notify.await("STOPPING=1")
        #expect(daemon.stop() == 0)
    }

    @Test func socketActivationStartsListdOnTheFirstConnection() throws {
        let sandbox = try Sandbox()
        let activator = try ChildProcess(
            "/usr/bin/systemd-socket-activate",
            ["-l", sandbox.socket, Binaries.listd.path, "--file", sandbox.file],
            mergeOutput: true
        )
        defer {
            activator.signal(SIGTERM)
            activator.wait()
        }
        var listening = false
        for _ in 0..<200 where !listening {
            usleep(20_000)
            listening = FileManager.default.fileExists(atPath: sandbox.socket)
        }
        #expect(listening)
        // Until a client connects, the process is still systemd-socket-activate, and no list file exists.
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(activator.pid)/exe").hasSuffix(
                "systemd-socket-activate"
            )
        )
        #expect(!FileManager.default.fileExists(atPath: sandbox.file))

        let run = try listctl(["create", "Groceries", "milk"], socket: sandbox.socket)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Created Groceries (id 1) with 1 item.\n")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(activator.pid)/exe")
                == Binaries.listd.path
        )
        #expect(try sandbox.read { $0.contains("- [ ] milk") }.contains("- [ ] milk"))
        // The socket belongs to the activator: listd leaves it in place when it stops.
        activator.signal(SIGTERM)
        #expect(activator.wait() == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.socket))
    }
}

/// A real journald, started by the test when none runs, receives listd's structured entries.
private enum Journald {
    static let need = "root and systemd-journald"
    static var canRun: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd-journald")
    }
}

/// One at a time: a test stops the journald it started.
@Suite(.offThePool, .serialized, .enabled(if: Requirement.runs(Journald.canRun, needing: Journald.need)))
struct JournalTests {
    static let journalSocket = "/run/systemd/journal/socket"

    /// Runs `body` with a journald listening: the machine's, or one started for it and stopped
    /// (by pid) when it returns.
    static func withJournald(_ body: () throws -> Void) throws {
        func listening() -> Bool {
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(journalSocket.utf8)) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            } == 0
        }
        if listening() { return try body() }
        let journald = try ChildProcess("/lib/systemd/systemd-journald", [], mergeOutput: true)
        defer {
            journald.signal(SIGTERM)
            journald.wait()
        }
        for _ in 0..<250 where !listening() && !journald.hasExited { usleep(20_000) }
        guard listening() else { throw TestFailure("journald did not start (status \(journald.exitStatus ?? -1))") }
        try body()
    }

    /// The journal entries for `listName`, as JSON objects.
    static func entries(listName: String, count: Int) throws -> [[String: Any]] {
        for _ in 0..<100 {
            let run = try ChildProcess.run(
                "/usr/bin/journalctl",
                ["-o", "json", "--no-pager", "SYSLOG_IDENTIFIER=listd", "LIST_NAME=\(listName)"]
            )
            let entries = run.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            if entries.count >= count { return entries }
            usleep(50_000)
        }
        throw TestFailure("fewer than \(count) journal entries for \(listName)")
    }

    @Test func everyChangeAndDenialIsOneStructuredEntry() throws {
        try Requirement.check(Journald.canRun, needing: Journald.need)
        try Self.withJournald(everyChangeAndDenialIsOneStructuredEntryWithJournald)
    }

    private func everyChangeAndDenialIsOneStructuredEntryWithJournald() throws {
        let daemon = try Daemon.start(in: try Sandbox(), arguments: ["--log", "journal"])
        let name = "Groceries-\(UUID().uuidString.prefix(8))"
        let client = try LineConnection(path: daemon.sandbox.socket)
        _ = try client.result("hello", ["name": "journal-test"])
        _ = try client.result("createList", ["name": name])
        _ = try client.result("addItem", ["list": name, "item": "milk"])
        _ = try client.error("addItem", ["list": name, "item": "MILK"])
        _ = try client.error("removeItem", ["list": 1, "item": "bread"])

        let entries = try Self.entries(listName: name, count: 4)
        let added = try #require(
            entries.first {
                $0["MESSAGE"] as? String
                    == "added “milk” to \(name) (revision 2, by journal-test (pid \(getpid()), uid 0))"
            }
        )
        #expect(added["ITEM"] as? String == "milk")
        #expect(added["LIST_ID"] as? String == "1")
        #expect(added["REVISION"] as? String == "2")
        #expect(added["ORIGIN"] as? String == "client")
        #expect(added["CLIENT_PID"] as? String == "\(getpid())")
        #expect(added["CLIENT_UID"] as? String == "0")
        #expect(added["PRIORITY"] as? String == "6")
        #expect((added["CODE_FILE"] as? String)?.hasSuffix("JournalEntries.swift") == true)
        #expect(added["CODE_LINE"] != nil)
        #expect(added["CODE_FUNC"] != nil)
        let denied = try #require(entries.first { $0["REASON"] as? String == "itemExists" })
        #expect(denied["PRIORITY"] as? String == "5")
        #expect((denied["MESSAGE"] as? String)?.hasPrefix("denied: “milk” is already on \(name).") == true)
        // Every entry about an existing list names it both ways (issue 12, defect 3), however
        // the edit referred to it.
        #expect(denied["LIST_ID"] as? String == "1")
        let byID = try #require(
            entries.first { $0["REASON"] as? String == "itemNotFound" },
            "a denial of an edit naming the list by id"
        )
        #expect(byID["LIST_ID"] as? String == "1")
        #expect(byID["LIST_NAME"] as? String == name)
        // Nothing went to stderr.
        #expect(!daemon.logOutput.contains("added “milk”"))
    }

    @Test func underSystemdTheJournalIsChosenWithoutBeingAsked() throws {
        try Requirement.check(Journald.canRun, needing: Journald.need)
        try Self.withJournald(underSystemdTheJournalIsChosenWithoutBeingAskedWithJournald)
    }

    private func underSystemdTheJournalIsChosenWithoutBeingAskedWithJournald() throws {
        let sandbox = try Sandbox()
        // What systemd does for a service: JOURNAL_STREAM names the device and inode of stderr.
        let script =
            "export JOURNAL_STREAM=$(stat -L -c '%d:%i' /proc/self/fd/2); exec '\(Binaries.listd.path)' --socket '\(sandbox.socket)' --file '\(sandbox.file)'"
        let child = try ChildProcess("/bin/sh", ["-c", script], mergeOutput: true)
        defer {
            child.signal(SIGTERM)
            child.wait()
        }
        var client: LineConnection?
        for _ in 0..<250 where client == nil {
            usleep(20_000)
            client = try? LineConnection(path: sandbox.socket)
        }
        let name = "Auto-\(UUID().uuidString.prefix(8))"
        _ = try #require(client).result("createList", ["name": name])
        let entries = try Self.entries(listName: name, count: 1)
        #expect(
            entries.first?["MESSAGE"] as? String == "created list “\(name)” (revision 1, by pid \(getpid()) (uid 0))"
        )
    }
}
