// listd-web's CalDAV side: tasks apps (Reminders, Tasks.org through DAVx⁵, Thunderbird, Home
// Assistant) reach each list as a task list under /caldav/, with the user name and app password
// `listctl web pair --caldav` printed. Reads are answered from the task book; a PUT or DELETE is
// sent to listd as that device's edit (items rights only), so rules, delegates, the merge and the
// journal apply as to any edit, and answered once the book has the change.
import CalDAV
import Foundation
import HTTPTypes
import Hummingbird
import ListClient
import Logging
import NIOCore
import Synchronization

struct TasksApps: RouterMiddleware {
    typealias Context = WebRequestContext
    let registry: DeviceRegistry
    let follower: TaskBookFollower
    let writers: TaskWriters
    /// A connection that gave a right app password is a paired device's, as a page's is:
    /// kept when listd-web is full and past the unpaired timeout.
    let connections: GuardedConnections
    /// Served over HTTPS (its own certificate, or `--url https://` behind a proxy): an app
    /// password is never sent in the clear.
    let overHTTPS: Bool
    let trustForwardedFor: Bool
    let failures: WrongPasswords
    /// The largest body taken (a task is a few hundred bytes; a REPORT of many hrefs more).
    static let maximumBody = 256 << 10

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/.well-known/caldav" {
            return Response(status: .movedPermanently, headers: [.location: DAVPath.base])
        }
        // Apps given the server's address ask its root for the principal (PROPFIND /): answered
        // as /caldav/ is. The page's files are all GETs.
        let askedRoot = path == "/" && (request.method.rawValue == "PROPFIND" || request.method == .options)
        guard askedRoot || path == "/caldav" || path.hasPrefix("/caldav/") else { return try await next(request, context) }
        guard overHTTPS else {
            return .text("Tasks apps are served over HTTPS only: start listd-web with a certificate, or behind a proxy with --url https://….", status: .forbidden)
        }
        // A browser sends Origin; a tasks app does not. A page of another site must not reach
        // the lists with credentials the browser remembers.
        if request.headers[.origin] != nil {
            return .text("Tasks are not served to web pages.", status: .forbidden)
        }
        let client = context.client(trustingForwardedFor: trustForwardedFor, request)
        guard failures.counts.withLock({ $0.mayTry(client: client, now: .now) }) else {
            return .text("Too many wrong app passwords lately; try again in a minute.", status: .tooManyRequests)
        }
        guard let (user, password) = Self.basicCredentials(request), let device = registry.tasksApp(user: user, password: password) else {
            if request.headers[.authorization] != nil {
                let (_, justNow) = failures.counts.withLock { $0.failed(client: client, now: .now) }
                context.logger.warning("a wrong app password", metadata: [auditMetadataKey: "pairing", "client": "\(client)"])
                if justNow {
                    context.logger.warning(
                        "tasks apps locked for a client: \(PairingCodes.failuresAllowed) wrong app passwords within \(PairingCodes.failureWindow)",
                        metadata: ["client": "\(client)", auditMetadataKey: "pairing"]
                    )
                }
            }
            return Response(
                status: .unauthorized,
                headers: [.wwwAuthenticate: "Basic realm=\"listd\", charset=\"UTF-8\"", .contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "Give the user name and app password “listctl web pair --caldav NAME” printed.\n"))
            )
        }
        connections.proven(context.connection, device: device.id)
        await registry.seen(device)
        await follower.ready()
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumBody)
        } catch {
            return .text("A body here is at most \(Self.maximumBody >> 10) KiB.", status: .contentTooLarge)
        }
        let davRequest = DAVRequest(
            method: request.method.rawValue,
            path: askedRoot ? DAVPath.base : DAVHandler.percentDecoded(path),
            depth: request.headers[.init("Depth")!],
            body: Array(buffer: body),
            ifMatch: request.headers[.ifMatch],
            ifNoneMatch: request.headers[.ifNoneMatch]
        )
        var answer = DAVHandler(book: follower.book, deviceName: device.name).answer(davRequest)
        if case .after(let revision) = answer {
            await follower.reached(revision)
            answer = DAVHandler(book: follower.book, deviceName: device.name).answer(davRequest)
        }
        switch answer {
        case .respond(let response):
            return Self.response(response)
        case .write(let write):
            return Self.response(await writers.perform(write, device: device, logger: context.logger))
        case .after:
            // listd is away (the book cannot follow it): the app asks again later, its token kept.
            return Self.response(
                DAVResponse(status: 503, headers: ["Retry-After": "5"], body: "listd-web is catching up with listd; sync again shortly.\n")
            )
        }
    }

    static func basicCredentials(_ request: Request) -> (String, String)? {
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    static func response(_ answer: DAVResponse) -> Response {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(
            status: .init(code: answer.status),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: answer.body))
        )
    }
}

