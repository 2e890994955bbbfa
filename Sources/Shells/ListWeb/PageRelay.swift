// One open page's live connection: a connection to listd of its own, named after the device
// (so the journal, `listctl log`, `watch` and every subscriber say "Kitchen phone"), with the
// page's vetted requests passed to listd and everything listd says passed back unchanged.
// listd-web keeps no lists: the page and listd do all the deciding.
import HummingbirdWebSocket
import ListdLocations
import ListRPC
import ListRPCTransport
import ListWebProtocol
import Logging
import NIOCore
import Synchronization

struct PageRelay: Sendable {
    /// listd's socket.
    let listdSocket: String
    /// Its directory, when it is the user's own runtime directory: checked before each
    /// connection (another user may take /tmp/listd-UID while listd is stopped).
    let listdSocketDirectory: String?
    let registry: DeviceRegistry
    /// How fast each device's pages may send requests.
    let rate: RequestRates
    /// The longest line relayed from listd (`WebLimits.relayedLine`).
    let maximumRelayedLine: Int
    /// When listd's absence was last warned of.
    let unreachableWarnings = OncePer(.seconds(60))
    /// A page message larger than this closes the connection (an edit is a few hundred bytes).
    static let maximumMessage = 1 << 16
    /// What listd has sent a page and the page has not yet taken, at most: listd's lines are read
    /// as they come (a page digesting a big list for seconds must not look to listd like a
    /// client that stopped reading), and held here; past this the page is closed with 1013 and
    /// starts again from a snapshot.
    static let pageBacklog = 32 << 20

    /// Bytes read from listd for a page and not yet written to it.
    final class Backlog: Sendable {
        private let bytes = Mutex(0)
        func add(_ count: Int) -> Int { bytes.withLock { $0 += count; return $0 } }
        func taken(_ count: Int) { bytes.withLock { $0 -= count } }
    }
    /// The id of listd-web's own `hello`, whose reply the page does not see.
    static let helloID = "listd-web:hello"
    /// What a page may change, declared to listd in the hello (see `ClientRights`).
    static let pageRights = ["items"]

    private enum Ending {
        case pageClosed, listdClosed, revoked, helloRefused(RPCError), tooLarge, pageTooSlow
    }

    func run(
        device: Device,
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        logger: Logger
    ) async throws {
        let (revoked, revoke) = AsyncStream<Void>.makeStream()
        let page: UInt64
        switch registry.opened(by: device, close: { revoke.finish() }) {
        case .opened(let opened): page = opened
        case .revoked:
            try await outbound.close(.policyViolation, reason: "This device is no longer paired.")
            return
        case .full(let reason):
            // 1013 "try again later": the page keeps its queue and reconnects; never 1008,
            // which tells it that it is not paired.
            logger.notice("page refused: too many open", metadata: ["device": "\(device.name)"])
            try await outbound.close(.unknown(1013), reason: reason)
            return
        }
        defer { registry.closed(page) }
        await registry.seen(device)

        let channel: NIOAsyncChannel<RelayedLine, ByteBuffer>
        do {
            if let listdSocketDirectory { try RuntimeDirectory.check(listdSocketDirectory) }
            channel = try await ListdConnection.openForRelay(socketPath: listdSocket, maximumLineLength: maximumRelayedLine)
        } catch {
            // Every open page tries again every few seconds while listd is stopped: said once a
            // minute, not once per page and try.
            let level: Logger.Level = unreachableWarnings.due() ? .warning : .debug
            logger.log(level: level, "\(error); pages try again until it is back")
            // 1013 "try again later": the page keeps its queue and reconnects.
            try await outbound.close(.unknown(1013), reason: "listd is not running.")
            return
        }
        logger.info("page opened", metadata: ["device": "\(device.name)", "deviceID": "\(device.id)"])

        let ending = try await relay(
            device: device, channel: channel, inbound: inbound, outbound: outbound, revoked: revoked, logger: logger
        )
        switch ending {
        case .pageClosed:
            logger.info("page closed", metadata: ["device": "\(device.name)"])
        case .listdClosed:
            logger.info("listd closed a page's connection", metadata: ["device": "\(device.name)"])
            try? await outbound.close(.unknown(1013), reason: "listd stopped.")
        case .revoked:
            logger.notice("device revoked: its page is closed", metadata: ["device": "\(device.name)", auditMetadataKey: "pairing"])
            try? await outbound.close(.policyViolation, reason: "This device is no longer paired.")
        case .pageTooSlow:
            logger.warning(
                "a page fell behind by more than \(Self.pageBacklog >> 20) MiB of listd's lines: closed, it starts again from a snapshot",
                metadata: ["device": "\(device.name)"]
            )
            try? await outbound.close(.unknown(1013), reason: "busy: this page fell behind; trying again shortly.")
        case .tooLarge:
            // 1009 "message too big": the page says so, rather than "offline", and tries again.
            logger.error(
                "a notification from listd longer than \(maximumRelayedLine >> 20) MiB (a list) cannot be relayed: the page is closed",
                metadata: ["device": "\(device.name)"]
            )
            try? await outbound.close(.messageTooLarge, reason: "tooLarge: a list or history too large for this page")
        case .helloRefused(let error):
            // listd full (its connection limit) or not serving listd-web's user: the page is
            // told to try again later, never that it is not paired (1008).
            logger.error("listd refused the page's connection: \(error.message)", metadata: ["device": "\(device.name)"])
            try? await outbound.close(.unknown(1013), reason: "busy: listd refused the connection; trying again shortly.")
        }
    }

