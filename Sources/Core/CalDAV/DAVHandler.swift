// What a CalDAV request asks and the answer, decided from the task book alone: the method's
// dispatch here; discovery and properties (root → principal → calendar-home-set → one collection
// per list: PROPFIND, GET, PROPPATCH) in DAVHandler+Properties, the three REPORTs
// (calendar-query, calendar-multiget, sync-collection) in DAVHandler+Reports, and a PUT or DELETE
// that passes its preconditions, a `TaskWrite` for the shell, in DAVHandler+Writes. No I/O here.
import ListModel

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
        case "REPORT": return report(path, request)
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
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }.reversed())
    }

    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : String(self)
    }
}
