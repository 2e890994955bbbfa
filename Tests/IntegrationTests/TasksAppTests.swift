// Issue 64: the lists in the phone's own apps. Real CalDAV clients from PyPI (python-caldav,
// replaying Home Assistant's calls: Tests/CalDAV/tasks_clients.py) against the real listd-web
// and listd, each step checked in listd itself; and what a tasks app is refused.
import Foundation
import Testing

@Suite(.offThePool) struct TasksAppTests {
    /// The Python with the CalDAV clients (`make dav-clients`): `$LISTD_DAV_CLIENTS`, else the
    /// project's .build-davclients.
    static var python: String {
        ProcessInfo.processInfo.environment["LISTD_DAV_CLIENTS"] ?? DocExamplesTests.root + "/.build-davclients/bin/python"
    }

    struct Paired: Decodable {
        var user: String
        var password: String
        var server: String
        /// HTTP Basic with the app password, as the app sends it.
        var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }
    }

    static func pair(_ web: WebServer, _ name: String) throws -> Paired {
        let run = try ChildProcess.run(
            Binaries.listctl.path, ["web", "pair", "--caldav", name, "--control-socket", web.controlSocket, "--json"]
        )
        guard run.status == 0 else { throw TestFailure("listctl web pair --caldav: \(run.stderr)") }
        return try JSONDecoder().decode(Paired.self, from: Data(run.stdout.utf8))
    }

    /// Behind a proxy that speaks HTTPS (`--url https://…`), as a household serves it.
    @Test func pythonCaldavThroughListdsRules() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "run make dav-clients: \(Self.python)")
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox, arguments: ["--url", "https://tasks.test", "--caldav-tombstones", "2"])
        let paired = try Self.pair(web, "Anna's Reminders")
        #expect(paired.server == "https://tasks.test/")
        let run = try ChildProcess.run(
            Self.python,
            [
                DocExamplesTests.root + "/Tests/CalDAV/tasks_clients.py", "--server", "http://127.0.0.1:\(web.port)/",
                "--user=\(paired.user)", "--password=\(paired.password)", "--device", "Anna's Reminders",
                "--socket", daemon.sandbox.socket, "--control", web.controlSocket,
            ]
        )
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(" checks; 0 failures"), "\(run.stdout)\(run.stderr)")
        // Wrong passwords are logged with the client, never the password.
        #expect(!web.log.contains(paired.password))
        withExtendedLifetime((daemon, web)) {}
    }

    /// vdirsyncer with todoman, two-way, with the household editing meanwhile; a conflict left
    /// to the person; plann; a rule refusing each (Tests/CalDAV/sync_clients.py).
    @Test func syncingClientsKeepEveryonesEdits() throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox, arguments: ["--url", "https://tasks.test"])
        let paired = try Self.pair(web, "Anna's laptop")
        let run = try Self.syncClients(daemon, web, paired, phase: "sync")
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains(" checks; 0 failures"), "\(run.stdout)\(run.stderr)")
        // Both the tasks app and the page were seen (written off the event loop, on NIO's pool).
        let devices = try ChildProcess.run(Binaries.listctl.path, ["web", "devices", "--control-socket", web.controlSocket, "--json"])
        let seen = try JSONSerialization.jsonObject(with: Data(devices.stdout.utf8)) as? [[String: Any]] ?? []
        for name in ["Anna's laptop", "Kitchen phone"] {
            #expect(seen.first { $0["name"] as? String == name }?["lastSeen"] is String, "\(name) was seen: \(devices.stdout)")
        }
        withExtendedLifetime((daemon, web)) {}
    }

    /// A sync token taken before listd restarts is answered after it, with exactly what changed.
    @Test func syncTokensSurviveListdsRestart() throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox, arguments: ["--url", "https://tasks.test"])
        let paired = try Self.pair(web, "Anna's laptop")
        let setup = try LineConnection(path: daemon.sandbox.socket)
        _ = try setup.result("createList", ["name": "Groceries", "items": ["milk", "eggs"]])
        let before = try Self.syncClients(daemon, web, paired, phase: "before")
        #expect(before.status == 0, "\(before.stdout)\(before.stderr)")
        #expect(daemon.stop() == 0)
        try daemon.start()
        let after = try Self.syncClients(daemon, web, paired, phase: "after")
        #expect(after.status == 0, "\(after.stdout)\(after.stderr)")
        #expect(after.stdout.contains(" checks; 0 failures"), "\(after.stdout)\(after.stderr)")
        withExtendedLifetime((daemon, web)) {}
    }

    /// With listd away, a tasks app is answered at once: a read from the book as it was, a write
    /// with 503 (listd away). Each request used to wait up to 5 s for the book to follow listd
    /// again (issue 64's leftover): an app's request timing out is what the person would see, so
    /// the requests here give up after 3 s.
    @Test func withListdAwayATasksAppIsAnsweredAtOnce() throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox, arguments: ["--url", "https://tasks.test"])
        let paired = try Self.pair(web, "Anna's laptop")
        let setup = try LineConnection(path: daemon.sandbox.socket)
        _ = try setup.result("createList", ["name": "Groceries", "items": ["milk"]])
        let authorization = paired.authorization
        func propfind(timeout: Int) throws -> HTTP.Reply {
            try HTTP.request(
                port: web.port,
                "PROPFIND",
                "/caldav/lists/1/",
                headers: ["Authorization": authorization, "Depth": "1"],
                timeout: timeout
            )
        }
        // Fenced: the book has milk (it follows listd).
        var seen = try propfind(timeout: 60)
        for _ in 0..<100 where !seen.text.contains("milk") {
            usleep(50_000)
            seen = try propfind(timeout: 60)
        }
        #expect(seen.status == 207 && seen.text.contains(".ics"), "\(seen.status) \(seen.text)")
        #expect(daemon.stop() == 0)
        // The follower has seen listd go (its connection closed): fenced by a first request.
        _ = try propfind(timeout: 60)
        let read = try propfind(timeout: 3)
        #expect(read.status == 207 && read.text.contains(".ics"), "a read from the book: \(read.status) \(read.text)")
        let task = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:away-1\r\nSUMMARY:bread\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let write = try HTTP.request(
            port: web.port,
            "PUT",
            "/caldav/lists/1/away-1.ics",
            headers: ["Authorization": authorization, "Content-Type": "text/calendar"],
            body: Array(task.utf8),
            timeout: 3
        )
        #expect(write.status == 503, "a write while listd is away: \(write.status) \(write.text)")
        withExtendedLifetime((daemon, web)) {}
    }

    static func syncClients(_ daemon: Daemon, _ web: WebServer, _ paired: Paired, phase: String) throws -> Run {
        let clients = URL(fileURLWithPath: python).deletingLastPathComponent().path
        return try ChildProcess.run(
            python,
            [
                DocExamplesTests.root + "/Tests/CalDAV/sync_clients.py", "--server", "http://127.0.0.1:\(web.port)/",
                "--user=\(paired.user)", "--password=\(paired.password)", "--device", "Anna's laptop",
                "--socket", daemon.sandbox.socket, "--clients", clients, "--directory", daemon.sandbox.path, "--phase", phase,
                "--control", web.controlSocket, "--origin", "https://tasks.test",
            ]
        )
    }

    /// The hrefs of the tasks of list 1, as an app lists them.
    static func taskHrefs(_ server: WebServer, _ authorization: String) throws -> Set<String> {
        let reply = try HTTP.request(
            port: server.port, "PROPFIND", "/caldav/lists/1/", headers: ["Authorization": authorization, "Depth": "1"]
        )
        return Set(reply.text.matches(of: /\/caldav\/lists\/1\/[^<]+\.ics/).map { String($0.output) })
    }

    /// Each task's UID, by href, as an app reads them.
    static func taskUIDs(_ server: WebServer, _ authorization: String) throws -> [String: String] {
        try Dictionary(
            uniqueKeysWithValues: taskHrefs(server, authorization).map { href in
                let task = try HTTP.request(port: server.port, "GET", href, headers: ["Authorization": authorization])
                return (href, task.text.firstMatch(of: /UID:([^\r\n]+)/).map { String($0.output.1) } ?? "")
            }
        )
    }

    /// listd-web killed with SIGKILL, and started again on the same files: once its book follows
    /// listd again, every task the app read before is at the same href with the same UID.
    static func killedAndStartedAgain(_ web: WebServer, _ daemon: Daemon, _ authorization: String) async throws -> WebServer {
        let synced = try taskUIDs(web, authorization)
        web.child.signal(SIGKILL)
        web.child.wait()
        let again = try WebServer(daemon.sandbox, arguments: ["--url", "https://tasks.test"])
        try await until("the book follows listd again", timeout: 30) { try taskHrefs(again, authorization).count == synced.count }
        #expect(try taskUIDs(again, authorization) == synced, "the tasks before the crash: \(synced)")
        return again
    }

    /// listd-web killed (a crash, the OOM killer, a power cut) a moment after a tasks app put a
    /// task of its own and synced one made elsewhere, before its book's next save: started again,
    /// it serves every task at the href the app has, with the UID the app has, and what only the
    /// app's PUT gave (its DUE). The app's next sync (its token is past those changes) would not
    /// tell it of a task that came back under another name: it would keep one the server no
    /// longer knows.
    @Test func aCrashOfListdWebKeepsEveryTaskWhereTheAppHasIt() async throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox, arguments: ["--url", "https://tasks.test"])
        let paired = try Self.pair(web, "Anna's phone")
        let setup = try LineConnection(path: daemon.sandbox.socket)
        _ = try setup.result("createList", ["name": "Groceries", "items": ["milk"]])
        let authorization = paired.authorization
        try await until("the book has milk", timeout: 30) { try Self.taskHrefs(web, authorization).count == 1 }
        let bread = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:app-bread\r\n"
            + "SUMMARY:bread\r\nDUE:20261201T090000Z\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        let put = try HTTP.request(
            port: web.port, "PUT", "/caldav/lists/1/app-bread.ics",
            headers: ["Authorization": authorization, "Content-Type": "text/calendar", "If-None-Match": "*"],
            body: Array(bread.utf8)
        )
        #expect(put.status == 201, "\(put.status) \(put.text)")
        _ = try setup.result("addItem", ["list": "Groceries", "item": "eggs"])
        try await until("the app synced eggs", timeout: 30) { try Self.taskHrefs(web, authorization).count == 3 }
        let again = try await Self.killedAndStartedAgain(web, daemon, authorization)
        let kept = try HTTP.request(port: again.port, "GET", "/caldav/lists/1/app-bread.ics", headers: ["Authorization": authorization])
        #expect(kept.text.contains("SUMMARY:bread") && kept.text.contains("DUE:20261201T090000Z"), "\(kept.status) \(kept.text)")
        withExtendedLifetime((daemon, again)) {}
    }

    /// listd-web killed before its first save, after a tasks app was paired and synced the lists,
    /// and something changed meanwhile: its book, made from the lists as they were at the pairing,
    /// is on disk already, so it is not made anew (every task under a new name) at the restart.
    @Test func aCrashRightAfterPairingKeepsTheTasksTheAppSaw() async throws {
        let daemon = try Daemon.start()
        let setup = try LineConnection(path: daemon.sandbox.socket)
        _ = try setup.result("createList", ["name": "Groceries", "items": ["milk"]])
        let web = try WebServer(daemon.sandbox, arguments: ["--url", "https://tasks.test"])
        let paired = try Self.pair(web, "Anna's phone")
        let authorization = paired.authorization
        try await until("the book has milk", timeout: 30) { try Self.taskHrefs(web, authorization).count == 1 }
        _ = try setup.result("addItem", ["list": "Groceries", "item": "eggs"])
        try await until("the app synced eggs", timeout: 30) { try Self.taskHrefs(web, authorization).count == 2 }
        let again = try await Self.killedAndStartedAgain(web, daemon, authorization)
        withExtendedLifetime((daemon, again)) {}
    }

    /// caldav-server-tester's feature check, kept as Tests/CalDAV/compliance-profile.json: a
    /// change of any feature's verdict fails, and is printed (its fixtures are events, which a
    /// list refuses: much is "unknown"; see docs/caldav.md).
    @Test func caldavServerTesterProfileHolds() throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox, arguments: ["--url", "https://tasks.test"])
        let paired = try Self.pair(web, "caldav-server-tester")
        let setup = try LineConnection(path: daemon.sandbox.socket)
        _ = try setup.result("createList", ["name": "Tester list"])
        let clients = URL(fileURLWithPath: Self.python).deletingLastPathComponent().path
        let run = try ChildProcess.run(
            Self.python,
            [
                DocExamplesTests.root + "/Tests/CalDAV/compliance.py", "--tester", clients + "/caldav-server-tester",
                "--url", "http://127.0.0.1:\(web.port)/", "--user=\(paired.user)", "--password=\(paired.password)",
                "--calendar", "Tester list", "--profile", DocExamplesTests.root + "/Tests/CalDAV/compliance-profile.json",
            ]
        )
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("changed from the kept profile"), "\(run.stdout)\(run.stderr)")
        withExtendedLifetime((daemon, web)) {}
    }

    /// Served over plain HTTP (no certificate, no `--url https://`), no app password is taken:
    /// it would cross the network in the clear.
    @Test func plainHTTPServesNoTasksApp() throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox)
        let paired = try Self.pair(web, "Phone")
        let run = try ChildProcess.run(
            "/usr/bin/curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PROPFIND", "-H", "Authorization: \(paired.authorization)", "http://127.0.0.1:\(web.port)/caldav/"]
        )
        #expect(run.stdout == "403", "\(run.stdout)")
        withExtendedLifetime((daemon, web)) {}
    }
}
