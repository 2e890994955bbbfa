// What the listd-web tests drive: the real listd-web binary, a plain HTTP/1.1 client of the
// test's own (sharing no code with listd-web), pairing as a phone does it, and a page's live
// connection over a real WebSocket.
import Foundation
import Glibc
import Testing

extension Binaries {
    static var listdWeb: URL { directory.appendingPathComponent("listd-web") }
}

/// listd-web, started for one test against that test's listd, on a free port.
final class WebServer: @unchecked Sendable {
    let sandbox: Sandbox
    let child: ChildProcess
    /// `http://127.0.0.1:PORT`, as listd-web said it serves (its `--url` when given).
    let address: String
    /// The port it listens on.
    let port: UInt16
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
            address = String(said)
            port = UInt16(said.split(separator: ":").last!)!
        }
        // The control socket is bound beside the page: wait for it too.
        let deadline = Date().addingTimeInterval(15)
        while access(sandbox.path + "/web/control.sock", F_OK) != 0 {
            guard Date() < deadline else { throw TestFailure("listd-web made no control socket within 15 s") }
            usleep(10_000)
        }
    }

    /// What a person does: `listctl web pair NAME`, and the link opened on the device. Returns
    /// the device's token (the page keeps it in its origin's storage).
    func pair(_ name: String) throws -> String {
        let link = try pairingLink(name)
        let code = String(link.split(separator: "#").last!)
        let reply = try HTTP.request(
            port: port, "POST", "/pair", headers: ["Origin": address, "Content-Type": "application/json"],
            body: Array(#"{"code":"\#(code)"}"#.utf8)
        )
        guard reply.status == 200,
            let paired = try? JSONSerialization.jsonObject(with: Data(reply.text.utf8)) as? [String: String],
            let token = paired["token"]
        else {
            throw TestFailure("pairing answered \(reply.status): \(reply.text)")
        }
        return token
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

/// A TCP connection to 127.0.0.1:`port` that sends `bytes` and then nothing (a half-sent
/// request); nil when it could not connect.
func halfSentRequest(port: UInt16, _ bytes: String) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
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

/// Everything listd-web answers to `bytes` sent on a new connection, until it closes it (at most
/// `seconds`).
func rawExchange(port: UInt16, _ bytes: [UInt8], seconds: Double = 15) -> String {
    guard let fd = halfSentRequest(port: port, "") else { return "" }
    defer { close(fd) }
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    let deadline = Date().addingTimeInterval(seconds)
    while deadline.timeIntervalSinceNow > 0 {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(deadline.timeIntervalSinceNow * 1000)) > 0 else { break }
        let count = recv(fd, &chunk, chunk.count, 0)
        if count <= 0 { break }
        received += chunk[..<count]
    }
    return String(decoding: received, as: UTF8.self)
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

/// HTTP/1.1 over a TCP socket to 127.0.0.1, one request per connection.
enum HTTP {
    struct Reply {
        var status: Int
        /// Lower-cased names.
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func request(
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
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("cannot connect to 127.0.0.1:\(port): errno \(errno)") }
        // A Host of the caller's replaces the address connected to (a rebinding name, say).
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(headers["Host"] ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
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

/// A page's live connection, as a browser opens it: a WebSocket to /live with the device's
/// token as a subprotocol and the page's Origin (RFC 6455, written here: a client library sets an Origin of its
/// own). Messages are read on a thread of their own and kept, in order, for the test.
final class PageConnection: @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var received: [[String: Any]] = []
    /// With `keepingMessages` false (a load of thousands of whole lists), only each
    /// notification's revision and the last message are kept, read without a JSON parser.
    private let keepingMessages: Bool
    private var revisions: [Int] = []
    private var lastMessage: [UInt8] = []
    private var closedWith: Int??
    private var refusal: String?
    private var upgraded = false
    private var nextID = 1

    init(server: WebServer, token: String?, origin: String? = nil, host: String? = nil, keepingMessages: Bool = true) {
        self.keepingMessages = keepingMessages
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = server.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            refusal = "cannot connect: errno \(errno)"
            closedWith = .some(nil)
            return
        }
        var head = "GET /live HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(server.port)")\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        head += "Origin: \(origin ?? server.address)\r\n"
        if let token { head += "Sec-WebSocket-Protocol: listd-web, listd-web.token.\(token)\r\n" }
        write(Array((head + "\r\n").utf8))
        Thread.detachNewThread { [self] in readLoop() }
    }

    var messages: [[String: Any]] { lock.withLock { received } }
    /// The revisions of the notifications received, in order.
    var notifiedRevisions: [Int] { lock.withLock { revisions } }
    /// The last message received, parsed.
    var last: [String: Any]? {
        let bytes = lock.withLock { lastMessage }
        return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }
    /// nil while open; then the close code listd-web sent (its inner nil: none, or refused).
    var closeCode: Int?? { lock.withLock { closedWith } }
    /// The status line of a refused upgrade.
    var refusedWith: String? { lock.withLock { refusal } }
    /// Whether the upgrade was accepted.
    var isUpgraded: Bool { lock.withLock { upgraded } }

    /// Waits until the connection is open; throws if the upgrade was refused.
    func opened(timeout: Double = 15) async throws {
        try await until("the live connection to open", timeout: timeout) {
            lock.withLock { upgraded || closedWith != nil }
        }
        if let refusal = lock.withLock({ refusal }) { throw TestFailure("the live connection was refused: \(refusal)") }
    }

    func send(_ object: [String: Any]) async throws {
        let text = try JSONSerialization.data(withJSONObject: object)
        write(Self.frame(opcode: 1, Array(text)))
    }

    /// Sends `bytes` as one text frame, whatever they are (a page that sends invalid UTF-8).
    func sendText(bytes: [UInt8]) {
        write(Self.frame(opcode: 1, bytes))
    }

    /// Sends a request and waits for its reply (the whole reply object).
    func call(_ method: String, _ params: [String: Any] = [:], timeout: Double = 15) async throws -> [String: Any] {
        let id = lock.withLock {
            defer { nextID += 1 }
            return nextID
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

    /// Drops the connection without a closing handshake (a page whose tab was killed).
    func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    func close() async {
        write(Self.frame(opcode: 8, [0x03, 0xE8]))
        try? await until("the close to be answered", timeout: 5) { closeCode != nil }
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }

    private func write(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// A client frame: FIN, masked (with a zero mask: masking is required, not its secrecy).
    private static func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            bytes.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65_536 {
            bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(0x80 | 127)
            bytes += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        return bytes + [0, 0, 0, 0] + payload
    }

    private func readLoop() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var message: [UInt8] = []
        func finish(_ code: Int?, _ refused: String? = nil) {
            lock.withLock {
                if closedWith == nil { closedWith = .some(code) }
                if let refused { refusal = refused }
            }
        }
        // The handshake's reply.
        while true {
            if let end = buffer.indices.first(where: { buffer[$0...].starts(with: Array("\r\n\r\n".utf8)) }) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    return finish(nil, head.split(separator: "\r\n").first.map(String.init) ?? head)
                }
                lock.withLock { upgraded = true }
                break
            }
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { return finish(nil, "closed during the handshake") }
            buffer += chunk[..<count]
        }
        // Frames.
        while true {
            while let (opcode, fin, payload, length) = Self.parseFrame(buffer) {
                buffer.removeFirst(length)
                switch opcode {
                case 0, 1:
                    message += payload
                    if fin {
                        if keepingMessages {
                            if let object = try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] {
                                lock.withLock { received.append(object) }
                            }
                        }
                        let revision = Self.notifiedRevision(message)
                        lock.withLock {
                            if let revision { revisions.append(revision) }
                            lastMessage = message
                        }
                        message = []
                    }
                case 8:
                    let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
                    write(Self.frame(opcode: 8, Array(payload.prefix(2))))
                    return finish(code)
                case 9:
                    write(Self.frame(opcode: 10, payload))
                default:
                    break
                }
            }
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { return finish(nil) }
            buffer += chunk[..<count]
        }
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

    /// A server frame (unmasked) at the start of `bytes`, once all of it has arrived.
    private static func parseFrame(_ bytes: [UInt8]) -> (opcode: UInt8, fin: Bool, payload: [UInt8], length: Int)? {
        guard bytes.count >= 2 else { return nil }
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard bytes.count >= offset + length else { return nil }
        return (bytes[0] & 0x0F, bytes[0] & 0x80 != 0, Array(bytes[offset..<(offset + length)]), offset + length)
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
