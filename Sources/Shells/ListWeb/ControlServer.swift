// listd-web's control socket: `listctl web pair / devices / revoke` (newline JSON-RPC, as on
// listd's socket). Whoever may use this socket may pair a phone, so it lives in a directory
// only listd-web's user can enter, and each connection's peer (SO_PEERCRED) must be root or
// that user: a socket opened to others by mistake still pairs nobody else's phone.
import Foundation
import ListRPC
import ListRPCTransport
import ListWebProtocol
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

package struct ControlServer: Service {
    let path: String
    let registry: DeviceRegistry
    /// What a paired device opens: the page's address as phones reach it.
    let pageAddress: @Sendable () -> String
    let logger: Logger

    package init(path: String, registry: DeviceRegistry, pageAddress: @escaping @Sendable () -> String, logger: Logger) {
        self.path = path
        self.registry = registry
        self.pageAddress = pageAddress
        self.logger = logger
    }

    package func run() async throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                PeerCredentials.of(channel).flatMapThrowing { peer in
                    (try LineFraming.wrap(channel, maximumLineLength: 1 << 14), peer)
                }
            }
        chmod(path, 0o660)
        logger.info("control socket ready", metadata: ["path": "\(path)"])
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await (connection, peer) in connections {
                        group.addTask { await serve(connection, peer: peer) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
        unlink(path)
    }

    /// Who may use the control socket: root, and listd-web's own user.
    static func admits(_ peer: PeerCredentials, ownUID: UInt32 = getuid()) -> Bool {
        peer.uid == 0 || peer.uid == ownUID
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, peer: PeerCredentials) async {
        guard Self.admits(peer) else {
            let refusal = RPCError.notAllowed(uid: peer.uid, detail: "listd-web's control socket serves root and its own user (uid \(getuid())) only")
            logger.warning("refused a control connection", metadata: ["client_uid": "\(peer.uid)", "client_pid": "\(peer.pid)", auditMetadataKey: "control"])
            try? await connection.executeThenClose { _, outbound in
                var reply = Array(RPCEncoding.error(id: nil, refusal))
                if reply.last != UInt8(ascii: "\n") { reply.append(UInt8(ascii: "\n")) }
                try await outbound.write(ByteBuffer(bytes: reply))
            }
            return
        }
        try? await connection.executeThenClose { inbound, outbound in
            for try await line in inbound {
                var reply = Array(answer(line.readableBytesView))
                if reply.last != UInt8(ascii: "\n") { reply.append(UInt8(ascii: "\n")) }
                try await outbound.write(ByteBuffer(bytes: reply))
            }
        }
    }

    /// The reply to one request line.
    func answer(_ line: some Collection<UInt8>) -> Data {
        guard case .single(.success(.request(let request))) = RPCLine.parse(line) else {
            return RPCEncoding.error(id: nil, .invalidRequest("send one JSON-RPC request per line."))
        }
        let id = request.id
        do {
            switch request.method {
            case "hello":
                return try RPCEncoding.result(id: id, ["server": "listd-web"])
            case PairDevice.name:
                let params = try RPCEncoding.decode(PairDevice.Params.self, from: request.params)
                guard case .success(let name) = DeviceNames.validated(params.name) else {
                    return RPCEncoding.error(id: id, WebError.invalidDeviceName(params.name).rpcError)
                }
                let code: String
                do throws(WebError) {
                    code = try registry.issueCode(deviceName: name)
                } catch {
                    return RPCEncoding.error(id: id, error.rpcError)
                }
                logger.notice("pairing link made", metadata: ["device": "\(name)", auditMetadataKey: "pairing"])
                let result = PairDevice.Result(
                    link: pageAddress() + "/pair#" + code,
                    validForSeconds: Int(PairingCodes.validity.components.seconds)
                )
                return try RPCEncoding.result(id: id, result)
            case PairTasksApp.name:
                let params = try RPCEncoding.decode(PairTasksApp.Params.self, from: request.params)
                guard case .success(let name) = DeviceNames.validated(params.name) else {
                    return RPCEncoding.error(id: id, WebError.invalidDeviceName(params.name).rpcError)
                }
                let paired: (user: String, password: String, device: Device)
                do throws(WebError) {
                    paired = try registry.pairTasksApp(deviceName: name)
                } catch {
                    return RPCEncoding.error(id: id, error.rpcError)
                }
                logger.notice(
                    "tasks app paired", metadata: ["device": "\(name)", "deviceID": "\(paired.device.id)", auditMetadataKey: "pairing"]
                )
                let device = registry.devices().first { $0.id == paired.device.id } ?? PairedDevice(id: paired.device.id, name: name, paired: "")
                return try RPCEncoding.result(
                    id: id, PairTasksApp.Result(server: pageAddress() + "/", user: paired.user, password: paired.password, device: device)
                )
            case ListDevices.name:
                return try RPCEncoding.result(id: id, ListDevices.Result(devices: registry.devices()))
            case RevokeDevice.name:
                let params = try RPCEncoding.decode(RevokeDevice.Params.self, from: request.params)
                let revoked: PairedDevice
                do throws(WebError) {
                    revoked = try registry.revoke(params.device)
                } catch {
                    return RPCEncoding.error(id: id, error.rpcError)
                }
                logger.notice("device revoked", metadata: ["device": "\(revoked.name)", "deviceID": "\(revoked.id)", auditMetadataKey: "pairing"])
                return try RPCEncoding.result(id: id, revoked)
            default:
                return RPCEncoding.error(id: id, .methodNotFound(request.method, "is not a listd-web method"))
            }
        } catch {
            return RPCEncoding.error(id: id, .invalidParams("\(error)"))
        }
    }
}
