// Figure 12: a tasks app (CalDAV) syncing a 2,000-item list through listd-web: a full sync (one
// sync-collection REPORT with every task's ETag and calendar data, as DAVx⁵ and vdirsyncer start)
// and an incremental sync from the last token after one change (what a phone's poll costs). Over
// one kept-alive connection, as apps make them. Targets (issue 64): full ≤ 200 ms, incremental ≤ 10 ms.
import Foundation
import Glibc

/// One HTTP/1.1 connection, kept alive, that sends a request and reads its whole response.
final class HTTPConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16) throws { fd = try tcpConnect(port: port) }
    deinit { close(fd) }

    func request(_ head: String, body: String = "") throws -> (status: Int, body: [UInt8]) {
        let bytes = Array((head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw BenchError("listd-web closed the tasks app's connection") }
            sent += count
        }
        let separator = Array("\r\n\r\n".utf8)
        var end: Int?
        while end == nil {
            end = buffer.count >= 4 ? (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(separator) } : nil
            if end == nil { try fill() }
        }
        let headText = String(decoding: buffer[..<end!], as: UTF8.self)
        let status = Int(headText.split(separator: " ").dropFirst().first ?? "") ?? 0
        let length = headText.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
        }.first ?? 0
        buffer.removeFirst(end! + 4)
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return (status, body)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { throw BenchError("listd-web closed the tasks app's connection") }
        buffer += chunk[..<count]
    }
}

func measureTasksApps() throws {
    let listdWebPath = binaries + "/listd-web"
    guard FileManager.default.isExecutableFile(atPath: listdWebPath) else {
        print("figure 12 skipped: no \(listdWebPath) (make bench builds it)")
        return
    }
    let listd = try ListdUnderTest("tasks")
    let publisher = try listd.connect()
    createList(publisher, "Big", items: 2_000)
    let port = try freePort()
    let control = "\(work)/tasks-control.sock"
    let web = try Child(
        listdWebPath,
        ["--socket", listd.socket, "--listen", "127.0.0.1:\(port)", "--url", "https://tasks.test", "--devices",
         "\(work)/tasks-devices.json", "--control-socket", control, "--log-level", "warning"]
    )
    defer { web.stop() }
    try waitForSocket(control, probe: #"{"jsonrpc":"2.0","id":0,"method":"hello"}"#)
    let pairing = try LineSocket(path: control)
    guard let reply = pairing.call(#"{"jsonrpc":"2.0","id":1,"method":"pairTasksApp","params":{"name":"bench tasks app"}}"#),
        let user = String(decoding: reply, as: UTF8.self).firstMatch(of: #/"user":"([^"]+)"/#)?.output.1,
        let password = String(decoding: reply, as: UTF8.self).firstMatch(of: #/"password":"([^"]+)"/#)?.output.1
    else { throw BenchError("listd-web paired no tasks app") }
    let credentials = Data("\(user):\(password)".utf8).base64EncodedString()
    let app = try HTTPConnection(port: port)
    func sync(from token: String) throws -> (status: Int, body: [UInt8]) {
        let body =
            #"<d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>\#(token)</d:sync-token>"#
            + #"<d:sync-level>1</d:sync-level><d:prop><d:getetag/><c:calendar-data/></d:prop></d:sync-collection>"#
        return try app.request(
            "REPORT /caldav/lists/1/ HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Basic \(credentials)\r\nDepth: 1\r\n"
                + "Content-Type: application/xml\r\n",
            body: body
        )
    }
    func token(of response: [UInt8]) -> String {
        String(String(decoding: response, as: UTF8.self).firstMatch(of: #/<D:sync-token>([^<]+)</#)?.output.1 ?? "")
    }
    func responses(_ body: [UInt8]) -> Int { String(decoding: body, as: UTF8.self).matches(of: #/<D:response>/#).count }

    // The book is made once the app is paired: wait until a full sync has every item.
    let deadline = Date().addingTimeInterval(30)
    while responses(try sync(from: "").body) < 2_000 {
        guard Date() < deadline else { throw BenchError("the tasks app never saw the 2,000 items") }
        usleep(50_000)
    }
    var fullRuns: [Double] = []
    var incrementalRuns: [Double] = []
    var sample = 0
    for _ in 0..<3 {
        var full: [Double] = []
        var incremental: [Double] = []
        for _ in 0..<10 {
            let start = now()
            let all = try sync(from: "")
            full.append(us(now() - start) / 1000)
            guard all.status == 207, responses(all.body) >= 2_000 else { throw BenchError("a full sync answered \(all.status)") }
            var last = token(of: all.body)
            for _ in 0..<5 {
                publisher.send(addOrRemove(sample, item: "bench probe"))
                sample += 1
                _ = publisher.readLine()
                // listd-web has the change a moment after listd confirmed it: wait until a
                // sync shows it, untimed, then time the next one from the token before it.
                var changed: (status: Int, body: [UInt8]) = (0, [])
                let waitUntil = Date().addingTimeInterval(5)
                repeat {
                    changed = try sync(from: last)
                    if responses(changed.body) == 0 { usleep(1_000) }
                } while responses(changed.body) == 0 && Date() < waitUntil
                let begin = now()
                let timed = try sync(from: last)
                incremental.append(us(now() - begin) / 1000)
                guard timed.status == 207, responses(timed.body) >= 1 else { throw BenchError("an incremental sync answered \(timed.status)") }
                last = token(of: timed.body)
            }
        }
        full.sort()
        incremental.sort()
        fullRuns.append(percentile(full, 0.5))
        incrementalRuns.append(percentile(incremental, 0.5))
    }
    let fullStat = Stat(fullRuns)
    let incrementalStat = Stat(incrementalRuns)
    report("tasks app: full sync of a 2,000-item list (sync-collection with calendar data) p50", "any", "ms",
           listd: fullStat, target: "≤ 200", met: fullStat.median <= 200)
    report("tasks app: incremental sync after one change, 2,000-item list p50", "any", "ms",
           listd: incrementalStat, target: "≤ 10", met: incrementalStat.median <= 10)
}
