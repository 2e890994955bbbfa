// A CalDAV handler's reads of the collections and tasks: PROPFIND (named properties, allprop, a
// 404 propstat for the rest), GET and HEAD, and PROPPATCH (answered 403 per property).
import ListModel

extension DAVHandler {
    func exists(_ path: DAVPath) -> Bool {
        switch path {
        case .root, .principal, .home: true
        case .collection(let id): book.lists[id] != nil
        case .task(let id, let name): book.lists[id]?.entry(href: name) != nil
        }
    }

    /// The properties asked for (`nil`: allprop).
    static func requested(_ body: [UInt8]) -> Result<[DAVName]?, DAVResponse> {
        guard !body.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return .success(nil) }
        let root: XMLElement
        do { root = try XMLReader.read(body) } catch { return .failure(.text(400, error.description)) }
        guard root.is(DAVNamespace.dav, "propfind") else { return .failure(.text(400, "A PROPFIND body is a DAV:propfind.")) }
        if let prop = root.child(DAVNamespace.dav, "prop") {
            return .success(prop.children.map { DAVName($0.namespace, $0.name) })
        }
        return .success(nil)
    }

    func propfind(_ path: DAVPath, _ request: DAVRequest) -> DAVResponse {
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

    func propertiesResponse(_ path: DAVPath, names: [DAVName]?, entry known: TaskEntry? = nil) -> String {
        let asked = names ?? Self.allprop(path)
        var found: [(DAVName, String)] = []
        var missing: [DAVName] = []
        for name in asked {
            if let value = property(name, of: path, entry: known) { found.append((name, value)) } else { missing.append(name) }
        }
        return DAVXML.response(href: path.path, found: found, missing: missing)
    }

    static func allprop(_ path: DAVPath) -> [DAVName] {
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

    func href(_ path: String) -> String { "<D:href>\(DAVXML.escaped(DAVXML.href(path)))</D:href>" }

    /// A property's content (XML), or nil when `path` has none such.
    func property(_ name: DAVName, of path: DAVPath, entry known: TaskEntry?) -> String? {
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

    func get(_ path: DAVPath, head: Bool) -> DAVResponse {
        guard case .task(let id, let name) = path else {
            return exists(path) ? .text(200, "listd's lists, as CalDAV task lists: add this server to a tasks app.") : .text(404, "Nothing is here.")
        }
        guard let entry = book.lists[id]?.entry(href: name) else { return .text(404, "No such task (taken off the list?).") }
        return DAVResponse(
            status: 200, headers: ["Content-Type": "text/calendar; charset=utf-8; component=VTODO", "ETag": entry.etag],
            body: head ? "" : entry.calendarData
        )
    }

    func proppatch(_ path: DAVPath, _ request: DAVRequest) -> DAVResponse {
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
}
