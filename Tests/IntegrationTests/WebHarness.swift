// What the listd-web tests drive: the real listd-web binary, a plain HTTP/1.1 client of the
// test's own (sharing no code with listd-web; it also sends what no browser would, as an
// attacker does), pairing as a phone does it, and a page's live connection through
// hummingbird-websocket's WebSocket client.
import Foundation
import Glibc
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOWebSocket
import Synchronization
import Testing

extension Binaries {
    static var listdWeb: URL { directory.appendingPathComponent("listd-web") }
}

/// listd-web, started for one test against that test's listd, on a free port.
final class WebServer: @unchecked Sendable {
    let sandbox: Sandbox
    let child: ChildProcess
    /// `http://127.0.0.1:PORT`, as listd-web said it serves (its `--url` when given), in the
    /// form a browser's `Origin` has (no `:80` for http).
    let address: String
    /// The loopback address it listens on (127.0.0.1 when it listens everywhere).
    let host: String
    /// The port it listens on.
    let port: UInt16
    /// What a browser sends as `Host` for it: `host`, and `:port` unless 80.
    var authority: String { port == 80 ? host : "\(host):\(port)" }
    var controlSocket: String { sandbox.path + "/web/control.sock" }
    private final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var bytes: [UInt8] = []
    }
    private let logBuffer = Collected()
    /// What listd-web logged so far.
    var log: String { String(decoding: logBuffer.lock.withLock { logBuffer.bytes }, as: UTF8.self) }

    /// Whether listd-web logs `text` within `seconds`.
    func logShows(_ text: String, within seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !log.contains(text) {
            guard Date() < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    /// A loopback address of its own on port 80 (`listen:`), for a server a `PageConnection`
    /// talks to: a page there has the origin `http://ADDRESS`, the one hummingbird-websocket's
    /// client sends (it leaves the port out of `Origin`). Port 80 needs root, as `make test` has.
    static func onPort80() -> String {
        let count = pagesServers.add(1, ordering: .relaxed).oldValue
        return "127.\(getpid() % 200 + 20).\(count / 250 % 250).\(count % 250 + 2):80"
    }
    private static let pagesServers = Atomic<Int>(0)
    static var canListenOnPort80: Bool { geteuid() == 0 }
    static let port80Need = "root, for a listd-web on port 80 that hummingbird-websocket's client can open a page's connection to"

    /// `launcher`: a command listd-web is run through (`prlimit …` to lower its limits).
    /// `devices`: the device file (default: in the sandbox).
    init(
        _ sandbox: Sandbox,
        arguments: [String] = [],
        listen: String = "127.0.0.1:0",
        launcher: [String] = [],
        devices: String? = nil
    ) throws {
        self.sandbox = sandbox
        let command = launcher + [Binaries.listdWeb.path]
        let child = try ChildProcess(
            command[0],
            Array(command.dropFirst()) + [
                "--socket", sandbox.socket, "--listen", listen, "--devices", devices ?? sandbox.path + "/web/devices.json",
                "--control-socket", sandbox.path + "/web/control.sock",
            ] + arguments
        )
        self.child = child
        // Its log, collected on a thread of its own (a full pipe would stop listd-web).
        let fd = dup(child.stderr)
        let logBuffer = self.logBuffer
        Thread.detachNewThread {
            defer { close(fd) }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(fd, &chunk, chunk.count)
                if count <= 0 { return }
                logBuffer.lock.withLock { logBuffer.bytes += chunk[..<count] }
            }
        }
        let line = try LineReader(child.stdout).line(timeout: 30)
        guard line.hasPrefix("listd-web: serving ") else {
            child.signal(SIGKILL)
            throw TestFailure("listd-web said “\(line)”, not where it serves")
        }
        // "listd-web: serving ADDRESS", or "… ADDRESS (port N)" when ADDRESS is a proxy's.
        let said = line.dropFirst("listd-web: serving ".count)
        if let proxied = said.firstMatch(of: /^(\S+) \(port (\d+)\)$/) {
            address = String(proxied.output.1)
            port = UInt16(proxied.output.2)!
        } else {
            port = UInt16(said.split(separator: ":").last!)!
            address = said.hasPrefix("http://") && port == 80 ? String(said.dropLast(":80".count)) : String(said)
        }
        let listenHost = String(listen[..<listen.lastIndex(of: ":")!])
        host = ["0.0.0.0", "[::]"].contains(listenHost) ? "127.0.0.1" : listenHost
        // The control socket is bound beside the page: wait for it too.
        let deadline = Date().addingTimeInterval(15)
        while access(sandbox.path + "/web/control.sock", F_OK) != 0 {
            guard Date() < deadline else { throw TestFailure("listd-web made no control socket within 15 s") }
            usleep(10_000)
        }
    }

    /// What a person does: `listctl web pair NAME`, and the link opened on the device. Returns
    /// the device's token (its cookie).
    func pair(_ name: String) throws -> String {
        let link = try pairingLink(name)
        let code = String(link.split(separator: "#").last!)
        let reply = try HTTP.request(
            to: self, "POST", "/pair", headers: ["Origin": address, "Content-Type": "application/json"],
            body: Array(#"{"code":"\#(code)"}"#.utf8)
        )
        guard reply.status == 200, let cookie = reply.headers["set-cookie"],
            let token = cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last
        else {
            throw TestFailure("pairing answered \(reply.status): \(reply.text)")
        }
        return String(token)
    }

    func pairingLink(_ name: String) throws -> String {
        let run = try ChildProcess.run(
            Binaries.listctl.path, ["web", "pair", name, "--json", "--control-socket", controlSocket]
        )
        guard run.status == 0, let data = run.stdout.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let link = object["link"] as? String
        else {
            throw TestFailure("listctl web pair: \(run.status) \(run.stdout) \(run.stderr)")
        }
        return link
    }

    func listctlWeb(_ arguments: [String]) throws -> Run {
        try ChildProcess.run(Binaries.listctl.path, ["web"] + arguments + ["--control-socket", controlSocket])
    }

    /// listd-web's resident memory, in KiB (/proc/PID/status VmRSS).
    var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @discardableResult
    func stop() -> Int32 {
        child.signal(SIGTERM)
        return child.wait()
    }

    deinit {
        child.signal(SIGKILL)
        child.wait()
    }
}

/// Lets this test process open `count` descriptors (its soft limit raised up to the hard one).
func allowDescriptors(_ count: Int) throws {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    guard limit.rlim_max >= rlim_t(count) else { throw TestFailure("the hard descriptor limit \(limit.rlim_max) is below \(count)") }
    if limit.rlim_cur < rlim_t(count) {
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// A TCP connection to `host`:`port` that sends `bytes` and then nothing (a half-sent
/// request); nil when it could not connect.
func halfSentRequest(host: String = "127.0.0.1", port: UInt16, _ bytes: String) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr(host)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    _ = Array(bytes.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    return fd
}

/// Whether the peer closed `fd` (a read that returns 0 or fails), waiting at most `seconds`.
func peerClosed(_ fd: Int32, within seconds: Double) -> Bool {
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return false }
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
}

/// A certificate for 127.0.0.1 made by openssl, and its key: (certificate, key) paths.
func makeCertificate(in sandbox: Sandbox) throws -> (String, String) {
    let certificate = sandbox.path + "/cert.pem"
    let key = sandbox.path + "/key.pem"
    let made = try ChildProcess.run(
        "/usr/bin/openssl",
        [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ]
    )
    guard made.status == 0 else { throw TestFailure("openssl made no certificate: \(made.stderr)") }
    return (certificate, key)
}

/// HTTP/1.1 over a TCP socket to a loopback address, one request per connection.
enum HTTP {
    struct Reply {
        var status: Int
        /// Lower-cased names.
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A request to `server`, with the `Host` a browser sends it unless `headers` say another.
    static func request(
        to server: WebServer,
        _ method: String,
        _ path: String,
        headers: [String: String] = [:],
        body: [UInt8]? = nil,
        timeout: Int = 60,
        from source: String? = nil
    ) throws -> Reply {
        var headers = headers
        if headers["Host"] == nil { headers["Host"] = server.authority }
        return try request(host: server.host, port: server.port, method, path, headers: headers, body: body, timeout: timeout, from: source)
    }

    static func request(
        host: String = "127.0.0.1",
        port: UInt16,
        _ method: String,
        _ path: String,
        headers: [String: String] = [:],
        body: [UInt8]? = nil,
        timeout: Int = 60,
        from source: String? = nil
    ) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        defer { close(fd) }
        if let source {
            // Another client on this machine: any 127.x address is this machine's.
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw TestFailure("cannot bind to \(source): errno \(errno)") }
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("cannot connect to \(host):\(port): errno \(errno)") }
        // A Host of the caller's replaces the address connected to (a rebinding name, say).
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(headers["Host"] ?? "\(host):\(port)")\r\nConnection: close\r\n"
        for (name, value) in headers where name != "Host" { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + (body ?? [])
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw TestFailure("send failed: errno \(errno)") }
            sent += count
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw TestFailure("no reply to \(method) \(path) within \(timeout) s") }
            if count == 0 { break }
            received += chunk[..<count]
            if let reply = parse(received) { return reply }
        }
        guard let reply = parse(received, atEnd: true) else { throw TestFailure("a reply that is not HTTP") }
        return reply
    }

    /// The reply, once all of it (by Content-Length, chunks, or the end) has arrived.
    private static func parse(_ bytes: [UInt8], atEnd: Bool = false) -> Reply? {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else { return nil }
            body = Array(body.prefix(length))
        } else if headers["transfer-encoding"] == "chunked" {
            var decoded: [UInt8] = []
            var rest = body[...]
            while true {
                guard let lineEnd = rest.indices.first(where: { rest[$0...].starts(with: [13, 10]) }) else { return nil }
                guard let size = Int(String(decoding: rest[..<lineEnd], as: UTF8.self), radix: 16) else { return nil }
                let start = lineEnd + 2
                if size == 0 { break }
                guard rest.endIndex >= start + size + 2 else { return nil }
                decoded += rest[start..<(start + size)]
                rest = rest[(start + size + 2)...]
            }
            body = decoded
        } else if !atEnd {
            return nil
        }
        return Reply(status: status, headers: headers, body: body)
    }
}

