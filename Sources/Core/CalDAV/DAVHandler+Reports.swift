// A CalDAV handler's REPORTs: calendar-query (with CalendarFilter), calendar-multiget and
// sync-collection (tokens from the task book), and reading the hrefs they name.
import ListModel

extension DAVHandler {
    func report(_ path: DAVPath, _ request: DAVRequest) -> DAVAnswer {
        let root: XMLElement
        do { root = try XMLReader.read(request.body) } catch { return .respond(.text(400, error.description)) }
        if let revision = syncTokenAhead(path, root) { return .after(revision) }
        return .respond(report(path, root))
    }

    /// The revision a sync-collection's token names when the book has not followed listd that
    /// far: listd-web restarted from a book saved before it gave the token. The book is made the
    /// same again as it follows listd (docs/caldav.md), so the token is answered once it has —
    /// not refused, which would make the app fetch every task again.
    func syncTokenAhead(_ path: DAVPath, _ root: XMLElement) -> Revision? {
        guard (root.namespace, root.name) == (DAVNamespace.dav, "sync-collection"), case .collection(let id) = path,
            let tasks = book.lists[id], let token = root.child(DAVNamespace.dav, "sync-token")?.text.trimmingWhitespace(),
            let stamp = book.stamp(ofToken: token), stamp > tasks.stamp, stamp.revision > book.current.revision
        else { return nil }
        return stamp.revision
    }

    private func report(_ path: DAVPath, _ root: XMLElement) -> DAVResponse {
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
}
