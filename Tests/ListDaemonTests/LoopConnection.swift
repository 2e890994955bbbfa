// A client connection as listd serves one: the test's end of a socketpair whose other end listd's
// own pipeline (line decoder, ConnectionHandler) serves on the owner's loop, as RPCServer does.
import Foundation
import Glibc
import ListCore
import ListRPCTransport
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import ListCore
@testable import ListDaemon

/// The test's end of a connection listd serves on its owner's loop.
final class LoopConnection: Sendable {
    let fd: Int32
    private let pending = Mutex<[UInt8]>([])

    /// - Parameters:
    ///   - outboundLimit: bytes that may wait for this client (`RPCServer.Configuration`).
    ///   - before: a handler put in front of listd's, next to the socket (a stalled socket).
    init(
        _ parts: ListdParts,
        id: Int = 1,
        maximumLineLength: Int = LineFraming.defaultMaximumLineLength,
        outboundLimit: Int = RPCServer.Configuration.defaultMaximumOutboundBytes,
        before: (any ChannelHandler & Sendable)? = nil
    ) async throws {
        var fds: [Int32] = [-1, -1]
        // Close-on-exec: a process another test starts meanwhile (listd, vim, sed) must not
        // inherit listd's end, or closing it there is not seen here until that process exits
        // (a stalled subscriber's disconnect was seen 10 s late in the full parallel run).
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        fd = fds[1]
        let configuration = RPCServer.Configuration(
            socketPath: "/unused",
            maximumLineLength: maximumLineLength,
            maximumOutboundBytes: outboundLimit,
            version: "test"
        )
        let services = parts.connectionServices(configuration, logger: Logger(label: "test"))
        let credentials = PeerCredentials(pid: 4_000 + Int32(id), uid: getuid(), gid: getgid())
        _ = try await ClientBootstrap(group: parts.owner.group)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let before { try pipeline.addHandler(before) }
                    try pipeline.addHandler(LineFraming.lineDecoder(maximumLineLength: maximumLineLength))
                    try pipeline.addHandler(
                        ConnectionHandler(services: services, id: id, credentials: credentials, refusal: nil)
                    )
                }
            }
            .withConnectedSocket(fds[0]).get()
    }

    deinit {
        close(fd)
    }

    /// Writes `text` as is (no newline added): one write, as a client's.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Writes `line` and its newline.
    func sendLine(_ line: String) {
        send(line + "\n")
    }

    /// Closes the sending side, as a client that has said all it will (`shutdown(SHUT_WR)`).
    func shutDownSending() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Bytes listd wrote that were not read yet.
    var unread: Int {
        var count: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &count)
        return Int(count)
    }

    /// The next line listd wrote, as JSON (an object, or an array for a batch).
    func nextLine(_ what: String) throws -> Any {
        let text = try nextText(what)
        #expect(text.contains("\n") == false, "one line: \(text)")
        return try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    /// The next line listd wrote, as a JSON object.
    func line(_ what: String) throws -> [String: Any] {
        try #require(try nextLine(what) as? [String: Any], "\(what) is an object")
    }

    /// Returns once listd closed the connection (what it wrote before is read and dropped).
    func waitUntilClosed(_ what: String) throws {
        while try fill(what) {}
    }

    /// The next line listd wrote, as its text.
    func nextText(_ what: String) throws -> String {
        while true {
            if let text = pending.withLock({ buffer -> String? in
                guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                defer { buffer.removeFirst(end + 1) }
                return String(decoding: buffer[..<end], as: UTF8.self)
            }) {
                return text
            }
            try #require(try fill(what), "the connection ended while waiting for \(what)")
        }
    }

    /// Reads what listd wrote (waiting up to 10 s); false at the end of the connection.
    private func fill(_ what: String) throws -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 10_000) > 0 else {
            Issue.record("waited 10 s for \(what)")
            throw CancellationError()
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        pending.withLock { $0 += chunk[..<count] }
        return true
    }
}
