// Issue 61, case 1: a device's credential reaches listd-web alone. A browser sends a cookie to
// every port of a host, so the device's cookie went to any server another local user runs on
// 127.0.0.1; the token is kept by the page in its origin's storage now, and sent by the page
// itself. A token a cookie carried before is refused.
import Foundation
import Glibc
import Testing

@Suite(.serialized) struct WebCredentialTests {
    static let needs = "chromium and chromium-driver, root and setpriv (to serve another port as nobody)"
    static var canRun: Bool { Browser.available && getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0 }

    /// Another user's server on another loopback port: answers every request with a page and
    /// writes each request's head to `log`.
    struct OtherUsersServer {
        let process: ChildProcess
        let port: UInt16
        let directory: String
        let log: String

        init() throws {
            // Not in the sandbox, which only root enters.
            var template = Array("/tmp/listd-other-user-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template), chmod(made, 0o777) == 0 else { throw TestFailure("mkdtemp failed") }
            directory = String(cString: made)
            log = directory + "/requests.log"
            let script = """
                import http.server, sys
                class Handler(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        with open(sys.argv[1], "a") as log:
                            log.write(self.requestline + "\\n" + str(self.headers) + "\\n")
                        body = b"<!doctype html><title>other</title><p>another user's page"
                        self.send_response(200)
                        self.send_header("Content-Type", "text/html")
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                    def log_message(self, *args):
                        pass
                server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """
            process = try ChildProcess(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/python3", "-c", script, log]
            )
            guard let port = UInt16(try LineReader(process.stdout).line().trimmingCharacters(in: .whitespaces)) else {
                throw TestFailure("the other user's server said no port")
            }
            self.port = port
        }

        var requests: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        func stop() {
            process.signal(SIGKILL)
            process.wait()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    @Test(.enabled(if: Requirement.runs(canRun, needing: needs)), .timeLimit(.minutes(3)))
    func anotherUsersServerOnAnotherPortGetsNothingOfThePairing() async throws {
        try Requirement.check(Self.canRun, needing: Self.needs)
        try await offThePool {
            let daemon = try Daemon.start()
            #expect(try listctl(["create", "Groceries", "milk"], socket: daemon.sandbox.socket).status == 0)
            let web = try WebServer(daemon.sandbox)
            let browser = try Browser()
            defer { browser.quit() }
            try browser.open(try web.pairingLink("Desktop browser"))
            try browser.waitUntil("the paired page showing Groceries", WebPageTests.live(showing: "milk"))

            // The control: a cookie this origin sets does reach the other port (cookies know
            // no port), so a cookie of the pairing would have been seen there.
            _ = try browser.run("document.cookie = 'control=shared-across-ports; path=/'; return true")
            let token = try #require(try browser.run("return localStorage.getItem('listd-web-token')") as? String)
            // The person later opens a page another user serves on this machine.
            let other = try OtherUsersServer()
            defer { other.stop() }
            try browser.open("http://127.0.0.1:\(other.port)/")
            try browser.waitUntil("the other user's page", "return document.title === 'other'")
            let requests = other.requests
            #expect(requests.contains("GET / HTTP/1.1"), "\(requests)")
            #expect(requests.contains("control=shared-across-ports"), "the control cookie did not reach the other port: \(requests)")
            #expect(!requests.contains(token) && !requests.contains("listd_device"), "the pairing reached another user's port: \(requests)")
            let devices = try String(contentsOfFile: daemon.sandbox.path + "/web/devices.json", encoding: .utf8)
            #expect(devices.contains("Desktop browser"))
            // Nor can that user's page read the token: it is kept for listd-web's origin alone.
            #expect((try browser.run("return localStorage.length") as? NSNumber)?.intValue == 0)

            // Back on listd-web's page, the pairing holds (the token was the page's own).
            try browser.open(web.address + "/")
            try browser.waitUntil("the paired page again", WebPageTests.live(showing: "milk"))
        }
    }

    /// A device paired while the token was a cookie: its token may have reached another user's
    /// server, so it is refused, everywhere, once listd-web is upgraded; the device is dropped
    /// from the file (to be paired again, said in the log) and a browser still sending the
    /// cookie is told to forget it.
    @Test(.timeLimit(.minutes(2)))
    func aTokenACookieCarriedIsRefusedAfterTheUpgrade() async throws {
        let daemon = try Daemon.start()
        _ = try listctl(["create", "Groceries", "milk"], socket: daemon.sandbox.socket)
        let token = "oldCookieTokenOldCookieTokenOldCookieToken0"
        let hash = try ChildProcess.run("/bin/sh", ["-c", "printf %s '\(token)' | sha256sum"]).stdout.prefix(64)
        try FileManager.default.createDirectory(atPath: daemon.sandbox.path + "/web", withIntermediateDirectories: true)
        let file = """
            {"devices":[{"id":"aaaaaaaa","name":"Old phone","paired":"2026-11-01T10:00:00Z","tokenSHA256":"\(hash)"}]}
            """
        try file.write(toFile: daemon.sandbox.path + "/web/devices.json", atomically: true, encoding: .utf8)
        let web = try WebServer(daemon.sandbox)
        #expect(web.logShows("must be paired again: Old phone"), "\(web.log)")

        let whoami = try HTTP.request(port: web.port, "GET", "/whoami", headers: ["Authorization": "Bearer \(token)"])
        #expect(whoami.status == 401, "\(whoami.status) \(whoami.text)")
        let page = PageConnection(server: web, token: token)
        await #expect(throws: (any Error).self) { try await page.opened() }
        let asCookie = try HTTP.request(port: web.port, "GET", "/whoami", headers: ["Cookie": "listd_device=\(token)"])
        #expect(asCookie.status == 401)
        let forget = try HTTP.request(port: web.port, "GET", "/", headers: ["Cookie": "listd_device=\(token)"])
        #expect(forget.headers["set-cookie"]?.hasPrefix("listd_device=; Path=/; Max-Age=0") == true, "\(forget.headers)")
        let devices = try String(contentsOfFile: daemon.sandbox.path + "/web/devices.json", encoding: .utf8)
        #expect(!devices.contains("Old phone") && !devices.contains(String(hash)), "\(devices)")
        // The name is free to pair again.
        #expect(try web.pair("Old phone").count >= 43)
    }
}
