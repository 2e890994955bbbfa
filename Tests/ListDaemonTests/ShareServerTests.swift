import Testing

@testable import ListCore
@testable import ListDaemon

/// `--share URL`, read as libpq reads its URIs.
@Suite struct ShareServerTests {
    @Test func aTCPURLWithEverything() throws {
        let server = try ShareServer(url: "postgresql://ann:p%40ss@kitchen.local:6543/lists?sslmode=require", defaultUser: "root")
        #expect(server.endpoint == .tcp(host: "kitchen.local", port: 6543))
        #expect(server.user == "ann")
        #expect(server.password == "p@ss", "percent-decoded")
        #expect(server.database == "lists")
        #expect(server.tls == .require)
        #expect(server.description == "ann@kitchen.local:6543/lists", "never the password")
    }

    @Test func defaultsAreLibpqs() throws {
        let server = try ShareServer(url: "postgres://db.home", defaultUser: "ann")
        #expect(server.endpoint == .tcp(host: "db.home", port: 5432))
        #expect(server.user == "ann")
        #expect(server.password == nil)
        #expect(server.database == "ann", "the database is named after the user")
        #expect(server.tls == .prefer)
    }

    @Test func aUnixSocketByHostParameterOrByDefault() throws {
        let byParameter = try ShareServer(url: "postgresql://listd:secret@/lists?host=/run/postgresql", defaultUser: "root")
        #expect(byParameter.endpoint == .unixSocket(path: "/run/postgresql/.s.PGSQL.5432"))
        #expect(byParameter.tls == .disable, "no TLS over a Unix socket")
        #expect(byParameter.description == "listd@/run/postgresql/.s.PGSQL.5432/lists")
        let encoded = try ShareServer(url: "postgresql://%2Ftmp%2Fpg:5433/lists", defaultUser: "root")
        #expect(encoded.endpoint == .unixSocket(path: "/tmp/pg/.s.PGSQL.5433"))
        let byDefault = try ShareServer(url: "postgresql:///lists", defaultUser: "root")
        #expect(byDefault.endpoint == .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5432"))
        #expect(byDefault.user == "root")
    }

    @Test func anIPv6HostAndParametersThatOverride() throws {
        let server = try ShareServer(
            url: "postgresql://[::1]:5000/x?user=bob&password=pw&dbname=lists&port=5001&application_name=listd",
            defaultUser: "root"
        )
        #expect(server.endpoint == .tcp(host: "::1", port: 5001))
        #expect(server.user == "bob")
        #expect(server.password == "pw")
        #expect(server.database == "lists")
        #expect(server.description == "bob@[::1]:5001/lists")
    }

    @Test(arguments: [
        ("mysql://localhost/lists", "is not a PostgreSQL URL"),
        ("postgresql://host:99999/lists", "“99999” is not a port"),
        ("postgresql://host/lists?sslmode=sometimes", "sslmode “sometimes”"),
        ("postgresql://host/lists?colour=blue", "does not know the URL parameter “colour”"),
        ("postgresql://host/li%2", "not followed by two hex digits"),
        ("postgresql://[::1/lists", "must end with “]”"),
    ])
    func aURLListdCannotUseIsSaidInWords(url: String, says: String) {
        #expect {
            try ShareServer(url: url, defaultUser: "root")
        } throws: { error in
            "\(error)".hasPrefix("--share: ") && "\(error)".contains(says)
        }
    }

    @Test func aPasswordIsNeverRepeatedInAnError() {
        #expect(ShareServer.withoutPassword("mysql://ann:hunter2@host/db") == "mysql://ann:***@host/db")
        #expect(ShareServer.withoutPassword("pg://host/db?password=hunter2&x=1") == "pg://host/db?password=***&x=1")
        #expect {
            try ShareServer(url: "mysql://ann:hunter2@host/db", defaultUser: "root")
        } throws: { error in
            !"\(error)".contains("hunter2")
        }
    }
}
