// Figure 10: listd-web. A change → the last of 100 open pages (each a WebSocket to listd-web, which
// relays it from a listd connection of its own), next to the same change → 100 subscribers of
// listd directly, in the same run: the ratio is what the relay adds. listd-web's resident
// memory with those pages open after the run.
import Foundation
import Glibc

/// A page's live connection as a browser opens it: a WebSocket with the device's token as its
/// subprotocol.
final class WebPage {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, token: String) throws {
        fd = try tcpConnect(port: port)
        sendBytes(
            Array(
                ("GET /live HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Origin: http://127.0.0.1:\(port)\r\nSec-WebSocket-Protocol: listd-web, listd-web.token.\(token)\r\n\r\n").utf8
            )
        )
        let separator = Array("\r\n\r\n".utf8)
        while buffer.indices.first(where: { buffer[$0...].starts(with: separator) }) == nil {
            guard fill() else { throw BenchError("listd-web closed a page during its handshake") }
        }
        let end = buffer.indices.first { buffer[$0...].starts(with: separator) }!
        guard buffer.starts(with: Array("HTTP/1.1 101".utf8)) else { throw BenchError("listd-web refused a page") }
        buffer.removeFirst(end + 4)
    }

    deinit { close(fd) }

    /// One text message, as a browser sends it (masked; a zero mask will do).
    func send(_ text: String) {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        sendBytes(frame + [0, 0, 0, 0] + payload)
    }

    private func sendBytes(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// Reads what is there (blocking once); false at the end of the stream.
    func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { return false }
        buffer += chunk[..<count]
        return true
    }

    /// Whole text messages waiting, consumed (a ping is answered, as a browser does).
    func takeMessages() -> Int {
        var messages = 0
        while buffer.count >= 2 {
            var length = Int(buffer[1] & 0x7F)
            var offset = 2
            if length == 126 {
                guard buffer.count >= 4 else { break }
                length = Int(buffer[2]) << 8 | Int(buffer[3])
                offset = 4
            } else if length == 127 {
                guard buffer.count >= 10 else { break }
                length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            guard buffer.count >= offset + length else { break }
            let opcode = buffer[0] & 0x0F
            if opcode == 1 || (opcode == 0 && buffer[0] & 0x80 != 0) { messages += 1 }
            if opcode == 9 { sendBytes([0x8A, 0x80, 0, 0, 0, 0]) }
            buffer.removeFirst(offset + length)
        }
        return messages
    }

    /// Waits for one whole message (the reply to a request).
    func awaitMessage() throws {
        while takeMessages() == 0 {
            guard fill() else { throw BenchError("listd-web closed a page") }
        }
    }
}

func tcpConnect(port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw BenchError("connect 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
    }
    return fd
}

/// A port nobody listens on now (bound to 0, read, released).
func freePort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw BenchError("no free port") }
    return UInt16(bigEndian: address.sin_port)
}

