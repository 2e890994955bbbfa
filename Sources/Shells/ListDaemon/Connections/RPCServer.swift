import DurableFiles
import Foundation
import Glibc
import ListCore
import ListModel
import ListRPC
import ListRPCTransport
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Serves the JSON-RPC protocol on a Unix-domain stream socket.
package final class RPCServer: Service, Sendable {
    package struct Configuration: Sendable {
        package var socketPath: String
        /// A listening socket passed in (socket activation); listd then neither binds nor
        /// removes `socketPath`.
        package var listeningSocket: Int32?
        /// A longer line gets an error, then the connection is closed.
        package var maximumLineLength: Int
        /// Nesting depth and batch size one line may have.
        package var lineLimits: RPCLine.Limits
        /// Connections served at once; one more gets an error line and is closed.
        package var maximumConnections: Int
        /// Connections one user other than listd's own and root may hold; nil: a quarter of
        /// `maximumConnections`.
        package var maximumConnectionsPerUser: Int?
        /// Bytes that may wait for a client that does not read; beyond, it is disconnected.
        package var maximumOutboundBytes: Int
        /// Who is served (checked with SO_PEERCRED on accept).
        package var access: AccessPolicy
        package var version: String
        /// How often the event loops must prove they are alive, and what to call when they all
        /// have (a service manager's watchdog).
        package var watchdog: (interval: Duration, ping: @Sendable () -> Void)?

        /// What a client may owe, how long it may take, and who is let in, by these settings and
        /// listd's timers and counts (`stallGrace`, `idleLimit`, …: the parts' one table).
        package func rules(limits: CoreLimits) -> ConnectionRules {
            ConnectionRules(
                limits: limits,
                outboundLimit: maximumOutboundBytes,
                maximumConnections: maximumConnections,
                maximumConnectionsPerUser: maximumConnectionsPerUser
            )
        }

        package static let defaultMaximumConnections = 1_024
        package static let defaultMaximumOutboundBytes = 8 << 20

        package init(
            socketPath: String,
            listeningSocket: Int32? = nil,
            maximumLineLength: Int = LineFraming.defaultMaximumLineLength,
            lineLimits: RPCLine.Limits = .default,
            maximumConnections: Int = defaultMaximumConnections,
            maximumConnectionsPerUser: Int? = nil,
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
            self.maximumConnectionsPerUser = maximumConnectionsPerUser
            self.maximumOutboundBytes = maximumOutboundBytes
            self.access = access
            self.version = version
            self.watchdog = watchdog
        }
    }

    private let configuration: Configuration
    private let services: ConnectionServices
    private let logger: Logger
    private let onReady: @Sendable () -> Void
    private let nextConnectionID = Atomic<Int>(1)
    private let openConnections = Mutex(OpenConnections())

    /// The connections open, and how many each user holds.
    private struct OpenConnections {
        var channels: [Int: any Channel] = [:]
        var ofUser: [UInt32: Int] = [:]

        /// Counts `channel` in: how many are open now, in all and of its user.
        mutating func add(_ channel: any Channel, id: Int, uid: UInt32) -> (open: Int, ofUser: Int) {
            channels[id] = channel
            ofUser[uid, default: 0] += 1
            return (channels.count, ofUser[uid]!)
        }

        mutating func remove(id: Int, uid: UInt32) {
            guard channels.removeValue(forKey: id) != nil else { return }
            let left = ofUser[uid, default: 1] - 1
            ofUser[uid] = left > 0 ? left : nil
        }
    }

    /// `ListdParts.server` builds it.
    init(
        configuration: Configuration,
        services: ConnectionServices,
        logger: Logger,
        onReady: @escaping @Sendable () -> Void
    ) {
        self.configuration = configuration
        self.logger = logger
        self.services = services
        self.onReady = onReady
    }

    /// Gives `path` the group `group` (when given) and `mode`, or says why it could not.
    private static func setAccess(_ path: String, group: gid_t?, mode: mode_t) throws(DaemonError) {
        if let group, chown(path, UInt32.max, group) != 0 {
            throw .cannotSetSocketAccess(path: path, step: "chown to group \(group)", errno: errno)
        }
        if chmod(path, mode) != 0 {
            throw .cannotSetSocketAccess(path: path, step: "chmod \(String(mode, radix: 8))", errno: errno)
        }
    }

    package func run() async throws {
        let path = configuration.socketPath
        // Served on the owner's loop: a request reaches the core with no hand-over.
        let group = services.owner.group
        let bootstrap = ServerBootstrap(group: group)
            // A client that shuts down its sending side still gets its replies.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                PeerCredentials.of(channel).flatMapThrowing { credentials in
                    try self.accept(channel, credentials: credentials)
                }
            }
        let listener: any Channel
        if let socket = configuration.listeningSocket {
            listener = try await bootstrap.withBoundSocket(socket).get()
            logger.info("serving the socket passed by the service manager")
        } else {
            let group = configuration.access.group
            let directory = directoryName(of: path)
            try makeDirectories(directory, mode: group == nil ? 0o700 : 0o750)
            try Self.removeStaleSocket(at: path)
            do {
                listener = try await bootstrap.bind(unixDomainSocketPath: path).get()
            } catch let error as IOError {
                throw DaemonError.cannotBindSocket(socketPath: path, errno: error.errnoCode)
            }
            do {
                if let group {
                    // The owner and the group's members may connect (SO_PEERCRED is checked too).
                    try Self.setAccess(directory, group: group.gid, mode: 0o750)
                    try Self.setAccess(path, group: group.gid, mode: 0o660)
                } else {
                    // Only the owner may connect.
                    try Self.setAccess(path, group: nil, mode: 0o600)
                }
            } catch {
                try? await listener.close()
                throw error
            }
            logger.info("listening on \(path)")
        }
        let watchdogTasks =
            configuration.watchdog.map { Self.startWatchdog(on: group, interval: $0.interval, ping: $0.ping) } ?? []
        defer { watchdogTasks.forEach { $0.cancel() } }
        onReady()

        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                do {
                    try await listener.closeFuture.get()
                } catch {
                    logger.error("listening socket failed", metadata: ["error": "\(error)"])
                }
            } onCancel: {
                listener.close(promise: nil)
            }
        } onGracefulShutdown: {
            listener.close(promise: nil)
        }
        // Stop accepting, then end every connection once its current request is answered.
        listener.close(promise: nil)
        let channels = openConnections.withLock { Array($0.channels.values) }
        for channel in channels { channel.close(mode: .input, promise: nil) }
        // A reply held until the shared lists' server says whether an edit was made is given
        // now (its outcome is not known): the connection waiting for it ends, and the owner,
        // which stops after the server, is not waited for.
        let owner = services.owner
        owner.loop.execute { owner.handle(.repliesDue) }
        for channel in channels { try? await channel.closeFuture.get() }
        // A socket the service manager owns stays for the next activation.
        if configuration.listeningSocket == nil { unlink(path) }
    }

    /// Sets up an accepted connection's pipeline (on its event loop). A client refused by the
    /// access policy or a connection limit is told why, then the connection ends.
    private func accept(_ channel: any Channel, credentials peer: PeerCredentials) throws {
        let id = nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
        let (open, openOfUser) = openConnections.withLock { $0.add(channel, id: id, uid: peer.uid) }
        channel.closeFuture.whenComplete { _ in self.openConnections.withLock { $0.remove(id: id, uid: peer.uid) } }
        let access = configuration.access
        let refusal = services.rules.admission(
            allowed: access.allows(peer),
            policy: access.refusal(of: peer),
            uid: peer.uid,
            isOwner: access.isOwner(peer),
            open: open,
            openOfUser: openOfUser
        )
        if let refusal {
            services.refusals.log("refused a client", why: refusal.why, peer: peer, on: channel.eventLoop)
        }
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(LineFraming.lineDecoder(maximumLineLength: configuration.maximumLineLength))
        try pipeline.addHandler(ConnectionHandler(services: services, id: id, credentials: peer, refusal: refusal.map { RPCError(refusal: $0.reason) }))
    }

    /// Every event loop marks itself alive twice per interval; the watchdog is pinged only once
    /// all of them have, so one wedged loop is enough for the service manager to restart listd.
    static func startWatchdog(
        on group: any EventLoopGroup,
        interval: Duration,
        ping: @escaping @Sendable () -> Void
    ) -> [RepeatedTask] {
        let loops = Array(group.makeIterator())
        let alive = Mutex(Set<Int>())
        let period = TimeAmount(interval / 2)
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

    /// Whether listd can serve `path`, found out before it writes anything anywhere: a failed
    /// start leaves the disk as it found it, and says what is wrong in words.
    package static func checkSocketPath(_ path: String) throws(DaemonError) {
        let maximum = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
        if path.utf8.count > maximum {
            throw .socketPathTooLong(socketPath: path, bytes: path.utf8.count, maximum: maximum)
        }
        // Every directory above it that exists must be one; the first missing one must be
        // creatable, and an existing last one writable.
        var current = path.hasPrefix("/") ? "" : "."
        var lastExisting = current.isEmpty ? "/" : current
        for component in directoryName(of: path).split(separator: "/") {
            current += "/" + component
            var info = stat()
            guard stat(current, &info) == 0 else {
                guard errno == ENOENT else { throw .cannotBindSocket(socketPath: path, errno: errno) }
                break
            }
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(socketPath: path, component: current) }
            lastExisting = current
        }
        if access(lastExisting, W_OK | X_OK) != 0 { throw .cannotBindSocket(socketPath: path, errno: errno) }
        try checkNoOneServes(path)
    }

    /// Refuses when a listd still answers on `path`, or when `path` is not a socket.
    static func checkNoOneServes(_ path: String) throws(DaemonError) {
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
    }

    /// Replaces a socket file left by a listd that is gone; refuses when one still answers or
    /// when the path is something else.
    static func removeStaleSocket(at path: String) throws(DaemonError) {
        try checkNoOneServes(path)
        unlink(path)
    }
}

extension RPCError {
    /// The error line a client the connection rules turned away is sent.
    init(refusal: ConnectionRules.Refusal.Reason) {
        switch refusal {
        case .notAllowed(let uid, let policy): self = .notAllowed(uid: uid, detail: policy)
        case .full(let limit): self = .tooManyConnections(limit)
        case .userShareFull(let uid, let share, let limit): self = .tooManyConnectionsOfUser(uid: uid, share: share, limit: limit)
        case .keptForOwner(let limit, let reserve): self = .tooManyConnections(limit, keptForOwner: reserve)
        }
    }
}
