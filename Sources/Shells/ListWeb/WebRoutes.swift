// listd-web's HTTP side: which paths exist, who may open them (a paired device's token for the
// live connection and /whoami; the page's files are anyone's), the headers every response
// carries, and the live connection.
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// Each request's context: the device its token names, once checked.
package struct WebRequestContext: RequestContext, WebSocketRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let webSocket: WebSocketHandlerReference<Self>
    package var device: Device?

    /// The peer's address (a reverse proxy's, behind one).
    package let remoteAddress: SocketAddress?
    /// The connection the request came on (for `GuardedConnections`).
    let connection: ObjectIdentifier

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
        connection = ObjectIdentifier(source.channel)
    }

    /// Who sent the request, as pairing's limit counts clients: the peer's address, or behind a
    /// reverse proxy on this machine (`--url`), the address it says it forwarded for (its last
    /// `X-Forwarded-For` entry).
    func client(trustingForwardedFor: Bool, _ request: Request) -> String {
        let peer = remoteAddress?.ipAddress ?? "unknown"
        guard trustingForwardedFor, ServedNames.isLoopback(peer),
            let forwarded = request.headers[values: .init("X-Forwarded-For")!].last?.split(separator: ",").last
        else { return peer }
        return forwarded.trimmingCharacters(in: .whitespaces)
    }
}

enum WebRoutes {
    /// The cookie that carried a device's token before the page kept it: a browser sends a cookie
    /// to every port of a host, so to any other user's server on this machine too. Its tokens are
    /// refused now (`DeviceRegistry` drops those devices), and a browser that still sends one is
    /// told to forget it.
    static let oldCookieName = "listd_device"
    /// The live connection's subprotocol, and the prefix of the one that carries the token: a
    /// browser's WebSocket can send no other header of its own (`Sec-WebSocket-Protocol`).
    static let subprotocol = "listd-web"
    static let tokenSubprotocolPrefix = "listd-web.token."

    /// The device token a request carries: `Authorization: Bearer TOKEN` (the page's fetches), or
    /// the live connection's `listd-web.token.TOKEN` subprotocol. Never a cookie: the page keeps
    /// its token in its own origin's storage, which no other port or process can read.
    static func token(of request: Request) -> String? {
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            return String(authorization.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        }
        for protocols in request.headers[values: .secWebSocketProtocol] {
            for offered in protocols.split(separator: ",") {
                let name = offered.trimmingCharacters(in: .whitespaces)
                if name.hasPrefix(tokenSubprotocolPrefix) { return String(name.dropFirst(tokenSubprotocolPrefix.count)) }
            }
        }
        return nil
    }

    /// Whether the client offered the `listd-web` subprotocol (a browser then needs it named in
    /// the answer, or it fails the connection).
    static func offersSubprotocol(_ request: Request) -> Bool {
        request.headers[values: .secWebSocketProtocol].contains { protocols in
            protocols.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == subprotocol }
        }
    }

    /// Nothing but the page itself: no inline script or style, no other host, not framed.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func router(
        registry: DeviceRegistry, relay: PageRelay, connections: GuardedConnections, expectedOrigin: String?,
        names: ServedNames, overHTTPS: Bool, tasksApps: TasksApps
    ) -> Router<WebRequestContext> {
        let router = Router(context: WebRequestContext.self)
        router.middlewares.add(SecurityHeaders(overHTTPS: overHTTPS))
        router.middlewares.add(HostCheck(names: names))
        // /caldav/ and /.well-known/caldav: tasks apps, with their app passwords.
        router.middlewares.add(tasksApps)
        router.middlewares.add(DeviceCheck(registry: registry, connections: connections))

        for asset in PageAssets.all {
            router.get(RouterPath(asset.path)) { _, _ in asset.response() }
        }
        router.post("/pair") { request, context -> Response in
            guard OriginCheck.sameOrigin(request, expected: expectedOrigin) else {
                return .text("This request came from another site.", status: .forbidden)
            }
            let body = try await request.body.collect(upTo: 4096)
            guard let params = try? JSONDecoder().decode(PairRequest.self, from: Data(buffer: body)) else {
                return .text("Send {\"code\": …} as JSON.", status: .badRequest)
            }
            // Logged: who paired, and wrong codes and lockouts with the client's address — never
            // a code or a token.
            let client = context.client(trustingForwardedFor: expectedOrigin != nil, request)
            switch registry.pair(code: params.code, client: client) {
            case .paired(let token, let device):
                context.logger.notice(
                    "device paired",
                    metadata: ["device": "\(device.name)", "deviceID": "\(device.id)", "client": "\(client)", auditMetadataKey: "pairing"]
                )
                // The page keeps the token (its origin's storage) and sends it itself: no cookie.
                return .json(["device": device.name, "token": token], status: .ok)
            case .refused(let error, let lockedOut):
                if error != .tooManyPairingAttempts {
                    context.logger.warning("a wrong pairing code", metadata: [auditMetadataKey: "pairing", "client": "\(client)", "error": "\(error == .pairingCodeExpired ? "expired" : "unknown")"])
                }
                if lockedOut {
                    context.logger.warning(
                        "pairing locked for a client: \(PairingCodes.failuresAllowed) wrong codes within \(PairingCodes.failureWindow)",
                        metadata: ["client": "\(client)", auditMetadataKey: "pairing"]
                    )
                }
                switch error {
                case .tooManyPairingAttempts: return .json(["message": error.description], status: .tooManyRequests)
                case .pairingCodeExpired: return .json(["message": error.description], status: .gone)
                default: return .json(["message": error.description], status: .badRequest)
                }
            }
        }
        // The device's name and id: a page whose queue was made under another id (its phone
        // was unpaired, then paired again) holds that queue until the person says.
        // With the names of the users the page asks about (`?uids=`), the paired devices' names
        // (a change made under one is a phone's, named by it; listd-web runs as a user as
        // listctl does) and who saves the list file (`PeopleNames`).
        router.get("/whoami") { request, context -> Response in
            let answer = WhoAmI(
                device: context.device?.name ?? "",
                id: context.device?.id ?? "",
                devices: registry.devices().map(\.name),
                fileAuthor: PeopleNames.fileAuthor(listdSocket: relay.listdSocket) ?? "",
                people: PeopleNames.names(of: PeopleNames.asked(request.uri.queryParameters["uids"].map(String.init)))
            )
            let data = (try? JSONEncoder().encode(answer)) ?? Data("{}".utf8)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.ws("/live") { request, _ in
            guard OriginCheck.sameOrigin(request, expected: expectedOrigin) else {
                throw HTTPError(.forbidden, message: "The live connection was asked for from another site.")
            }
            return .upgrade(offersSubprotocol(request) ? [.secWebSocketProtocol: subprotocol] : [:])
        } onUpgrade: { inbound, outbound, context in
            guard let device = context.requestContext.device else { return }
            try await relay.run(device: device, inbound: inbound, outbound: outbound, logger: context.logger)
        }
        return router
    }

    struct PairRequest: Decodable {
        var code: String
    }

    /// What /whoami says.
    struct WhoAmI: Encodable {
        var device: String
        var id: String
        var devices: [String]
        var fileAuthor: String
        var people: [String: String]
    }
}