    /// The page's connection and listd's, each way, until one of them ends or the device is
    /// revoked.
    private func relay(
        device: Device,
        channel: NIOAsyncChannel<RelayedLine, ByteBuffer>,
        inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter,
        revoked: AsyncStream<Void>,
        logger: Logger
    ) async throws -> Ending {
        try await channel.executeThenClose { fromListd, toListd in
            // A page changes items only: listd holds the connection to that whatever it is sent
            // (an undo of a list's creation is a list's deletion, and denied).
            try await toListd.write(
                try ListdConnection.helloLine(id: .string(Self.helloID), Hello.Params(name: device.name, rights: Self.pageRights))
            )
            return try await withThrowingTaskGroup(of: Ending?.self) { group in
                let (lines, toPage) = AsyncStream<ByteBuffer>.makeStream()
                let backlog = Backlog()
                group.addTask {
                    var first = true
                    for try await relayed in fromListd {
                        let line: ByteBuffer
                        switch relayed {
                        case .line(let whole):
                            line = whole
                        case .oversized(let prefix, let length):
                            // A reply is refused for its request alone, and the page goes on; a
                            // notification cannot be, and the page starts again (1009).
                            guard let id = PageMessages.replyID(startingLine: prefix.readableBytesView) else { return .tooLarge }
                            logger.warning(
                                "a reply from listd of \(length) bytes is longer than the \(maximumRelayedLine) a page is sent: refused for that request",
                                metadata: ["device": "\(device.name)"]
                            )
                            line = ByteBuffer(bytes: RPCEncoding.errorBytes(id: id, .replyTooLarge(bytes: length, limit: maximumRelayedLine)))
                        }
                        // The first line is the reply to hello: nothing else was asked yet.
                        if first {
                            first = false
                            if case .single(.success(.response(let reply))) = RPCLine.parse(line.readableBytesView),
                                case .failure(let error) = reply.outcome
                            {
                                return .helloRefused(error)
                            }
                            continue
                        }
                        if backlog.add(line.readableBytes) > Self.pageBacklog { return .pageTooSlow }
                        toPage.yield(line)
                    }
                    toPage.finish()
                    return nil  // listd closed: the page is sent what was read first
                }
                group.addTask {
                    for await line in lines {
                        try await outbound.write(.text(String(buffer: line)))
                        backlog.taken(line.readableBytes)
                    }
                    return .listdClosed
                }
                group.addTask {
                    for try await message in inbound.messages(maxSize: Self.maximumMessage) {
                        guard case .text(let text) = message else {
                            try await outbound.write(
                                .text(String(decoding: RPCEncoding.errorBytes(id: nil, .invalidRequest("send JSON text.")), as: UTF8.self))
                            )
                            continue
                        }
                        switch PageMessages.vet(text) {
                        case .forward(let line, let id):
                            if let wait = rate.take(device: device.id) {
                                let milliseconds = Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
                                let busy = RPCEncoding.errorBytes(id: id, .busy(retryAfterMs: max(1, milliseconds)))
                                try await outbound.write(.text(String(decoding: busy, as: UTF8.self)))
                                continue
                            }
                            try await toListd.write(ByteBuffer(bytes: line))
                        case .refuse(let reply): try await outbound.write(.text(String(decoding: reply, as: UTF8.self)))
                        }
                    }
                    return .pageClosed
                }
                group.addTask {
                    for await _ in revoked {}
                    return .revoked
                }
                while let result = try await group.next() {
                    guard let ending = result else { continue }
                    group.cancelAll()
                    return ending
                }
                return .pageClosed
            }
        }
    }
}
