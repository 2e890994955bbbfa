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

    /// Served over plain HTTP (no certificate, no `--url https://`), no app password is taken:
    /// it would cross the network in the clear.
    @Test func plainHTTPServesNoTasksApp() throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox)
        let paired = try Self.pair(web, "Phone")
        let token = Data("\(paired.user):\(paired.password)".utf8).base64EncodedString()
        let run = try ChildProcess.run(
            "/usr/bin/curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PROPFIND", "-H", "Authorization: Basic \(token)", "http://127.0.0.1:\(web.port)/caldav/"]
        )
        #expect(run.stdout == "403", "\(run.stdout)")
        withExtendedLifetime((daemon, web)) {}
    }
}