/// Refuses the live connection and /whoami without a paired device's token (401). The page's
/// files and pairing are anyone's: they hold nothing of the lists, which come only over the live
/// connection.
struct DeviceCheck: RouterMiddleware {
    typealias Context = WebRequestContext
    let registry: DeviceRegistry
    let connections: GuardedConnections

    static let guardedPaths: Set<String> = ["/live", "/whoami"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.guardedPaths.contains(request.uri.path) else {
            var response = try await next(request, context)
            // A browser paired before still sends the old cookie, to every port of this host:
            // told to forget it (its token is refused anyway).
            if request.cookies[WebRoutes.oldCookieName] != nil {
                response.headers[.setCookie] = "\(WebRoutes.oldCookieName)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
            }
            return response
        }
        guard let token = WebRoutes.token(of: request), let device = registry.device(token: token) else {
            return .text("This device is not paired with listd-web.", status: .unauthorized)
        }
        // This connection is a paired device's: kept when listd-web is full, and past the
        // unpaired timeout.
        connections.proven(context.connection, device: device.id)
        var context = context
        context.device = device
        return try await next(request, context)
    }
}

/// Answers only requests addressed to a name listd-web serves (421 Misdirected Request else):
/// a page at another name that resolves here (DNS rebinding) reaches nothing.
struct HostCheck: RouterMiddleware {
    typealias Context = WebRequestContext
    let names: ServedNames

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority else {
            return .text("Say which server this is for (Host).", status: .badRequest)
        }
        guard names.admits(authority: authority) else {
            return .text("listd-web does not serve this name; open the address “listctl web pair” printed.", status: .misdirectedRequest)
        }
        return try await next(request, context)
    }
}

/// The headers every response carries, errors included.
struct SecurityHeaders: RouterMiddleware {
    typealias Context = WebRequestContext
    /// Served over HTTPS (its own certificate, or a proxy's `--url https://`): browsers are told
    /// to use nothing else for a year (HSTS).
    let overHTTPS: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            response = .text(error.body ?? "", status: error.status)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = WebRoutes.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[.init("Cross-Origin-Opener-Policy")!] = "same-origin"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        if overHTTPS { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}

/// Whether a request that changes something (pairing, the live connection) came from the page
/// itself: its `Origin` must name this server — `--url`'s origin when given (behind a reverse
/// proxy), else the `Host` the request was sent to.
enum OriginCheck {
    static func sameOrigin(_ request: Request, expected: String?) -> Bool {
        guard let origin = request.headers[.origin], origin != "null" else { return false }
        if let expected { return origin == expected }
        guard let authority = request.head.authority, let schemeEnd = origin.range(of: "://") else { return false }
        return origin[schemeEnd.upperBound...] == authority[...]
    }
}

extension Response {
    static func text(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text + "\n"))
        )
    }

    static func json(_ object: [String: String], status: HTTPResponse.Status) -> Response {
        let data = (try? JSONEncoder().encode(object)) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