/// The upgrade to a page's live connection as bytes on the wire, with whatever `Origin` and
/// `Host` the caller forges (another site's page, a rebinding name): what a browser would never
/// send, so no client library sends it either. Returns listd-web's status.
func liveUpgradeStatus(_ server: WebServer, token: String?, origin: String? = nil, host: String? = nil) throws -> Int {
    var headers = [
        "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": origin ?? server.address,
    ]
    if let host { headers["Host"] = host }
    if let token { headers["Cookie"] = "listd_device=\(token)" }
    // A refused upgrade is answered and closed; an accepted one would stay open: a short timeout.
    return try HTTP.request(to: server, "GET", "/live", headers: headers, timeout: 5).status
}

/// A page's live connection, as a browser opens it: a WebSocket to /live with the device's
/// cookie, opened by hummingbird-websocket's client. That client sends `Origin` as
/// `http://HOST` without the port, which is a browser's origin for a page on port 80 only: the
/// server must listen on one (`WebServer(…, listen: WebServer.onPort80())`). Messages are kept,
/// in order, for the test.
final class PageConnection: @unchecked Sendable {
    private struct State {
        var received: [[String: Any]] = []
        var revisions: [Int] = []
        var lastMessage: [UInt8] = []
        var closedWith: Int??
        var refusal: String?
        var upgraded = false
        var nextID = 1
    }
    private let lock = NSLock()
    private var stateValue = State()
    private func withState<T>(_ body: (inout State) -> T) -> T { lock.withLock { body(&stateValue) } }
    /// With `keepingMessages` false (a load of thousands of whole lists), only each
    /// notification's revision and the last message are kept, read without a JSON parser.
    private let keepingMessages: Bool
    /// What the test sends; finished, the page closes.
    private let outgoing: AsyncStream<String>.Continuation

