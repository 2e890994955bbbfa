import AsyncAlgorithms
import Foundation
import Glibc
import ListModel
import ListRPC
import ListRPCTransport
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Serves the JSON-RPC protocol on a Unix-domain stream socket.
public final class RPCServer: Service, Sendable {
    public struct Configuration: Sendable {
        public var socketPath: String
        /// A listening socket passed in (socket activation); listd then neither binds nor
        /// removes `socketPath`.
        public var listeningSocket: Int32?
        /// A longer line gets an error, then the connection is closed.
        public var maximumLineLength: Int
        /// Nesting depth and batch size one line may have.
        public var lineLimits: RPCLine.Limits
        /// Connections served at once; one more gets an error line and is closed.
        public var maximumConnections: Int
        /// Bytes that may wait for a client that does not read; beyond, it is disconnected.
        public var maximumOutboundBytes: Int
        /// Who is served (checked with SO_PEERCRED on accept).
        public var access: AccessPolicy
        public var version: String
        /// How often the event loops must prove they are alive, and what to call when they all
        /// have (a service manager's watchdog).
        public var watchdog: (interval: Duration, ping: @Sendable () -> Void)?

        public static let defaultMaximumConnections = 1_024
        public static let defaultMaximumOutboundBytes = 8 << 20

        public init(
            socketPath: String,
            listeningSocket: Int32? = nil,
            maximumLineLength: Int = LineFraming.defaultMaximumLineLength,
            lineLimits: RPCLine.Limits = .default,
            maximumConnections: Int = defaultMaximumConnections,
            maximumOutboundBytes: Int = defaultMaximumOutboundBytes,
            access: AccessPolicy = AccessPolicy(),
            version: String,
            watchdog: (interval: Duration, ping: @Sendable () -> Void)? = nil
        ) {
            self.socketPath = socketPath
            self.listeningSocket = listeningSocket
            self.maximumLineLength = maximumLineLength
            self.lineLimits = lineLimits
            self.maximumConnections = maximumConnections
            self.maximumOutboundBytes = maximumOutboundBytes
            self.access = access
            self.version = version
            self.watchdog = watchdog
        }
    }

    private struct AcceptedConnection: Sendable {
        var channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        var credentials: PeerCredentials
    }

    private let configuration: Configuration
    private let store: ListStore
    private let delegates: DelegateRegistry
    private let logger: Logger
    private let methods: MethodTable
    private let onReady: @Sendable () -> Void
    private let nextConnectionID = Atomic<Int>(1)
    private let openChannels = Mutex<[Int: any Channel]>([:])

    /// - Parameter onReady: called once the socket accepts connections.
    public init(
        configuration: Configuration,
        store: ListStore,
        logger: Logger,
        onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        let delegates = store.delegates
        self.delegates = delegates
        self.methods = .listd(coordinator: EditCoordinator(store: store, delegates: delegates, logger: logger), version: configuration.version)
        self.onReady = onReady
    }

    public func run() async throws {
        let path = configuration.socketPath
        let maximumLineLength = configuration.maximumLineLength
        let initializer: @Sendable (any Channel) -> EventLoopFuture<AcceptedConnection> = { channel in
            PeerCredentials.of(channel).flatMapThrowing { credentials in
                AcceptedConnection(
                    channel: try LineFraming.wrap(channel, maximumLineLength: maximumLineLength),
                    credentials: credentials
                )
            }
        }
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        let listener: NIOAsyncChannel<AcceptedConnection, Never>
        if let socket = configuration.listeningSocket {
            listener = try await bootstrap.bind(socket, childChannelInitializer: initializer)
            logger.info("serving the socket passed by the service manager")
        } else {
            let group = configuration.access.group
            let directory = directoryName(of: path)
            try makeDirectories(directory, mode: group == nil ? 0o700 : 0o750)
            try Self.removeStaleSocket(at: path)
            listener = try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: initializer)
            if let group {
                // The owner and the group's members may connect (SO_PEERCRED is checked too).
                chown(directory, UInt32.max, group.gid)
                chmod(directory, 0o750)
                chown(path, UInt32.max, group.gid)
                chmod(path, 0o660)
            } else {
                // Only the owner may connect.
                chmod(path, 0o600)
            }
            logger.info("listening on \(path)")
        }
        let watchdogTasks = configuration.watchdog.map { Self.startWatchdog(interval: $0.interval, ping: $0.ping) } ?? []
        defer { watchdogTasks.forEach { $0.cancel() } }
        onReady()

