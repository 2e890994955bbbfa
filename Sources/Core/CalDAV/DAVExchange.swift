// A CalDAV request as the handler reads it and what it answers (`DAVRequest`, `DAVResponse`,
// `DAVAnswer`: a response, or a `TaskWrite` for the shell to send to listd), and the paths the
// server has (`DAVPath`). No I/O here.
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
    /// Ask again once the book has followed listd to this revision (a sync token ahead of it).
    case after(Revision)
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