/// listd-web serving `listd` on a free loopback port, its files named after `name` in the scratch
/// directory; returned once its control socket answers.
func startListdWeb(_ path: String, serving listd: ListdUnderTest, name: String) throws -> (web: Child, port: UInt16, control: String) {
    let port = try freePort()
    let control = "\(work)/\(name)-control.sock"
    let web = try Child(
        path,
        ["--socket", listd.socket, "--listen", "127.0.0.1:\(port)", "--devices", "\(work)/\(name)-devices.json",
         "--control-socket", control, "--log-level", "warning"]
    )
    do {
        try waitForSocket(control, probe: #"{"jsonrpc":"2.0","id":0,"method":"hello"}"#)
    } catch {
        web.stop()
        throw error
    }
    return (web, port, control)
}

/// A device paired as a phone does it: a code from the control socket, sent to /pair; its token.
func pairDevice(port: UInt16, control: String, name: String) throws -> String {
    let pairing = try LineSocket(path: control)
    guard let reply = pairing.call(#"{"jsonrpc":"2.0","id":1,"method":"pair","params":{"name":"\#(name)"}}"#),
        let link = String(decoding: reply, as: UTF8.self).firstMatch(of: #/"link":"[^"#]*#([^"]+)"/#)?.output.1
    else { throw BenchError("listd-web made no pairing link") }
    let body = #"{"code":"\#(link)"}"#
    let fd = try tcpConnect(port: port)
    defer { close(fd) }
    let request =
        "POST /pair HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    _ = Array(request.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    // Read until the body's token has come (Connection: close ends it anyway).
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while String(decoding: received, as: UTF8.self).firstMatch(of: #/"token":"[^"]+"/#) == nil {
        let count = read(fd, &chunk, chunk.count)
        if count <= 0 { break }
        received += chunk[..<count]
    }
    guard let token = String(decoding: received, as: UTF8.self).firstMatch(of: #/"token":"([^"]+)"/#)?.output.1 else {
        throw BenchError("listd-web did not pair the bench's device")
    }
    return String(token)
}

func measureWeb() throws {
    let listdWebPath = binaries + "/listd-web"
    guard FileManager.default.isExecutableFile(atPath: listdWebPath) else {
        print("figure 10 skipped: no \(listdWebPath) (make bench builds it)")
        return
    }
    let listd = try ListdUnderTest("web", extra: ["--max-connections", "20000"])
    let publisher = try listd.connect()
    createList(publisher, "Fan")
    let (web, port, control) = try startListdWeb(listdWebPath, serving: listd, name: "web")
    defer { web.stop() }
    // Ten devices with ten pages each: a device may have ten open (docs/web.md, Limits).
    let tokens = try (1...10).map { try pairDevice(port: port, control: control, name: "bench phone \($0)") }
    let pages = try (0..<100).map { index -> WebPage in
        let page = try WebPage(port: port, token: tokens[index % 10])
        page.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{}}"#)
        try page.awaitMessage()
        return page
    }
    let direct = try subscribers(listd.socket, count: 100, request: subscribeRequest)

    var pageRuns: [Double] = []
    var directRuns: [Double] = []
    var sample = 0
    for _ in 0..<3 {
        var pageSamples: [Double] = []
        var directSamples: [Double] = []
        for _ in 0..<40 {
            // Every edit reaches both sets; each is timed to its own last one. Adds and removes
            // alternate, from an add (the list starts empty).
            let start = now()
            publisher.send(addOrRemove(sample))
            sample += 1
            var waitingPages = Set(0..<pages.count)
            var waitingDirect = Set(0..<direct.count)
            var pagesDone: UInt64 = 0
            var directDone: UInt64 = 0
            var pollers = pages.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                + direct.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            while !waitingPages.isEmpty || !waitingDirect.isEmpty {
                _ = poll(&pollers, nfds_t(pollers.count), 5_000)
                for index in waitingPages where pollers[index].revents != 0 {
                    if pages[index].fill(), pages[index].takeMessages() > 0 { waitingPages.remove(index) }
                }
                if waitingPages.isEmpty, pagesDone == 0 { pagesDone = now() }
                for index in waitingDirect where pollers[pages.count + index].revents != 0 {
                    if direct[index].fill(), direct[index].takeLines() > 0 { waitingDirect.remove(index) }
                }
                if waitingDirect.isEmpty, directDone == 0 { directDone = now() }
            }
            _ = publisher.readLine()
            pageSamples.append(us(pagesDone - start))
            directSamples.append(us(directDone - start))
        }
        pageSamples.sort()
        directSamples.sort()
        pageRuns.append(percentile(pageSamples, 0.5))
        directRuns.append(percentile(directSamples, 0.5))
    }
    report(
        "durable change → last of 100 open pages (listd-web) p50, listd's own 100 subscribers as baseline",
        "any",
        "µs",
        listd: Stat(pageRuns),
        baseline: Stat(directRuns)
    )
    let resident = Double(residentKiB(of: web.pid)) / 1024
    report("listd-web resident memory with 100 pages open, after 120 changes", "any", "MiB", listd: Stat([resident]))
}
