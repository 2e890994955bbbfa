// The XML listd-web answers with: a multistatus of responses, each with its properties found
// (200) and not (404), and the error bodies of failed preconditions — written with the usual
// prefixes for DAV, CalDAV, CalendarServer and Apple, and any other namespace declared inline.

/// The namespaces CalDAV speaks.
public enum DAVNamespace {
    public static let dav = "DAV:"
    public static let caldav = "urn:ietf:params:xml:ns:caldav"
    public static let calendarServer = "http://calendarserver.org/ns/"
    public static let apple = "http://apple.com/ns/ical/"
    /// listd's own (a denial's reason).
    public static let listd = "https://listd.invalid/ns/caldav"

    static let prefixes: [String: String] = [dav: "D", caldav: "C", calendarServer: "CS", apple: "A", listd: "L"]
    static let declarations =
        #"xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:A="http://apple.com/ns/ical/" xmlns:L="https://listd.invalid/ns/caldav""#
}

/// A property's name: its namespace and local name.
public struct DAVName: Sendable, Hashable {
    public var namespace: String
    public var name: String
    public init(_ namespace: String, _ name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// `<D:getetag>…</D:getetag>`, or an empty element when `content` is empty.
    func element(_ content: String) -> String {
        if let prefix = DAVNamespace.prefixes[namespace] {
            return content.isEmpty ? "<\(prefix):\(name)/>" : "<\(prefix):\(name)>\(content)</\(prefix):\(name)>"
        }
        let open = "X:\(name) xmlns:X=\"\(DAVXML.escaped(namespace))\""
        return content.isEmpty ? "<\(open)/>" : "<\(open)>\(content)</X:\(name)>"
    }
}

public enum DAVXML {
    /// Text or an attribute value, escaped.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A path as an href (each segment percent-encoded where it must be).
    public static func href(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            let safe =
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || "/-._~@:+=,".utf8.contains(byte)
            if safe {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// One `D:response`: `found` are the properties with their content (XML, escaped already),
    /// `missing` those the resource does not have.
    public static func response(href: String, found: [(DAVName, String)], missing: [DAVName]) -> String {
        var out = "<D:response><D:href>\(escaped(Self.href(href)))</D:href>"
        if !found.isEmpty {
            out += "<D:propstat><D:prop>"
            for (name, content) in found { out += name.element(content) }
            out += "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
        }
        if !missing.isEmpty {
            out += "<D:propstat><D:prop>"
            for name in missing { out += name.element("") }
            out += "</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>"
        }
        return out + "</D:response>"
    }

    /// A `D:response` for an href with a status alone (a task gone, in a sync).
    public static func response(href: String, status: String) -> String {
        "<D:response><D:href>\(escaped(Self.href(href)))</D:href><D:status>HTTP/1.1 \(status)</D:status></D:response>"
    }

    public static func multistatus(_ responses: [String], syncToken: String? = nil) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus \(DAVNamespace.declarations)>"
        for response in responses { out += response }
        if let syncToken { out += "<D:sync-token>\(escaped(syncToken))</D:sync-token>" }
        return out + "</D:multistatus>\n"
    }

    /// An error body: the precondition failed, and a sentence for people.
    public static func error(_ condition: DAVName, sentence: String, reason: String? = nil) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:error \(DAVNamespace.declarations)>"
        out += condition.element("")
        if let reason { out += "<L:reason>\(escaped(reason))</L:reason>" }
        out += "<D:responsedescription>\(escaped(sentence))</D:responsedescription>"
        return out + "</D:error>\n"
    }
}
