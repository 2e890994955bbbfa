// Issue 62: docs/clients.md's two clients run as written — the Python one on the standard library,
// the Swift one as a package of its own that depends on ListClient by path, its view model on the
// main actor — against a real listd, each printing what the page shows; and the Swift package's
// clean build fetches and compiles what the client needs only, nothing of the daemon's.
import Foundation
import Testing

/// A fenced block of a page, by its info string (```python fridge.py).
func fencedBlock(_ info: String, in page: String) throws -> String {
    var lines: [Substring] = []
    var inside = false
    for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
        if inside {
            if line == "```" { return lines.joined(separator: "\n") + "\n" }
            lines.append(line)
        } else if line == "```" + info {
            inside = true
        }
    }
    throw TestFailure("no ```\(info) block")
}

@Suite(.offThePool) struct ClientExamplesTests {
    static let page = DocExamplesTests.root + "/docs/clients.md"

    @Test func thePythonClientRunsAsWritten() throws {
        let page = try String(contentsOfFile: Self.page, encoding: .utf8)
        let daemon = try Daemon.start()
        let script = daemon.sandbox.path + "/fridge.py"
        try fencedBlock("python fridge.py", in: page).write(toFile: script, atomically: true, encoding: .utf8)
        let run = try ChildProcess.run("/usr/bin/env", ["python3", script], environment: ["LISTD_SOCKET": daemon.sandbox.socket, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try fencedBlock("text fridge.py", in: page)))
    }

    /// The modules a clean build of a package that uses ListClient compiles: SwiftNIO's core,
    /// swift-collections' hash trees and listd's client modules. No hummingbird, postgres-nio,
    /// swift-crypto or TLS: a client does not carry the daemon's weight.
    static let clientModules: Set<String> = [
        "Fridge", "ListClient", "ListClientCore", "ListModel", "ListRPC", "ListRPCTransport", "ErrnoText",
        "NIOCore", "NIOPosix", "NIOConcurrencyHelpers", "_NIOBase64", "_NIODataStructures", "Atomics",
        "HashTreeCollections", "InternalCollectionsUtilities", "DequeModule", "ContainersPreview",
    ]

    /// The packages a clean build of it fetches: SwiftNIO and swift-collections, and what SwiftNIO
    /// needs (the daemon's 25 more only with the trait on).
    static let clientPackages: Set<String> = ["swift-nio", "swift-collections", "swift-atomics", "swift-system"]

    @Test func theSwiftClientIsAPackageOfItsOwnThatRunsAsWritten() throws {
        let page = try String(contentsOfFile: Self.page, encoding: .utf8)
        let work = try Sandbox()
        let package = work.path + "/Fridge"
        try FileManager.default.createDirectory(atPath: package + "/Sources/Fridge", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work.path + "/listd", withDestinationPath: DocExamplesTests.root)
        try fencedBlock("swift Package.swift", in: page).write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        try fencedBlock("swift Sources/Fridge/main.swift", in: page)
            .write(toFile: package + "/Sources/Fridge/main.swift", atomically: true, encoding: .utf8)
        // A clean build of SwiftNIO and the client's modules, beside the other tests on two
        // CPUs: it took over 120 s (the default limit) in a clean clone's make test.
        let build = try ChildProcess.run(
            "/usr/bin/env",
            ["swift", "build", "--package-path", package, "--scratch-path", package + "/.build"],
            environment: ProcessInfo.processInfo.environment,
            limit: 600
        )
        try #require(build.status == 0, "\(build.stdout)\(build.stderr)")
        let modules = Set(
            try FileManager.default.contentsOfDirectory(atPath: package + "/.build/debug/Modules")
                .filter { $0.hasSuffix(".swiftmodule") }
                .map { String($0.dropLast(".swiftmodule".count)) }
        )
        #expect(modules == Self.clientModules, "compiled beyond the client's: \(modules.subtracting(Self.clientModules).sorted()); not: \(Self.clientModules.subtracting(modules).sorted())")
        for daemonModule in ["Hummingbird", "PostgresNIO", "Crypto", "NIOSSL", "ListDaemon", "ServiceLifecycle"] {
            #expect(!modules.contains(daemonModule))
        }
        // With listd's `Service` trait off, SwiftPM fetches only what the client needs.
        let fetched = Set(try FileManager.default.contentsOfDirectory(atPath: package + "/.build/checkouts"))
        #expect(fetched == Self.clientPackages, "fetched: \(fetched.sorted())")

        let daemon = try Daemon.start()
        let run = try ChildProcess.run(package + "/.build/debug/Fridge", [daemon.sandbox.socket])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try fencedBlock("text Sources/Fridge/main.swift", in: page)))
    }
}
