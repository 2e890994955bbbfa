// What a CalDAV request asks and the answer, decided from the task book alone: discovery
// (root → principal → calendar-home-set → one collection per list), PROPFIND, the three REPORTs
// (calendar-query, calendar-multiget, sync-collection), GET; a PUT or DELETE that passes its
// preconditions comes back as a `TaskWrite` for the shell to send to listd. No I/O here.
import ListModel

public struct DAVRequest: Sendable {
    /// Upper-cased.
    public var method: String
    /// The path, percent-decoded.
    public var path: String
    public var depth: String?
    public var body: [UInt8]
    public var ifMatch: String?
    public var ifNoneMatch: String?

    public init(method: String, path: String, depth: String? = nil, body: [UInt8] = [], ifMatch: String? = nil, ifNoneMatch: String? = nil) {
        self.method = method.uppercased()
        self.path = path
        self.depth = depth
        self.body = body
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }
}

/// An answer (an `Error` too, so that a check can return it as a `Result`'s failure).
public struct DAVResponse: Sendable, Equatable, Error {
    public var status: Int
    public var headers: [String: String]
    public var body: String

    public init(status: Int, headers: [String: String] = [:], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func xml(_ status: Int, _ body: String) -> DAVResponse {
        DAVResponse(status: status, headers: ["Content-Type": "application/xml; charset=utf-8"], body: body)
    }

    static func text(_ status: Int, _ sentence: String) -> DAVResponse {
        DAVResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: sentence + "\n")
    }

    static func precondition(_ status: Int, _ condition: DAVName, _ sentence: String) -> DAVResponse {
        .xml(status, DAVXML.error(condition, sentence: sentence))
    }
}

/// A PUT or DELETE that listd must decide.
public struct TaskWrite: Sendable {
    public enum Kind: Sendable {
        case put(ClientTask)
        case delete
    }
    public var kind: Kind
    public var list: ListID
    /// The resource's name in the collection.
    public var href: String
    /// The task now at `href`, if any.
    public var existing: TaskEntry?
    /// The task whose item the PUT's SUMMARY names, when it is another href's: the PUT is
    /// merged into it (a duplicate is never a second item).
    public var merging: TaskEntry?
    /// The revision the client's copy is of (its `If-Match`), when it said.
    public var basedOn: Revision?
}

public enum DAVAnswer: Sendable {
    case respond(DAVResponse)
    case write(TaskWrite)
}

/// Where things are.
public enum DAVPath: Sendable, Equatable {
    case root, principal, home
    case collection(ListID)
    case task(ListID, String)

    public static let base = "/caldav/"
    public static let principalPath = "/caldav/principal/"
    public static let homePath = "/caldav/lists/"

    public init?(_ path: String) {
        guard path.hasPrefix("/caldav") else { return nil }
        let parts = path.dropFirst("/caldav".count).split(separator: "/", omittingEmptySubsequences: true)
        switch parts.count {
        case 0: self = .root
        case 1 where parts[0] == "principal": self = .principal
        case 1 where parts[0] == "lists": self = .home
        case 2 where parts[0] == "lists": guard let id = ListID(parts[1]) else { return nil }; self = .collection(id)
        case 3 where parts[0] == "lists": guard let id = ListID(parts[1]) else { return nil }; self = .task(id, String(parts[2]))
        default: return nil
        }
    }

    public var path: String {
        switch self {
        case .root: Self.base
        case .principal: Self.principalPath
        case .home: Self.homePath
        case .collection(let id): "\(Self.homePath)\(id)/"
        case .task(let id, let name): "\(Self.homePath)\(id)/\(name)"
        }
    }
}

public struct DAVHandler: Sendable {
    public var book: TaskBook
    /// The principal's name: the app password's device.
    public var deviceName: String
    /// The largest calendar object taken (`max-resource-size`).
    public static let maximumResource = 64 << 10

    public init(book: TaskBook, deviceName: String) {
        self.book = book
        self.deviceName = deviceName
    }

