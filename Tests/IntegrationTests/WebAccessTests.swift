// Who may use listd-web: nothing of the lists without a paired device's token (the live
// connection, /whoami; the page's files are anyone's and hold none), a
// pairing link works once, a revoked device is cut off at once, another site's page is refused,
// and what a page may ask listd is limited. Over real HTTP and a real WebSocket.
import Foundation
import Glibc
import Testing

@Suite struct WebAccessTests {
    static let files = [
        "/", "/amounts.js", "/state.js", "/connection.js", "/changes.js", "/edits.js", "/view.js", "/rows.js", "/words.js",
        "/taps.js", "/sw.js", "/manifest.webmanifest",
    ]
    static let guarded = ["/whoami", "/live"]

    @Test(.timeLimit(.minutes(2)))
    func withoutATokenNothingOfTheListsIsServed() async throws {
        let daemon = try Daemon.start()
        // An item no file of the page names (amounts.js's comments speak of milk).
        _ = try listctl(["create", "Groceries", "quince paste"], socket: daemon.sandbox.socket)
        let web = try WebServer(daemon.sandbox)
        for path in Self.guarded {
            let bare = try HTTP.request(port: web.port, "GET", path)
            #expect(bare.status == 401, "GET \(path) without a token: \(bare.status)")
            let forged = try HTTP.request(port: web.port, "GET", path, headers: ["Authorization": "Bearer forged"])
            #expect(forged.status == 401, "GET \(path) with a made-up token: \(forged.status)")
        }
        // The page's files are anyone's, and hold nothing of the lists; a browser that opens
        // the page unpaired is told how to pair (by the page: it has no token).
        for path in Self.files {
            let file = try HTTP.request(port: web.port, "GET", path)
            #expect(file.status == 200 && !file.text.contains("quince"), "GET \(path): \(file.status)")
        }
        let script = try HTTP.request(port: web.port, "GET", "/view.js").text
        #expect(script.contains("listctl web pair") && script.contains("/run/listd-web/control.sock"))
        // Every script the page loads is served, and kept by the service worker for a shop with
        // no signal (a script it lacked would leave the page dead offline).
        let index = try HTTP.request(port: web.port, "GET", "/").text
        let worker = try HTTP.request(port: web.port, "GET", "/sw.js").text
        let loaded = index.split(separator: "<script src=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        #expect(loaded.count == 9, "amounts.js and the eight scripts of the page: \(loaded)")
        for path in loaded {
            #expect(Self.files.contains(path), "\(path) is checked above")
            #expect(worker.contains("'\(path)'"), "the service worker keeps \(path)")
        }
        // The live connection too: its upgrade is refused before any WebSocket exists (with 400:
        // hummingbird-websocket answers every refused upgrade so).
        for token in [nil, "forged"] {
            let unpaired = PageConnection(server: web, token: token)
            await #expect(throws: (any Error).self) { try await unpaired.opened() }
            #expect(unpaired.refusedWith?.hasPrefix("HTTP/1.1 4") == true, "\(unpaired.refusedWith ?? "upgraded")")
        }

        // Paired: the page, with headers that allow nothing from elsewhere.
        let token = try web.pair("Kitchen phone")
        for path in Self.files + ["/whoami"] {
            let reply = try HTTP.request(port: web.port, "GET", path, headers: ["Authorization": "Bearer \(token)"])
            #expect(reply.status == 200, "GET \(path) with the token: \(reply.status)")
            #expect(reply.headers["content-security-policy"]?.hasPrefix("default-src 'none'") == true)
            #expect(reply.headers["x-content-type-options"] == "nosniff")
            #expect(reply.headers["set-cookie"] == nil, "no cookie: \(reply.headers)")
        }
        let whoami = try HTTP.request(port: web.port, "GET", "/whoami", headers: ["Authorization": "Bearer \(token)"])
        #expect(whoami.text.contains("Kitchen phone"))
        // The file keeps the token's hash, never the token.
        let devices = try String(contentsOfFile: daemon.sandbox.path + "/web/devices.json", encoding: .utf8)
        #expect(!devices.contains(token) && devices.contains("Kitchen phone"))
        var status = stat()
        #expect(stat(daemon.sandbox.path + "/web/devices.json", &status) == 0 && status.st_mode & 0o077 == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func aPairingLinkWorksOnceFromThePageItselfAndWrongOnesAreLimited() async throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox)
        let link = try web.pairingLink("Kitchen phone")
        let code = String(link.split(separator: "#").last!)
        let body = Array(#"{"code":"\#(code)"}"#.utf8)
        let json = ["Content-Type": "application/json"]

        // Another site's page cannot pair through the person's browser.
        let crossSite = try HTTP.request(
            port: web.port, "POST", "/pair", headers: json.merging(["Origin": "http://evil.example"]) { $1 }, body: body
        )
        #expect(crossSite.status == 403)
        let first = try HTTP.request(port: web.port, "POST", "/pair", headers: json.merging(["Origin": web.address]) { $1 }, body: body)
        #expect(first.status == 200)
        // The token goes to the page alone, in the reply's body, never cached: no cookie, which
        // the browser would send to every port of this host (issue 61).
        #expect(first.headers["set-cookie"] == nil && first.headers["cache-control"] == "no-store", "\(first.headers)")
        let paired = try JSONSerialization.jsonObject(with: Data(first.text.utf8)) as? [String: String]
        #expect(paired?["device"] == "Kitchen phone" && (paired?["token"]?.count ?? 0) >= 43, "\(first.text)")
        let again = try HTTP.request(port: web.port, "POST", "/pair", headers: json.merging(["Origin": web.address]) { $1 }, body: body)
        #expect(again.status == 400 && again.text.contains("used already"), "\(again.status) \(again.text)")

        // Wrong codes: ten, then wrong ones are refused unchecked for a while; a good one pairs.
        for attempt in 2...10 {
            let wrong = try HTTP.request(
                port: web.port, "POST", "/pair", headers: json.merging(["Origin": web.address]) { $1 },
                body: Array(#"{"code":"guess\#(attempt)"}"#.utf8)
            )
            #expect(wrong.status == 400)
        }
        let limited = try HTTP.request(
            port: web.port, "POST", "/pair", headers: json.merging(["Origin": web.address]) { $1 },
            body: Array(#"{"code":"guess11"}"#.utf8)
        )
        #expect(limited.status == 429, "\(limited.status) \(limited.text)")
        let good = try web.pairingLink("Hall tablet").split(separator: "#").last!
        let goodOne = try HTTP.request(
            port: web.port, "POST", "/pair", headers: json.merging(["Origin": web.address]) { $1 },
            body: Array(#"{"code":"\#(good)"}"#.utf8)
        )
        #expect(goodOne.status == 200, "\(goodOne.status) \(goodOne.text)")
    }

    /// Issue 61, case 7: a device could be named with invisible or direction characters, and so
    /// look like another in `listctl web devices` and the journal. Such a name is refused, saying
    /// why; one that differs from a paired device's only in case or width is taken.
    @Test(.timeLimit(.minutes(2)))
    func aDeviceNameMustLookLikeWhatItIs() throws {
        let daemon = try Daemon.start()
        let web = try WebServer(daemon.sandbox)
        _ = try web.pair("Kitchen phone")
        for name in ["Kitchen\u{200B}phone", "\u{202E}enohp nehctiK"] {
            let run = try web.listctlWeb(["pair", name])
            #expect(run.status != 0 && run.stderr.contains("no zero-width, direction or control characters"), "\(run.stderr)")
        }
        let same = try web.listctlWeb(["pair", "ＫＩＴＣＨＥＮ  Phone"])
        #expect(same.status != 0 && same.stderr.contains("is paired already"), "\(same.stderr)")
        let devices = try web.listctlWeb(["devices"]).stdout
        #expect(devices.contains("Kitchen phone") && !devices.contains("\u{200B}") && !devices.contains("\u{202E}"), "\(devices)")
    }

    @Test(.timeLimit(.minutes(2)))
    func aRevokedDeviceIsCutOffAtOnceAndAnotherSitesPageIsRefused() async throws {
        let daemon = try Daemon.start()
        _ = try listctl(["create", "Groceries", "milk"], socket: daemon.sandbox.socket)
        let web = try WebServer(daemon.sandbox)
        let token = try web.pair("Kitchen phone")

        // The same token, from a page of another site: refused.
        let crossSite = PageConnection(server: web, token: token, origin: "http://evil.example")
        await #expect(throws: (any Error).self) { try await crossSite.opened() }

        let page = PageConnection(server: web, token: token)
        try await page.opened()
        let lists = try await page.call("getLists")
        #expect(((lists["result"] as? [String: Any])?["lists"] as? [Any])?.count == 1)

        let devices = try web.listctlWeb(["devices"])
        #expect(devices.status == 0 && devices.stdout.contains("Kitchen phone"), "\(devices.stdout)\(devices.stderr)")
        let revoke = try web.listctlWeb(["revoke", "Kitchen phone"])
        #expect(revoke.status == 0, "\(revoke.stderr)")
        try await until("the revoked device's page to be closed", timeout: 5) { page.closeCode != nil }
        #expect(page.closeCode == .some(1008))
        let after = try HTTP.request(port: web.port, "GET", "/whoami", headers: ["Authorization": "Bearer \(token)"])
        #expect(after.status == 401)
        let unknown = try web.listctlWeb(["revoke", "Kitchen phone"])
        #expect(unknown.status == 1 && unknown.stderr.contains("No paired device"), "\(unknown.stderr)")
    }

    @Test(.timeLimit(.minutes(2)))
    func aPageAsksOnlyWhatAPageNeedsAndAResentEditIsAppliedOnce() async throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        _ = try listctl(["create", "Groceries", "milk"], socket: socket)
        let web = try WebServer(daemon.sandbox)
        let page = PageConnection(server: web, token: try web.pair("Kitchen phone"))
        try await page.opened()
        let subscriber = try LineConnection(path: socket)
        _ = try subscriber.result("subscribe")

        for method in ["hello", "registerDelegate", "deleteList", "renameList", "createList"] {
            let reply = try await page.call(method, ["list": "Groceries", "name": "x"])
            #expect((reply["error"] as? [String: Any])?["code"] as? Int == -32601, "\(method): \(reply)")
        }
        // A queued edit sent, its reply lost, sent again: applied once, confirmed twice.
        let edit: [String: Any] = ["list": "Groceries", "item": "tea", "editId": "phone-edit-1", "basedOn": 1]
        let first = try await page.call("addItem", edit)
        let second = try await page.call("addItem", edit)
        #expect(first["result"] != nil && second["result"] != nil, "\(first) \(second)")
        let heard = try subscriber.readObject()
        let origin = (heard["params"] as? [String: Any])?["origin"] as? [String: Any]
        #expect(origin?["name"] as? String == "Kitchen phone")
        let history = try subscriber.result("getHistory", ["list": "Groceries"])["changes"] as? [[String: Any]] ?? []
        #expect(history.count == 2, "created, then one add: \(history)")
        let list = try subscriber.result("getList", ["list": "Groceries"])
        #expect(list["items"] as? [String] == ["milk", "tea"])
    }
}

/// HTTPS with listd-web's own certificate (`--tls-cert`/`--tls-key`, swift-nio-ssl): what a
/// phone needs for the page to work offline. A certificate made for the test by openssl; curl
/// trusts it as a phone would trust its CA.
@Suite(.offThePool) struct WebTLSTests {
    static var tools: Bool { access("/usr/bin/openssl", X_OK) == 0 && access("/usr/bin/curl", X_OK) == 0 }

    @Test(.enabled(if: Requirement.runs(tools, needing: "openssl and curl")), .hangLimit(minutes: 2))
    func thePageIsServedOverHTTPSAndPairsThere() throws {
        try Requirement.check(Self.tools, needing: "openssl and curl")
        let daemon = try Daemon.start()
        _ = try listctl(["create", "Groceries", "milk"], socket: daemon.sandbox.socket)
        let (certificate, key) = try makeCertificate(in: daemon.sandbox)
        let web = try WebServer(daemon.sandbox, arguments: ["--tls-cert", certificate, "--tls-key", key])
        #expect(web.address.hasPrefix("https://127.0.0.1:"), "\(web.address)")

        // The link names the HTTPS address; the phone opens it and pairs, over TLS only.
        let link = try web.pairingLink("Kitchen phone")
        #expect(link.hasPrefix(web.address + "/pair#"))
        let code = String(link.split(separator: "#").last!)
        let pairing = try ChildProcess.run(
            "/usr/bin/curl",
            [
                "-s", "-i", "--max-time", "10", "--cacert", certificate, "-X", "POST", "-H", "Origin: \(web.address)",
                "-H", "Content-Type: application/json", "--data", #"{"code":"\#(code)"}"#, web.address + "/pair",
            ]
        )
        let token = pairing.stdout.firstMatch(of: /"token":"([^"]+)"/).map { String($0.output.1) }
        #expect(token != nil, "\(pairing.stdout)\(pairing.stderr)")
        let page = try ChildProcess.run(
            "/usr/bin/curl",
            ["-s", "--max-time", "10", "--cacert", certificate, "-H", "Authorization: Bearer \(token ?? "")", web.address + "/whoami"]
        )
        #expect(page.stdout.contains("Kitchen phone"), "\(page.stdout)\(page.stderr)")
        // Plain HTTP to the HTTPS port is not served.
        let plain = try ChildProcess.run(
            "/usr/bin/curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "http://127.0.0.1:\(web.port)/whoami"]
        )
        #expect(plain.stdout != "200", "plain HTTP answered \(plain.stdout)")
    }
}
