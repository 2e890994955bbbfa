// listd-web put together: the device registry, the page's HTTP server (HTTPS when given a
// certificate) with its live connection, and the control socket — as services for one group.
import DurableFiles
import Glibc
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOSSL
import ServiceLifecycle
import Synchronization

package struct WebSettings: Sendable {
    /// listd's socket.
    package var listdSocket: String
    package var host: String
    /// 0: any free port (the one taken is logged and given to `onListening`).
    package var port: Int
    /// What phones open, when not `http(s)://host:port` (behind a reverse proxy, say): pairing
    /// links start with it, and the live connection's `Origin` must be its origin.
    package var publicAddress: String?
    package var certificatePath: String?
    package var privateKeyPath: String?
    package var deviceFile: String
    package var controlSocket: String
    /// The user's own runtime directories the sockets above are in, when they are the defaults
    /// (`ListdPaths.privateRuntimeDirectory`): listd's is checked before each connection to it,
    /// the control socket's made or checked before it is bound (`RuntimeDirectory`).
    package var listdSocketDirectory: String?
    package var controlSocketDirectory: String?
    /// How much anyone may take (see `WebLimits`).
    package var limits = WebLimits()
    /// Removed tasks remembered per list for tasks apps' syncs (`TaskBook.tombstoneLimit`).
    package var tombstoneLimit = 10_000
    /// The CalDAV task book: beside the device file.
    package var taskBookFile: String { directoryName(of: deviceFile) + "/caldav-tasks.json" }

    package init(
        listdSocket: String, host: String, port: Int, publicAddress: String?, certificatePath: String?,
        privateKeyPath: String?, deviceFile: String, controlSocket: String
    ) {
        self.listdSocket = listdSocket
        self.host = host
        self.port = port
        self.publicAddress = publicAddress
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.deviceFile = deviceFile
        self.controlSocket = controlSocket
    }
}

package enum ListWebServer {
    /// The services listd-web runs. `onListening` is told the page's address and the port
    /// taken once the port is bound.
    package static func services(
        _ settings: WebSettings,
        logger: Logger,
        onListening: @escaping @Sendable (_ address: String, _ port: Int) -> Void = { _, _ in }
    ) throws -> [any Service] {
        let limits = settings.limits
        let registry = try DeviceRegistry(path: settings.deviceFile, limits: limits)
        if !registry.pairAgain.isEmpty {
            logger.notice(
                "devices paired while the token was a cookie (sent to every port of this host) must be paired again: \(registry.pairAgain.joined(separator: ", "))",
                metadata: ["devices": "\(registry.pairAgain.count)"]
            )
        }
        let connections = GuardedConnections(limits: limits, logger: logger)
        let relay = PageRelay(
            listdSocket: settings.listdSocket, listdSocketDirectory: settings.listdSocketDirectory, registry: registry,
            rate: RequestRates(limits: limits), maximumRelayedLine: limits.relayedLine
        )
        let expectedOrigin = settings.publicAddress.map(origin(of:))
        let secure = settings.certificatePath != nil
        let names = ServedNames(listenHost: settings.host, publicAddress: settings.publicAddress, machineName: machineName())
        let follower = TaskBookFollower(
            path: settings.taskBookFile, listdSocket: settings.listdSocket, tombstoneLimit: settings.tombstoneLimit, logger: logger,
            wanted: { registry.hasTasksApps }
        )
        let overHTTPS = secure || settings.publicAddress?.hasPrefix("https://") == true
        let tasksApps = TasksApps(
            registry: registry, follower: follower, writers: TaskWriters(listdSocket: settings.listdSocket, follower: follower, registry: registry),
            connections: connections,
            overHTTPS: overHTTPS, trustForwardedFor: expectedOrigin != nil, failures: WrongPasswords()
        )
        let router = WebRoutes.router(
            registry: registry, relay: relay, connections: connections, expectedOrigin: expectedOrigin, names: names,
            overHTTPS: overHTTPS, tasksApps: tasksApps
        )

        let upgrade = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: .init(limits.idleTimeout)),
            // A frame larger than a page's largest message is refused as it arrives (the
            // message limit alone holds only for fragmented messages).
            // Text that is not UTF-8 closes the page's connection with 1007, as RFC 6455 asks
            // (before, it was taken with U+FFFD in its place).
            ws: .init(maxFrameSize: PageRelay.maximumMessage, autoPing: .enabled(timePeriod: .seconds(20)), validateUTF8: true)
        )
        var configuredTLS: TLSConfiguration?
        if let certificatePath = settings.certificatePath, let keyPath = settings.privateKeyPath {
            let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map { NIOSSLCertificateSource.certificate($0) }
            configuredTLS = tlsConfiguration(chain: chain, key: try NIOSSLPrivateKey(file: keyPath, format: .pem))
        }
        let tls = configuredTLS
        let webSocketResponder = router.buildResponder()
        // Each connection: the guard first, then TLS when served over HTTPS, then HTTP with the
        // live connection's upgrade.
        let server = HTTPServerBuilder { responder in
            let http = AnsweringMalformedRequests(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: upgrade)
            )
            if let tls { return GuardedChannel(base: try TLSChannel(http, tlsConfiguration: tls), connections: connections) }
            return GuardedChannel(base: http, connections: connections)
        }

        let pageAddress = Mutex<String?>(settings.publicAddress)
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? settings.port
                let address = pageAddress.withLock { address in
                    if address == nil { address = defaultAddress(host: settings.host, port: port, secure: secure) }
                    return address!
                }
                logger.notice("serving the page", metadata: ["address": "\(address)", "port": "\(port)"])
                onListening(address, port)
            },
            logger: logger
        )
        let control = ControlServer(
            path: settings.controlSocket,
            registry: registry,
            pageAddress: { pageAddress.withLock { $0 } ?? defaultAddress(host: settings.host, port: settings.port, secure: secure) },
            logger: logger
        )
        return [app, control, follower]
    }

    /// TLS 1.2 or later, with forward secrecy and authenticated encryption only (ECDHE with
    /// AES-GCM or ChaCha20-Poly1305; TLS 1.3's suites are all such): what every phone of the
    /// last ten years speaks, and nothing a downgrade could pick.
    static func tlsConfiguration(chain: [NIOSSLCertificateSource], key: NIOSSLPrivateKey) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuites = [
            "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
            "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
        ].joined(separator: ":")
        return configuration
    }

    /// This machine's host name (what a pairing link names when listd-web listens everywhere).
    static func machineName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `http(s)://host:port`, with this machine's name for an address that listens everywhere.
    static func defaultAddress(host: String, port: Int, secure: Bool) -> String {
        var name = host
        if ServedNames.isWildcard(host) {
            name = machineName() ?? host
        } else if host.contains(":") {
            name = "[\(host)]"
        }
        let scheme = secure ? "https" : "http"
        let usual = secure ? 443 : 80
        return port == usual ? "\(scheme)://\(name)" : "\(scheme)://\(name):\(port)"
    }

    /// `scheme://host[:port]` of an address (what a browser sends as `Origin`).
    static func origin(of address: String) -> String {
        guard let schemeEnd = address.range(of: "://") else { return address }
        let rest = address[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        return String(address[..<schemeEnd.upperBound]) + authority
    }
}