    init(server: WebServer, token: String?, keepingMessages: Bool = true) {
        self.keepingMessages = keepingMessages
        let (sending, outgoing) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        guard server.address.hasPrefix("http://"), server.port == 80 else {
            withState { $0.closedWith = .some(nil) }
            withState { $0.refusal = "listd-web is not on port 80 (WebServer.onPort80())" }
            return
        }
        var headers = HTTPFields()
        if let token { headers[.cookie] = "listd_device=\(token)" }
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 24, additionalHeaders: headers)
        Task { [self] in
            do {
                let closing = try await WebSocketClient.connect(
                    url: server.address + "/live",
                    configuration: configuration,
                    logger: Logger(label: "page")
                ) { inbound, outbound, _ in
                    self.withState { $0.upgraded = true }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in sending { try await outbound.write(.text(text)) }
                            // The test closed the page (not listd-web: then this task is cancelled).
                            if !Task.isCancelled { try await outbound.close(.normalClosure, reason: nil) }
                        }
                        for try await message in inbound.messages(maxSize: 1 << 24) {
                            if case .text(let text) = message { self.take(Array(text.utf8)) }
                        }
                        group.cancelAll()
                    }
                }
                finish(closing.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) })
            } catch {
                finish(nil, refused: "\(error)")
            }
        }
    }

    private func take(_ message: [UInt8]) {
        let object = keepingMessages ? (try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any]) : nil
        let revision = Self.notifiedRevision(message)
        withState { state in
            if let object { state.received.append(object) }
            if let revision { state.revisions.append(revision) }
            state.lastMessage = message
        }
    }

    private func finish(_ code: Int?, refused: String? = nil) {
        withState { state in
            if state.closedWith == nil { state.closedWith = .some(code) }
            if let refused, !state.upgraded { state.refusal = refused }
        }
    }

    var messages: [[String: Any]] { withState { $0.received } }
    /// The revisions of the notifications received, in order.
    var notifiedRevisions: [Int] { withState { $0.revisions } }
    /// The last message received, parsed.
    var last: [String: Any]? {
        let bytes = withState { $0.lastMessage }
        return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }
    /// nil while open; then the close code listd-web sent (its inner nil: none, or refused).
    var closeCode: Int?? { withState { $0.closedWith } }
    /// Why the connection was not opened (the client's error).
    var refusedWith: String? { withState { $0.refusal } }
    /// Whether the upgrade was accepted.
    var isUpgraded: Bool { withState { $0.upgraded } }

    /// Waits until the connection is open; throws if the upgrade was refused.
    func opened(timeout: Double = 15) async throws {
        try await until("the live connection to open", timeout: timeout) {
            withState { $0.upgraded || $0.closedWith != nil }
        }
        if let refusal = refusedWith { throw TestFailure("the live connection was refused: \(refusal)") }
    }

    func send(_ object: [String: Any]) async throws {
        let text = try JSONSerialization.data(withJSONObject: object)
        outgoing.yield(String(decoding: text, as: UTF8.self))
    }

    /// Sends a request and waits for its reply (the whole reply object).
    func call(_ method: String, _ params: [String: Any] = [:], timeout: Double = 15) async throws -> [String: Any] {
        let id = withState { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await send(["jsonrpc": "2.0", "id": id, "method": method, "params": params])
        return try await message(timeout: timeout, "the reply to \(method)") { $0["id"] as? Int == id }
    }

    /// The first message (in arrival order) that `matches`, waiting for it.
    func message(timeout: Double = 15, _ what: String, _ matches: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
        var found: [String: Any]?
        try await until(what, timeout: timeout) {
            found = messages.first(where: matches)
            return found != nil
        }
        return found!
    }

    /// Closes the page (its closing handshake) and waits for listd-web's answer.
    func close() async {
        outgoing.finish()
        try? await until("the close to be answered", timeout: 5) { closeCode != nil }
    }

    deinit {
        outgoing.finish()
    }

    /// A notification's revision: the first key of its params (listd writes it first), read
    /// without a JSON parser. nil for anything else (a reply).
    static func notifiedRevision(_ message: [UInt8]) -> Int? {
        guard message.starts(with: Array(#"{"jsonrpc":"2.0","method":"did"#.utf8)) else { return nil }
        let key = Array(#""params":{"revision":"#.utf8)
        guard let start = message.indices.prefix(200).first(where: { message[$0...].starts(with: key) }) else { return nil }
        let digits = message[(start + key.count)...].prefix { $0 >= 48 && $0 <= 57 }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}

/// Polls `condition` every 10 ms until it holds; a failure naming `what` after `timeout`.
func until(_ what: String, timeout: Double, _ condition: () throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { throw TestFailure("waited \(timeout) s for \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