/// Wrong app passwords, per client: counted as wrong pairing codes are.
final class WrongPasswords: Sendable {
    let counts = Mutex(PairingCodes())
}

/// Each tasks app's connection to listd, named after it (its edits are its own in the journal,
/// `listctl log` and every subscriber), with items rights only.
final class TaskWriters: Sendable {
    let listdSocket: String
    let follower: TaskBookFollower
    let registry: DeviceRegistry
    private let clients = Mutex<[String: ListClient]>([:])

    init(listdSocket: String, follower: TaskBookFollower, registry: DeviceRegistry) {
        self.listdSocket = listdSocket
        self.follower = follower
        self.registry = registry
    }

    static let rights = ["items"]

    private func client(for device: Device) async throws(ListClientError) -> ListClient {
        if let client = clients.withLock({ $0[device.id] }) { return client }
        let client = try await ListClient.connect(socketPath: listdSocket, name: device.name, rights: Self.rights)
        let kept = clients.withLock { clients in
            if let other = clients[device.id] { return other }
            clients[device.id] = client
            return client
        }
        if kept !== client { await client.close() }
        return kept
    }

    /// Closes the connections of apps revoked since (they are refused before reaching here; their
    /// connections to listd would otherwise stay open until listd-web stops).
    private func closeRevoked() async {
        let paired = Set(registry.devices().map(\.id))
        let revoked = clients.withLock { clients in
            let gone = clients.filter { !paired.contains($0.key) }
            for id in gone.keys { clients[id] = nil }
            return Array(gone.values)
        }
        for client in revoked { await client.close() }
    }

    private func drop(_ device: Device) async {
        let client = clients.withLock { $0.removeValue(forKey: device.id) }
        await client?.close()
    }

    /// Sends a PUT's or DELETE's edits, in order (the first with the client's copy's revision as
    /// `basedOn`, each next with the revision the one before made), and answers once the book has
    /// the last change.
    func perform(_ write: TaskWrite, device: Device, logger: Logger) async -> DAVResponse {
        await closeRevoked()
        let edits = TaskWritePlan.edits(for: write)
        guard let name = follower.book.lists[write.list]?.name else { return DAVResponse(status: 409, body: "No such list.\n") }
        var lastRevision: Int?
        for (index, edit) in edits.enumerated() {
            // The first edit is made on the app's copy (its If-Match); each next one on the list as
            // the edit before left it, so a change someone makes to the item in between is
            // merged against, not overwritten.
            let basedOn = index == 0 ? write.basedOn : lastRevision
            do throws(ListClientError) {
                lastRevision = try await send(edit, list: .id(write.list), basedOn: basedOn, device: device)
            } catch {
                if case .denied(let denial) = error {
                    logger.info("a tasks app's edit was denied", metadata: ["device": "\(device.name)", "reason": "\(denial.reason)"])
                    if let lastRevision { await follower.reached(lastRevision) }
                    return Self.denied(denial, list: name)
                }
                await drop(device)
                return DAVResponse(status: 503, headers: ["Retry-After": "5"], body: "listd is not reachable now (\(error)); try again shortly.\n")
            }
        }
        if let lastRevision { await follower.reached(lastRevision) }
        switch write.kind {
        case .delete:
            return DAVResponse(status: 204)
        case .put(let task):
            follower.update { book in
                // A new task: its item, added by the PUT or there already (the book has followed
                // listd past the add), is known by the app's UID and href from now on.
                if write.existing == nil, book.lists[write.list]?.entry(href: write.href) == nil,
                    let item = book.lists[write.list]?.entries[ListText.key(task.summary)]
                {
                    book.adopt(list: write.list, href: item.href, uid: task.uid, newHref: write.href)
                }
                book.keep(task.kept, list: write.list, href: write.href)
            }
            // The task's UID and href (a new one's are the app's own) and what listd does not
            // model are on disk before the app is told: a crash after cannot take them back.
            follower.save()
            let entry = follower.book.lists[write.list]?.entry(href: write.href)
            var headers: [String: String] = [:]
            if let entry, TaskWritePlan.storedAsSent(task, entry.item) { headers["ETag"] = entry.etag }
            return DAVResponse(status: write.existing == nil ? 201 : 204, headers: headers)
        }
    }

