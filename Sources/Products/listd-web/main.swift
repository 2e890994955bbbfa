// listd-web: the shopping lists on a phone. A client of listd (it keeps no lists), serving one
// page, paired devices only. `listctl web pair NAME` makes a device's one-time link.
import ArgumentParser
import Glibc
import ListWeb
import LoopExecutors
import ListdLocations
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

struct ListdWeb: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listd-web",
        abstract: "Serve the shopping lists to paired phones: a page that works without signal.",
        discussion: """
            Pair a phone with “listctl web pair NAME” and open the link it prints on the phone. \
            Offline use, and any address but this machine's, need HTTPS (--tls-cert/--tls-key, \
            or a reverse proxy and --url): see web.md, which also lists every limit \
            (/usr/share/doc/listd/web.md with the package, docs/web.md in the source).
            """
    )

    @Option(help: ArgumentHelp("listd's socket (default: as listctl finds it: $LISTD_SOCKET, else your own listd's, else the household's /run/listd/listd.sock when you may use it).", valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("Where to listen. Only this machine by default: a household's network is not a trust boundary. Another address needs HTTPS: --tls-cert/--tls-key, or --url https://… with a reverse proxy in front.", valueName: "address:port"))
    var listen = "127.0.0.1:8733"

    @Option(help: ArgumentHelp("The address phones open, when not the one listened on (behind a reverse proxy): pairing links start with it, and it is the only origin the page is taken from.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("A PEM certificate (chain) to serve HTTPS with.", valueName: "path"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The certificate's PEM private key.", valueName: "path"))
    var tlsKey: String?

    @Option(help: ArgumentHelp("The paired devices' file (default: $STATE_DIRECTORY/devices.json, else $XDG_STATE_HOME/listd-web/devices.json).", valueName: "path"))
    var devices: String?

    @Option(help: ArgumentHelp("The control socket listctl web uses (default: $XDG_RUNTIME_DIR/listd-web/control.sock).", valueName: "path"))
    var controlSocket: String?

    @Option(
        help: ArgumentHelp(
            "The longest line from listd passed to a page (a list, a history; default 64 MiB): a longer reply is refused for its request alone, a longer notification restarts the page.",
            valueName: "bytes"
        )
    )
    var maxRelayedLineBytes: Int = WebLimits().relayedLine

    @Option(help: ArgumentHelp("Removed tasks remembered per list for tasks apps' syncs (default 10000): a sync token older than the oldest is refused, and the app syncs from the start.", valueName: "count"))
    var caldavTombstones: Int = 10_000

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: Logger.Level = .info

    func validate() throws {
        guard Self.split(listen) != nil else {
            throw ValidationError("--listen takes ADDRESS:PORT (127.0.0.1:8733, 0.0.0.0:8733, [::]:8733), not “\(listen)”.")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together.")
        }
        guard (4_096...1 << 30).contains(maxRelayedLineBytes) else {
            throw ValidationError("--max-relayed-line-bytes must be between 4096 and \(1 << 30).")
        }
        if let url, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
            throw ValidationError("--url takes an http:// or https:// address, not “\(url)”.")
        }
        // Over plain HTTP a pairing's token crosses the network in clear: beyond this machine,
        // HTTPS only.
        let host = Self.split(listen)!.host
        if tlsCert == nil, !ServedNames.isLoopback(host), url?.hasPrefix("https://") != true {
            throw ValidationError(
                """
                listd-web serves plain HTTP on this machine only, not on \(listen): a phone's pairing \
                would cross the network in clear. Give it a certificate (--tls-cert and --tls-key), \
                or put an HTTPS reverse proxy in front and name its address with --url https://…; \
                see web.md, "Phones on the household's network" (/usr/share/doc/listd/web.md with \
                the package, docs/web.md in the source).
                """)
        }
    }

    static func split(_ listen: String) -> (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // Anyone who reaches the port can make listd-web log: a flood is let through as
        // FloodGatedLogHandler says, and summarised; pairing lines always pass.
        var logger = Logger(label: "listd-web") { label in
            FloodGatedLogHandler(wrapping: StreamLogHandler.standardError(label: label))
        }
        logger.logLevel = logLevel
        let (host, port) = Self.split(listen)!
        var settings = WebSettings(
            listdSocket: ListdPaths.clientSocket(option: socket, environment: environment),
            host: host,
            port: port,
            publicAddress: url.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 },
            certificatePath: tlsCert,
            privateKeyPath: tlsKey,
            deviceFile: devices ?? ListdPaths.defaultWebDeviceFile(environment: environment),
            controlSocket: ListdPaths.webControlSocket(option: controlSocket, environment: environment)
        )
        settings.limits.relayedLine = maxRelayedLineBytes
        settings.tombstoneLimit = max(1, caldavTombstones)
        settings.listdSocketDirectory = ListdPaths.privateRuntimeDirectory(ofSocket: settings.listdSocket, environment: environment)
        settings.controlSocketDirectory = ListdPaths.privateRuntimeDirectory(ofSocket: settings.controlSocket, environment: environment)
        do {
            // Before anything is served: a control socket in a directory someone else made would
            // hand them `listctl web pair`'s link and code.
            if let directory = settings.controlSocketDirectory { try RuntimeDirectory.make(directory) }
            let services = try ListWebServer.services(settings, logger: logger) { address, port in
                // One line on stdout for whoever started listd-web (a test, a person); the port
                // too when the address does not say it (behind a proxy).
                let shown = address.hasSuffix(":\(port)") ? address : "\(address) (port \(port))"
                let line = Array("listd-web: serving \(shown)\n".utf8)
                _ = line.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            }
            let group = ServiceGroup(services: services, gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
            let stopLogger = logger
            StopSignals.wait { signal in
                stopLogger.notice("stopping", metadata: ["signal": "\(signal)"])
                Task { await group.triggerGracefulShutdown() }
            }
            try await group.run()
        } catch let error as WebError {
            logger.critical("\(error)")
            throw ExitCode.failure
        } catch let error as UnsafeRuntimeDirectory {
            logger.critical("\(error)")
            throw ExitCode.failure
        } catch {
            logger.critical("listd-web stopped: \(error)")
            throw ExitCode.failure
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

// Swift's tasks run on NIO's event loops (`LoopExecutorFactory`), and the main thread only waits:
// no libdispatch worker pool, whose monitor aborts the process when it cannot open a file (an
// async main would hand the main thread to libdispatch, and its signal sources would start it).
useLoopExecutors()
StopSignals.block()
do {
    var command = try ListdWeb.parseAsRoot()
    if let web = command as? ListdWeb {
        let done = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        // Detached: top-level code is the main actor's, whose queue the waiting main thread
        // never drains.
        Task.detached {
            do {
                try await web.run()
                done.succeed()
            } catch {
                done.fail(error)
            }
        }
        try done.futureResult.wait()
    } else {
        try command.run()  // --help, --version
    }
} catch {
    ListdWeb.exit(withError: error)
}
