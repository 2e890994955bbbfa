// A real browser for the page's tests: Debian's chromium, headless, driven by chromium-driver
// over WebDriver (JSON over HTTP, with the test's own HTTP client), at a phone's size.
import Foundation
import Glibc
import Testing

final class Browser: @unchecked Sendable {
    static let chromium = "/usr/bin/chromium"
    static let driver = "/usr/bin/chromedriver"
    static var available: Bool { access(chromium, X_OK) == 0 && access(driver, X_OK) == 0 }

    private let driverProcess: ChildProcess
    private let driverPort: UInt16
    private let session: String
    private let profile: String

    /// A phone: 360 × 780 CSS pixels, touch, at twice the density.
    /// `arguments`: more of Chromium's (a name resolved to this machine, say).
    init(width: Int = 360, height: Int = 780, arguments: [String] = []) throws {
        var template = Array("/tmp/listd-browser-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        profile = String(cString: made)
        (driverProcess, driverPort) = try Self.startDriver(temporaryDirectory: profile)
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": Self.chromium,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=\(width),\(height)", "--user-data-dir=\(profile)",
                            "--no-first-run", "--disable-background-networking",
                        ] + arguments,
                        "mobileEmulation": ["deviceMetrics": ["width": width, "height": height, "pixelRatio": 2, "touch": true]],
                    ],
                ]
            ]
        ]
        let reply = try Self.command(port: driverPort, "POST", "/session", capabilities)
        guard let session = (reply as? [String: Any])?["sessionId"] as? String else {
            throw TestFailure("chromedriver made no session: \(reply)")
        }
        self.session = session
    }

    /// chromedriver on a free port, answering. The port is free when chosen, not when
    /// chromedriver binds it (another test's connection may take it meanwhile: chromedriver then
    /// exits at once): another port is tried, three times in all. Chromium makes its scratch
    /// folders in `temporaryDirectory` (the profile's), so they go when the profile does, not
    /// left in /tmp by a browser the test killed.
    private static func startDriver(temporaryDirectory: String) throws -> (ChildProcess, UInt16) {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporaryDirectory
        var said = ""
        for _ in 0..<3 {
            let port = try freePort()
            let driver = try ChildProcess(Self.driver, ["--port=\(port)"], environment: environment, mergeOutput: true)
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, !driver.hasExited {
                if (try? HTTP.request(port: port, "GET", "/status", timeout: 2))?.status == 200 { return (driver, port) }
                usleep(50_000)
            }
            if !driver.hasExited {
                driver.signal(SIGKILL)
                _ = driver.wait()
            }
            let reader = LineReader(driver.stdout)
            var lines: [String] = []
            while let line = reader.lineIfReady() { lines.append(line) }
            said = lines.joined(separator: " / ")
        }
        throw TestFailure("chromedriver did not answer on three ports; it said: \(said)")
    }

    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw TestFailure("no free port") }
        return UInt16(bigEndian: address.sin_port)
    }

    @discardableResult
    private static func command(port: UInt16, _ method: String, _ path: String, _ body: Any? = nil) throws -> Any {
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
        let reply = try HTTP.request(
            port: port, method, path, headers: bytes == nil ? [:] : ["Content-Type": "application/json"], body: bytes
        )
        let object = try JSONSerialization.jsonObject(with: Data(reply.body), options: [.fragmentsAllowed]) as? [String: Any]
        guard reply.status == 200 else {
            throw TestFailure("WebDriver \(method) \(path): \(reply.status) \(reply.text.prefix(500))")
        }
        return object?["value"] ?? NSNull()
    }

    @discardableResult
    private func command(_ method: String, _ path: String, _ body: Any? = nil) throws -> Any {
        try Self.command(port: driverPort, method, "/session/\(session)\(path)", body)
    }

    func open(_ url: String) throws {
        try command("POST", "/url", ["url": url])
    }

    func reload() throws {
        try command("POST", "/refresh", [String: Any]())
    }

    /// Runs `script` in the page (a function body: `return …`).
    @discardableResult
    func run(_ script: String, _ arguments: [Any] = []) throws -> Any {
        try command("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    func text(_ selector: String) throws -> String {
        try run("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", [selector]) as? String ?? ""
    }

    func click(_ selector: String) throws {
        let found = try run(
            "const e = document.querySelector(arguments[0]); if (!e) return false; e.click(); return true", [selector]
        )
        guard found as? Bool == true else { throw TestFailure("nothing on the page matches \(selector)") }
    }

    /// Waits until `script` returns true in the page. A script that fails (the page is still
    /// the pairing page, or between two pages) counts as not yet.
    func waitUntil(_ what: String, timeout: Double = 15, _ script: String, _ arguments: [Any] = []) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while (try? run(script, arguments)) as? Bool != true {
            guard Date() < deadline else {
                let body = (try? text("body")) ?? ""
                throw TestFailure("waited \(timeout) s for \(what); the page shows:\n\(body)")
            }
            usleep(20_000)
        }
    }

    /// Switches the browser's network off or on (DevTools' network conditions: the page's
    /// requests fail and `navigator.onLine` follows, as when a phone loses signal).
    func network(online: Bool) throws {
        try command("POST", "/goog/cdp/execute", ["cmd": "Network.enable", "params": [String: Any]()])
        try command(
            "POST", "/goog/cdp/execute",
            [
                "cmd": "Network.emulateNetworkConditions",
                "params": ["offline": !online, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1],
            ]
        )
    }

    /// The system's light or dark appearance, as the page's `prefers-color-scheme` sees it.
    func colorScheme(dark: Bool) throws {
        try command(
            "POST", "/goog/cdp/execute",
            [
                "cmd": "Emulation.setEmulatedMedia",
                "params": ["features": [["name": "prefers-color-scheme", "value": dark ? "dark" : "light"]]],
            ]
        )
    }

    func screenshot(to path: String) throws {
        guard let base64 = try command("GET", "/screenshot") as? String, let data = Data(base64Encoded: base64) else {
            throw TestFailure("no screenshot")
        }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true
        )
        try data.write(to: URL(fileURLWithPath: path))
    }

    func quit() {
        _ = try? command("DELETE", "")
        driverProcess.signal(SIGTERM)
        driverProcess.wait()
        try? FileManager.default.removeItem(atPath: profile)
    }

    deinit {
        driverProcess.signal(SIGKILL)
    }
}

enum TestArtefacts {
    /// `.build/test-artefacts`, beside the build's binaries: kept after the run.
    static func path(_ name: String) -> String {
        Binaries.directory.deletingLastPathComponent().appendingPathComponent("test-artefacts/\(name)").path
    }
}