    public func answer(_ request: DAVRequest) -> DAVAnswer {
        guard let path = DAVPath(request.path) else { return .respond(.text(404, "Nothing is here.")) }
        switch request.method {
        case "OPTIONS":
            return .respond(
                DAVResponse(status: 200, headers: ["DAV": "1, 3, calendar-access, extended-mkcol", "Allow": Self.allowed])
            )
        case "PROPFIND": return .respond(propfind(path, request))
        case "REPORT": return .respond(report(path, request))
        case "GET", "HEAD": return .respond(get(path, head: request.method == "HEAD"))
        case "PUT": return put(path, request)
        case "DELETE": return delete(path, request)
        case "PROPPATCH": return .respond(proppatch(path, request))
        case "MKCALENDAR", "MKCOL":
            return .respond(.precondition(403, DAVName(DAVNamespace.dav, "resource-must-be-null"), "A list is made with “listctl create”; it then appears here."))
        default:
            return .respond(DAVResponse(status: 405, headers: ["Allow": Self.allowed], body: "Not here.\n"))
        }
    }

    static let allowed = "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, REPORT"

    // MARK: Reading

    private func exists(_ path: DAVPath) -> Bool {
        switch path {
        case .root, .principal, .home: true
        case .collection(let id): book.lists[id] != nil
        case .task(let id, let name): book.lists[id]?.entry(href: name) != nil
        }
    }

