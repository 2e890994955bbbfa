// The PostgreSQL server a household's listd instances share their lists through, read from a
// connection URL in libpq's form. Pure: parsed and described without a connection, so every
// form is unit-tested.
import ListCore

/// Where the shared lists are: `postgresql://user:password@host:port/database?sslmode=…`, or a
/// Unix socket (`?host=/run/postgresql`, or an empty host: libpq's default directory).
package struct ShareServer: Sendable, Hashable {
    package enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        /// The socket file itself: `DIRECTORY/.s.PGSQL.PORT`, as libpq names it.
        case unixSocket(path: String)
    }

    /// libpq's `sslmode`, reduced to what listd does with it.
    package enum TLSMode: String, Sendable, Hashable {
        /// `disable` (and `allow`): no TLS.
        case disable
        /// `prefer` (libpq's default): TLS when the server offers it.
        case prefer
        /// `require`, `verify-ca`, `verify-full`: TLS or no connection (the certificate is checked
        /// against the system's trust store).
        case require
    }

    package var endpoint: Endpoint
    package var user: String
    package var password: String?
    package var database: String
    package var tls: TLSMode

    /// libpq's default socket directory on Debian.
    package static let defaultSocketDirectory = "/var/run/postgresql"

    /// Why a URL cannot be used, in words.
    package struct URLError: Error, Hashable, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Parses `url` (libpq's URI form, `postgresql://` or `postgres://`). `defaultUser` is who
    /// listd runs as, libpq's default user and database.
    package init(url: String, defaultUser: String) throws(URLError) {
        func fail(_ why: String) -> URLError { URLError(description: "--share: \(why)") }
        var rest = Substring(url)
        guard let scheme = ["postgresql://", "postgres://"].first(where: { rest.hasPrefix($0) }) else {
            throw fail(
                "“\(Self.withoutPassword(url))” is not a PostgreSQL URL; write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
            )
        }
        rest = rest.dropFirst(scheme.count)
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = try Self.decoded(credentials[..<colon], fail)
                password = try Self.decoded(credentials[credentials.index(after: colon)...], fail)
            } else {
                user = try Self.decoded(credentials, fail)
            }
        }
        var host: String?
        var port: Int?
        if rest.hasPrefix("[") {
            // An IPv6 address: [::1]:5432.
            guard let close = rest.firstIndex(of: "]") else { throw fail("an IPv6 host must end with “]”") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
            if rest.hasPrefix(":") { port = try Self.port(rest.dropFirst(), fail) } else if !rest.isEmpty {
                throw fail("unexpected “\(rest)” after the host")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = try Self.decoded(rest[..<colon], fail)
            port = try Self.port(rest[rest.index(after: colon)...], fail)
        } else if !rest.isEmpty {
            host = try Self.decoded(rest, fail)
        }
        var database = path.isEmpty ? nil : try Self.decoded(path, fail)
        var tls = TLSMode.prefer
        for pair in query.split(separator: "&") where !pair.isEmpty {
            guard let equals = pair.firstIndex(of: "=") else { throw fail("“\(pair)” in the URL needs a value") }
            let key = String(pair[..<equals])
            let value = try Self.decoded(pair[pair.index(after: equals)...], fail)
            switch key {
            case "host": host = value
            case "port": port = try Self.port(Substring(value), fail)
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            case "sslmode":
                switch value {
                case "disable", "allow": tls = .disable
                case "prefer": tls = .prefer
                case "require", "verify-ca", "verify-full": tls = .require
                default:
                    throw fail("sslmode “\(value)” is not one of disable, allow, prefer, require, verify-ca, verify-full")
                }
            case "connect_timeout", "application_name", "target_session_attrs":
                break  // understood by libpq, no use to listd
            default:
                throw fail("listd does not know the URL parameter “\(key)”")
            }
        }
        let portNumber = port ?? 5432
        if let host, !host.isEmpty, !host.hasPrefix("/") {
            endpoint = .tcp(host: host, port: portNumber)
        } else {
            let directory = host.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultSocketDirectory
            endpoint = .unixSocket(path: "\(directory)/.s.PGSQL.\(portNumber)")
            if tls == .prefer { tls = .disable }  // as libpq: no TLS over a Unix socket
        }
        self.user = user.flatMap { $0.isEmpty ? nil : $0 } ?? defaultUser
        self.password = password
        self.database = database.flatMap { $0.isEmpty ? nil : $0 } ?? self.user
        self.tls = tls
    }

    /// `listd@kitchen:5432/lists` or `listd@/run/postgresql/.s.PGSQL.5432/lists`: the server as
    /// logs and `hello` name it, never with the password.
    package var description: String {
        switch endpoint {
        case .tcp(let host, let port):
            let shown = host.contains(":") ? "[\(host)]" : host
            return "\(user)@\(shown):\(port)/\(database)"
        case .unixSocket(let path):
            return "\(user)@\(path)/\(database)"
        }
    }

    /// `url` with any password replaced by `***`, for an error message.
    static func withoutPassword(_ url: String) -> String {
        var text = url
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") {
            let credentials = text[scheme.upperBound..<at]
            if let colon = credentials.firstIndex(of: ":") {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        if let range = text.range(of: "password=") {
            let end = text[range.upperBound...].firstIndex(of: "&") ?? text.endIndex
            text.replaceSubrange(range.upperBound..<end, with: "***")
        }
        return text
    }

    private static func port(_ text: Substring, _ fail: (String) -> URLError) throws(URLError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw fail("“\(text)” is not a port (1 to 65535)")
        }
        return port
    }

    /// Percent-decoding, as URLs have it (`%2F` is `/`, `%40` is `@`).
    private static func decoded(_ text: Substring, _ fail: (String) -> URLError) throws(URLError) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            let digits = utf8.prefix(2)
            guard digits.count == 2, let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) else {
                throw fail("“\(text)” has a “%” that is not followed by two hex digits")
            }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