    /// One edit sent; the revision of the list's last change after it. The app's connection to
    /// listd may be one a restart of listd closed: the edit is sent once more on a new one, with
    /// the same `editId`, so listd makes it once even if the first reached it.
    private func send(_ edit: PlannedEdit, list: ListReference, basedOn: Int?, device: Device) async throws(ListClientError) -> Int? {
        let editId = UUID().uuidString
        do {
            return try await send(edit, list: list, basedOn: basedOn, device: device, editId: editId)
        } catch .connectionClosed {
            await drop(device)
            return try await send(edit, list: list, basedOn: basedOn, device: device, editId: editId)
        }
    }

    private func send(
        _ edit: PlannedEdit, list: ListReference, basedOn: Int?, device: Device, editId: String
    ) async throws(ListClientError) -> Int? {
        let client = try await client(for: device)
        let reply: ShoppingList
        switch edit {
        case .add(let item, let section, let quantity):
            reply = try await client.call(
                AddItem.self, .init(list: list, item: item, section: section, quantity: quantity, ifAbsent: true), editId: editId, basedOn: basedOn
            )
        case .replace(let item, let new):
            reply = try await client.call(ReplaceItem.self, .init(list: list, item: item, with: new), editId: editId, basedOn: basedOn)
        case .check(let item):
            reply = try await client.call(CheckItem.self, .init(list: list, item: item), editId: editId, basedOn: basedOn)
        case .uncheck(let item):
            reply = try await client.call(UncheckItem.self, .init(list: list, item: item), editId: editId, basedOn: basedOn)
        case .setQuantity(let item, let quantity):
            reply = try await client.call(SetQuantity.self, .init(list: list, item: item, quantity: quantity), editId: editId, basedOn: basedOn)
        case .move(let item, let section):
            reply = try await client.call(MoveItem.self, .init(list: list, item: item, section: section), editId: editId, basedOn: basedOn)
        case .remove(let item):
            reply = try await client.call(RemoveItem.self, .init(list: list, item: item), editId: editId, basedOn: basedOn)
        }
        return reply.revision
    }

    /// A denial as the tasks app is told: 412 when the item changed since its copy (sync, then
    /// try again), else 409 with listd's sentence — never 403, which apps read as "read-only".
    static func denied(_ denial: ListDenial, list: String) -> DAVResponse {
        let stale = denial.reason == .conflict || denial.reason == .changedMeanwhile
        let condition = DAVName(DAVNamespace.listd, stale ? "changed-meanwhile" : "denied")
        return DAVResponse(
            status: stale ? 412 : 409,
            headers: ["Content-Type": "application/xml; charset=utf-8"],
            body: DAVXML.error(condition, sentence: denial.message, reason: "\(denial.reason)")
        )
    }
}