    /// The properties asked for (`nil`: allprop).
    private static func requested(_ body: [UInt8]) -> Result<[DAVName]?, DAVResponse> {
        guard !body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return .success(nil) }
        let root: XMLElement
        do { root = try XMLReader.read(body) } catch { return .failure(.text(400, error.description)) }
        guard root.is(DAVNamespace.dav, "propfind") else { return .failure(.text(400, "A PROPFIND body is a DAV:propfind.")) }
        if let prop = root.child(DAVNamespace.dav, "prop") {
            return .success(prop.children.map { DAVName($0.namespace, $0.name) })
        }
        return .success(nil)
    }

    private func propfind(_ path: DAVPath, _ request: DAVRequest) -> DAVResponse {
        guard exists(path) else { return .text(404, "Nothing is here (a list deleted, or a task taken off).") }
        let names: [DAVName]?
        switch Self.requested(request.body) {
        case .success(let found): names = found
        case .failure(let response): return response
        }
        var paths = [path]
        if request.depth != "0" {
            switch path {
            case .root: paths += [.principal, .home]
            case .home: paths += book.lists.keys.sorted().map { DAVPath.collection($0) }
            case .collection(let id): paths += (book.lists[id]?.ordered ?? []).map { DAVPath.task(id, $0.href) }
            case .principal, .task: break
            }
        }
        let responses = paths.map { propertiesResponse($0, names: names) }
        return .xml(207, DAVXML.multistatus(responses))
    }

    private func propertiesResponse(_ path: DAVPath, names: [DAVName]?, entry known: TaskEntry? = nil) -> String {
        let asked = names ?? Self.allprop(path)
        var found: [(DAVName, String)] = []
        var missing: [DAVName] = []
        for name in asked {
            if let value = property(name, of: path, entry: known) { found.append((name, value)) } else { missing.append(name) }
        }
        return DAVXML.response(href: path.path, found: found, missing: missing)
    }

    private static func allprop(_ path: DAVPath) -> [DAVName] {
        var names = [DAVName(DAVNamespace.dav, "resourcetype"), DAVName(DAVNamespace.dav, "displayname")]
        switch path {
        case .collection:
            names += [
                DAVName(DAVNamespace.calendarServer, "getctag"), DAVName(DAVNamespace.caldav, "supported-calendar-component-set"),
            ]
        case .task:
            names = [DAVName(DAVNamespace.dav, "resourcetype"), DAVName(DAVNamespace.dav, "getetag"), DAVName(DAVNamespace.dav, "getcontenttype")]
        default: break
        }
        return names
    }

    private func href(_ path: String) -> String { "<D:href>\(DAVXML.escaped(DAVXML.href(path)))</D:href>" }

    /// A property's content (XML), or nil when `path` has none such.
    private func property(_ name: DAVName, of path: DAVPath, entry known: TaskEntry?) -> String? {
        let entry: TaskEntry? = {
            guard case .task(let id, let href) = path else { return nil }
            return known ?? book.lists[id]?.entry(href: href)
        }()
        let collection: (ListID, ListTasks)? = {
            guard case .collection(let id) = path, let tasks = book.lists[id] else { return nil }
            return (id, tasks)
        }()
        switch (name.namespace, name.name) {
        case (DAVNamespace.dav, "resourcetype"):
            switch path {
            case .root, .home: return "<D:collection/>"
            case .principal: return "<D:collection/><D:principal/>"
            case .collection: return "<D:collection/><C:calendar/>"
            case .task: return ""
            }
        case (DAVNamespace.dav, "displayname"):
            switch path {
            case .root: return "listd"
            case .principal: return DAVXML.escaped(deviceName)
            case .home: return "Lists"
            case .collection: return collection.map { DAVXML.escaped($0.1.name) }
            case .task: return nil
            }
        case (DAVNamespace.dav, "current-user-principal"), (DAVNamespace.dav, "principal-URL"), (DAVNamespace.dav, "owner"):
            return href(DAVPath.principalPath)
        case (DAVNamespace.caldav, "calendar-home-set"):
            if case .task = path { return nil }
            if case .collection = path { return nil }
            return href(DAVPath.homePath)
        case (DAVNamespace.caldav, "calendar-user-address-set"):
            guard path == .principal else { return nil }
            return href(DAVPath.principalPath)
        case (DAVNamespace.dav, "principal-collection-set"):
            return href(DAVPath.base)
        case (DAVNamespace.dav, "current-user-privilege-set"):
            let privileges: [String]
            switch path {
            case .collection: privileges = ["read", "write-content", "bind", "unbind", "read-current-user-privilege-set"]
            case .task: privileges = ["read", "write-content", "read-current-user-privilege-set"]
            default: privileges = ["read", "read-current-user-privilege-set"]
            }
            return privileges.map { "<D:privilege><D:\($0)/></D:privilege>" }.joined()
        case (DAVNamespace.dav, "supported-report-set"):
            switch path {
            case .collection, .home:
                return ["sync-collection", "C:calendar-query", "C:calendar-multiget"].map { report in
                    "<D:supported-report><D:report>" + (report.hasPrefix("C:") ? "<\(report)/>" : "<D:\(report)/>") + "</D:report></D:supported-report>"
                }.joined()
            default: return nil
            }
        case (DAVNamespace.caldav, "supported-calendar-component-set"):
            return collection == nil ? nil : "<C:comp name=\"VTODO\"/>"
        case (DAVNamespace.caldav, "supported-calendar-data"):
            return collection == nil ? nil : "<C:calendar-data content-type=\"text/calendar\" version=\"2.0\"/>"
        case (DAVNamespace.caldav, "max-resource-size"):
            return collection == nil ? nil : String(Self.maximumResource)
        case (DAVNamespace.calendarServer, "getctag"):
            return collection.map { DAVXML.escaped($0.1.stamp.text) }
        case (DAVNamespace.dav, "sync-token"):
            return collection.flatMap { book.syncToken($0.0) }.map(DAVXML.escaped)
        case (DAVNamespace.dav, "getetag"):
            return entry.map { DAVXML.escaped($0.etag) }
        case (DAVNamespace.dav, "getcontenttype"):
            return entry == nil ? nil : "text/calendar; charset=utf-8; component=VTODO"
        case (DAVNamespace.caldav, "calendar-data"):
            return entry.map { DAVXML.escaped($0.calendarData) }
        default:
            return nil
        }
    }

    private func get(_ path: DAVPath, head: Bool) -> DAVResponse {
        guard case .task(let id, let name) = path else {
            return exists(path) ? .text(200, "listd's lists, as CalDAV task lists: add this server to a tasks app.") : .text(404, "Nothing is here.")
        }
        guard let entry = book.lists[id]?.entry(href: name) else { return .text(404, "No such task (taken off the list?).") }
        return DAVResponse(
            status: 200, headers: ["Content-Type": "text/calendar; charset=utf-8; component=VTODO", "ETag": entry.etag],
            body: head ? "" : entry.calendarData
        )
    }

    private func proppatch(_ path: DAVPath, _ request: DAVRequest) -> DAVResponse {
        // A colour or an order a client sets is not kept: each property is refused, as
        // RFC 4918 9.2 says, and the client goes on.
        guard exists(path) else { return .text(404, "Nothing is here.") }
        guard let root = try? XMLReader.read(request.body) else { return .text(400, "A PROPPATCH body is a DAV:propertyupdate.") }
        let names = root.children.flatMap { $0.child(DAVNamespace.dav, "prop")?.children ?? [] }.map { DAVName($0.namespace, $0.name) }
        var out = "<D:response><D:href>\(DAVXML.escaped(DAVXML.href(path.path)))</D:href><D:propstat><D:prop>"
        for name in names { out += name.element("") }
        out += "</D:prop><D:status>HTTP/1.1 403 Forbidden</D:status></D:propstat></D:response>"
        return .xml(207, DAVXML.multistatus([out]))
    }

    // MARK: Reports

    private func report(_ path: DAVPath, _ request: DAVRequest) -> DAVResponse {
        let root: XMLElement
        do { root = try XMLReader.read(request.body) } catch { return .text(400, error.description) }
        let names = root.child(DAVNamespace.dav, "prop").map { $0.children.map { DAVName($0.namespace, $0.name) } }
            ?? [DAVName(DAVNamespace.dav, "getetag")]
        switch (root.namespace, root.name) {
        case (DAVNamespace.caldav, "calendar-multiget"):
            let responses = root.children(DAVNamespace.dav, "href").map { element -> String in
                let decoded = Self.percentDecoded(element.text.trimmingWhitespace())
                let local = Self.localPath(decoded)
                guard let target = DAVPath(local), exists(target) else { return DAVXML.response(href: local, status: "404 Not Found") }
                return propertiesResponse(target, names: names)
            }
            return .xml(207, DAVXML.multistatus(responses))
        case (DAVNamespace.caldav, "calendar-query"):
            guard case .collection(let id) = path, let tasks = book.lists[id] else {
                return .precondition(403, DAVName(DAVNamespace.dav, "supported-report"), "calendar-query is asked of a list's collection.")
            }
            let filter = root.child(DAVNamespace.caldav, "filter").flatMap(CalendarFilter.init(filter:))
            let responses = tasks.ordered.compactMap { entry -> String? in
                if let filter, !filter.matches(entry.calendar) { return nil }
                return propertiesResponse(.task(id, entry.href), names: names, entry: entry)
            }
            return .xml(207, DAVXML.multistatus(responses))
        case (DAVNamespace.dav, "sync-collection"):
            guard case .collection(let id) = path, let tasks = book.lists[id] else {
                return .precondition(403, DAVName(DAVNamespace.dav, "supported-report"), "sync-collection is asked of a list's collection.")
            }
            let token = root.child(DAVNamespace.dav, "sync-token")?.text.trimmingWhitespace() ?? ""
            let since: SyncStamp
            if token.isEmpty {
                since = SyncStamp(revision: -1)
            } else {
                guard let stamp = book.stamp(ofToken: token), tasks.changes(since: stamp) != nil else {
                    return .precondition(
                        403, DAVName(DAVNamespace.dav, "valid-sync-token"),
                        "This sync token is older than the history listd-web keeps, or not of this listd: sync again from the start."
                    )
                }
                since = stamp
            }
            let changes = since.revision < 0 ? (changed: tasks.ordered, gone: []) : tasks.changes(since: since)!
            var responses = changes.changed.map { propertiesResponse(.task(id, $0.href), names: names, entry: $0) }
            responses += changes.gone.map { DAVXML.response(href: DAVPath.task(id, $0).path, status: "404 Not Found") }
            return .xml(207, DAVXML.multistatus(responses, syncToken: book.syncToken(id)))
        default:
            return .precondition(403, DAVName(DAVNamespace.dav, "supported-report"), "listd-web answers calendar-query, calendar-multiget and sync-collection.")
        }
    }

    /// An href's path, without a scheme and host when it has them.
    static func localPath(_ href: String) -> String {
        let characters = Array(href)
        guard let colon = (0..<max(0, characters.count - 2)).first(where: { characters[$0] == ":" && characters[$0 + 1] == "/" && characters[$0 + 2] == "/" })
        else { return href }
        let rest = characters[(colon + 3)...]
        return rest.firstIndex(of: "/").map { String(characters[$0...]) } ?? "/"
    }

    /// `%XX` decoded (a malformed escape is left as it is).
    public static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Writing

    /// `If-Match`'s revision: nil when absent; `.failure` when it names no current ETag.
    private func matched(_ request: DAVRequest, _ existing: TaskEntry?) -> Result<Revision?, DAVResponse> {
        guard let ifMatch = request.ifMatch?.trimmingWhitespace(), !ifMatch.isEmpty else { return .success(nil) }
        let stale = DAVResponse.text(412, "This task changed since your copy (its ETag is not the one sent): sync, then edit again.")
        guard let existing else { return .failure(stale) }
        if ifMatch == "*" { return .success(existing.stamp.revision) }
        let tags = ifMatch.split(separator: ",").map { $0.trimmingWhitespace().replacingPrefix("W/", with: "") }
        guard tags.contains(existing.etag) else { return .failure(stale) }
        return .success(existing.stamp.revision)
    }

    private func put(_ path: DAVPath, _ request: DAVRequest) -> DAVAnswer {
        guard case .task(let id, let name) = path else {
            return .respond(.text(405, "A task is PUT into a list's collection: /caldav/lists/ID/NAME.ics."))
        }
        guard let tasks = book.lists[id] else { return .respond(.text(409, "No such list (deleted?): its collection is gone.")) }
        guard request.body.count <= Self.maximumResource else {
            return .respond(.precondition(403, DAVName(DAVNamespace.caldav, "max-resource-size"), "A task is at most \(Self.maximumResource) bytes."))
        }
        let existing = tasks.entry(href: name)
        if request.ifNoneMatch?.trimmingWhitespace() == "*", existing != nil {
            return .respond(.text(412, "A task is here already (If-None-Match: *)."))
        }
        let basedOn: Revision?
        switch matched(request, existing) {
        case .success(let revision): basedOn = revision
        case .failure(let response): return .respond(response)
        }
        let task: ClientTask
        do throws(TaskReadError) {
            let calendar: ICalendarComponent
            do throws(ICalendarError) {
                calendar = try ICalendar.read(String(decoding: request.body, as: UTF8.self))
            } catch {
                return .respond(.precondition(403, DAVName(DAVNamespace.caldav, "valid-calendar-data"), error.description))
            }
            task = try ClientTask(calendar: calendar)
        } catch {
            let condition = error == .notOneTask ? "supported-calendar-component" : error.precondition
            return .respond(.precondition(403, DAVName(DAVNamespace.caldav, condition), error.description))
        }
        if let other = tasks.ordered.first(where: { $0.uid == task.uid && $0.href != name }) {
            return .respond(
                .xml(
                    403,
                    DAVXML.error(
                        DAVName(DAVNamespace.caldav, "no-uid-conflict"),
                        sentence: "Another task here has this UID: \(DAVPath.task(id, other.href).path)."
                    )
                )
            )
        }
        var merging: TaskEntry?
        let key = ListText.key(task.summary)
        if let same = tasks.entries[key], same.href != name, existing == nil { merging = same }
        return .write(TaskWrite(kind: .put(task), list: id, href: name, existing: existing, merging: merging, basedOn: basedOn))
    }

    private func delete(_ path: DAVPath, _ request: DAVRequest) -> DAVAnswer {
        guard case .task(let id, let name) = path else {
            return .respond(.text(403, "A list is deleted with “listctl delete”, not from a tasks app."))
        }
        guard let existing = book.lists[id]?.entry(href: name) else { return .respond(.text(404, "No such task (taken off already?).")) }
        switch matched(request, existing) {
        case .success(let revision):
            return .write(TaskWrite(kind: .delete, list: id, href: name, existing: existing, merging: nil, basedOn: revision))
        case .failure(let response):
            return .respond(response)
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }.reversed())
    }

    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : String(self)
    }
}