        try await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                do {
                    try await listener.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                } catch {
                    logger.error("listening socket failed", metadata: ["error": "\(error)"])
                }
            }
        } onGracefulShutdown: {
            // Stop accepting, then end every connection once its current request is answered.
            listener.channel.close(promise: nil)
            let channels = self.openChannels.withLock { Array($0.values) }
            for channel in channels { channel.close(mode: .input, promise: nil) }
        }
        // A socket the service manager owns stays for the next activation.
        if configuration.listeningSocket == nil { unlink(path) }
    }

    /// Every event loop marks itself alive twice per interval; the watchdog is pinged only once
    /// all of them have, so one wedged loop is enough for the service manager to restart listd.
    private static func startWatchdog(interval: Duration, ping: @escaping @Sendable () -> Void) -> [RepeatedTask] {
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let alive = Mutex(Set<Int>())
        let (seconds, attoseconds) = (interval / 2).components
        let period = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        return loops.enumerated().map { index, loop in
            loop.scheduleRepeatedTask(initialDelay: .zero, delay: period) { _ in
                let allAlive = alive.withLock { alive in
                    alive.insert(index)
                    guard alive.count == loops.count else { return false }
                    alive.removeAll()
                    return true
                }
                if allAlive { ping() }
            }
        }
    }

    private func serve(_ connection: AcceptedConnection) async {
        let id = nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
        let peer = connection.credentials
        let channel = connection.channel.channel
        let peerMetadata: Logger.Metadata = ["client_pid": "\(peer.pid)", "client_uid": "\(peer.uid)"]
        let limit = configuration.maximumOutboundBytes
        let logger = self.logger
        let outbox = Outbox(limit: limit) { waiting in
            logger.warning(
                "disconnecting a client that stopped reading: \(waiting) bytes wait for it, the limit is \(limit) (pid \(peer.pid), uid \(peer.uid))",
                metadata: peerMetadata.merging(["reason": "outboundLimit"]) { $1 }
            )
            channel.close(promise: nil)
        }
        var session = Session(id: id, credentials: peer, outbox: outbox)
        let open = openChannels.withLock { channels in
            channels[id] = channel
            return channels.count
        }
        // Refused before anything is read: an error line, then the connection ends.
        var refusal: RPCError?
        if !configuration.access.allows(peer) {
            refusal = .notAllowed(uid: peer.uid, detail: configuration.access.refusal(of: peer))
            logger.warning("refused a client: \(configuration.access.refusal(of: peer)) (pid \(peer.pid), uid \(peer.uid))", metadata: peerMetadata)
        } else if open > configuration.maximumConnections {
            refusal = .tooManyConnections(configuration.maximumConnections)
            logger.warning("refused a client: \(configuration.maximumConnections) connections are open already (pid \(peer.pid), uid \(peer.uid))", metadata: peerMetadata)
        }
        if let refusal {
            defer { openChannels.withLock { _ = $0.removeValue(forKey: id) } }
            try? await connection.channel.executeThenClose { _, outbound in
                try await outbound.write(line(RPCEncoding.error(id: nil, refusal)))
            }
            return
        }
        logger.debug("client connected", metadata: peerMetadata)
        defer {
            store.unsubscribe(connection: id)
            delegates.remove(connection: id)
            openChannels.withLock { _ = $0.removeValue(forKey: id) }
        }
        do {
            try await connection.channel.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await buffer in outbox.stream {
                            let count = buffer.readableBytes
                            try await outbound.write(buffer)
                            outbox.written(count)
                        }
                    }
                    do {
                        // Requests are handled one at a time, in order; a delegate's answer is
                        // taken the moment it is read, even while a request of its own connection
                        // waits for delegates (itself among them). Requests read ahead of the one
                        // being handled wait in a small buffer; beyond it the socket is not read.
                        let delegates = self.delegates
                        let requests = inbound
                            .compactMap { [limits = configuration.lineLimits] buffer in
                                Self.takingAnswers(RPCLine.parse(buffer.readableBytesView, limits: limits), delegates: delegates)
                            }
                            .buffer(policy: .bounded(Self.requestsReadAhead))
                        for try await parsed in requests {
                            await self.handle(parsed, session: &session)
                        }
                    } catch where LineFraming.isLineTooLong(error) {
                        let limit = self.configuration.maximumLineLength
                        outbox.sendReply(line(RPCEncoding.error(id: nil, .invalidRequest("a line is longer than \(limit) bytes; closing the connection."))))
                    } catch {
                        self.logger.debug("connection ended", metadata: ["error": "\(error)"])
                    }
                    self.store.unsubscribe(connection: id)
                    // A delegate that is gone is dropped now: nobody waits out its timeout.
                    self.delegates.remove(connection: id)
                    outbox.finish()
                    try await group.waitForAll()
                }
            }
        } catch {
            logger.debug("connection closed with an error", metadata: ["error": "\(error)"])
        }
    }

    /// How many requests of one connection are read ahead of the one being handled.
    static let requestsReadAhead = 16

    /// Hands the answers in `line` to the delegate registry; returns what is left to handle in
    /// order (nil when nothing is).
    private static func takingAnswers(_ line: RPCLine, delegates: DelegateRegistry) -> RPCLine? {
        func isAnswer(_ message: Result<RPCMessage, RPCLine.InvalidMessage>) -> Bool {
            guard case .success(.response(let response)) = message else { return false }
            // A stray response needs no reply either way.
            _ = delegates.answer(response)
            return true
        }
        switch line {
        case .empty:
            return nil
        case .single(let message):
            return isAnswer(message) ? nil : line
        case .batch(let messages):
            let rest = messages.filter { !isAnswer($0) }
            // A batch of answers only gets no reply, as JSON-RPC says of responses.
            return rest.isEmpty && !messages.isEmpty ? nil : .batch(rest)
        }
    }

    private func handle(_ parsed: RPCLine, session: inout Session) async {
        switch parsed {
        case .empty:
            return
        case .single(let message):
            if let reply = await respond(to: message, session: &session) {
                session.outbox.sendReply(line(reply))
            }
        case .batch(let messages):
            var replies: [Data] = []
            for message in messages {
                if let reply = await respond(to: message, session: &session) { replies.append(reply) }
            }
            // A batch of notifications gets no reply at all, as JSON-RPC says.
            if !replies.isEmpty { session.outbox.sendReply(line(RPCEncoding.batch(replies))) }
        }
        // A subscribe reply (alone or in a batch) has gone out: held notifications may follow.
        session.outbox.release()
    }

    /// The reply to one message, or nil when none is due (a notification or a response).
    private func respond(to message: Result<RPCMessage, RPCLine.InvalidMessage>, session: inout Session) async -> Data? {
        switch message {
        case .failure(let invalid):
            return RPCEncoding.error(id: invalid.id, invalid.error)
        case .success(.response):
            return nil  // answers were taken as they were read
        case .success(.request(let request)):
            guard let handler = methods.handler(for: request.method) else {
                return request.id == nil ? nil : RPCEncoding.error(id: request.id, .methodNotFound(request.method))
            }
            let outcome = await handler(request.params, request.id, &session)
            guard request.id != nil else { return nil }
            switch outcome {
            case .success(let reply): return reply
            case .failure(let error): return RPCEncoding.error(id: request.id, error)
            }
        }
    }

    /// Replaces a socket file left by a listd that is gone; refuses when one still answers or
    /// when the path is something else.
    static func removeStaleSocket(at path: String) throws(DaemonError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .socketPathOccupied(socketPath: path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            let bytes = Array(path.utf8.prefix(buffer.count - 1))
            buffer.copyBytes(from: bytes)
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected == 0 { throw .alreadyRunning(socketPath: path) }
        unlink(path)
    }
}

/// A message plus its terminating newline, ready for the wire.
private func line(_ data: Data) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(data.count + 1)
    buffer.writeBytes(data)
    buffer.writeInteger(UInt8(ascii: "\n"))
    return buffer
}
