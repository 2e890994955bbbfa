import ArgumentParser
import Foundation
import Glibc
import ListCore
import ListDaemon
import ListRPC
import ListRPCTransport
import ListdLocations
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import Systemd

struct Listd: AsyncParsableCommand {
    static let version = ListdVersion.current

    static let configuration = CommandConfiguration(
        commandName: "listd",
        abstract:
            "The shopping-list daemon: owns the lists, confirms or denies every edit, tells subscribers every change.",
        discussion: """
            listd serves newline-delimited JSON-RPC 2.0 on a Unix-domain socket and keeps the lists \
            in a Markdown file. See docs/protocol.md and docs/file-format.md.
            """,
        version: version
    )

    @Option(
        help: ArgumentHelp(
            "Unix socket to serve (default: $LISTD_SOCKET, else $XDG_RUNTIME_DIR/listd/listd.sock; without it, /run/listd/listd.sock for root, /tmp/listd-UID/listd.sock for others).",
            valueName: "path"
        )
    )
    var socket: String?

    @Option(
        help: ArgumentHelp(
            "List file (default: $LISTD_FILE, else $XDG_DATA_HOME/listd/lists.md; without it, /var/lib/listd/lists.md for root, ~/.local/share/listd/lists.md for others).",
            valueName: "path"
        )
    )
    var file: String?

    @Option(
        // A negative number is this option's value (to be refused by `validate`), not an option.
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long the list file must be left alone after a save before listd reads it.",
            valueName: "milliseconds"
        )
    )
    var settleMs: Int = 30

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How many of the last changes a client can always resume from (subscribe with since), kept across restarts.",
            valueName: "changes"
        )
    )
    var history: Int = 10_000

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Longest request line taken; a longer one gets an error and the connection is closed.",
            valueName: "bytes"
        )
    )
    var maxLineBytes: Int = LineFraming.defaultMaximumLineLength

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Connections served at once; one more gets an error line and is closed.", valueName: "count")
    )
    var maxConnections: Int = RPCServer.Configuration.defaultMaximumConnections

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Connections one user other than listd's own and root may hold at once (default: a quarter of --max-connections); the last sixteenth of --max-connections is kept for listd's own user and root.",
            valueName: "count"
        )
    )
    var maxConnectionsPerUser: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "A connection that never said hello, subscribed or became a delegate is closed after sending nothing for this long.",
            valueName: "ms"
        )
    )
    var idleMs: Int = 60_000

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Bytes that may wait for a client that does not read; beyond that it is disconnected.",
            valueName: "bytes"
        )
    )
    var maxOutboundBytes: Int = RPCServer.Configuration.defaultMaximumOutboundBytes

    @Option(
        parsing: .unconditional,help: ArgumentHelp("Deepest nesting of JSON arrays and objects in a request.", valueName: "levels"))
    var maxJsonDepth: Int = RPCLine.Limits.default.maximumDepth

    @Option(
        parsing: .unconditional,help: ArgumentHelp("Most messages in one JSON-RPC batch.", valueName: "count"))
    var maxBatch: Int = RPCLine.Limits.default.maximumBatch

    @Option(
        help: ArgumentHelp(
            "Also serve members of this group (the socket is then 0660 with this group, its directory 0750): for the system service.",
            valueName: "group"
        )
    )
    var allowGroup: String?

    enum LogTarget: String, ExpressibleByArgument, CaseIterable {
        case auto, journal, stderr
    }

    @Option(
        help:
            "Where to log: journal (native, with structured fields), stderr (readable lines), or auto (journal when systemd connected stderr to it)."
    )
    var log: LogTarget = .auto

    @Option(help: "Least severe log level written: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(
        help: ArgumentHelp(
            "Share the lists with every listd on this PostgreSQL database (default: $LISTD_SHARE): postgresql://USER:PASSWORD@HOST:PORT/DATABASE, ?host=/run/postgresql for a Unix socket, ?sslmode=require for TLS.",
            valueName: "url"
        )
    )
    var share: String?

    func validate() throws {
        if settleMs < 0 || settleMs > 10_000 {
            throw ValidationError("--settle-ms must be between 0 and 10000.")
        }
        for (name, value, range) in [
            ("--max-line-bytes", maxLineBytes, 1_024...1 << 30), ("--max-connections", maxConnections, 1...1_000_000),
            ("--max-outbound-bytes", maxOutboundBytes, 65_536...1 << 34),
            ("--max-json-depth", maxJsonDepth, 4...10_000),
            ("--max-batch", maxBatch, 1...1_000_000),
        ] where !range.contains(value) {
            throw ValidationError("\(name) must be between \(range.lowerBound) and \(range.upperBound).")
        }
        if let allowGroup, AccessPolicy.Group(named: allowGroup) == nil {
            throw ValidationError("--allow-group: there is no group “\(allowGroup)”.")
        }
        if history < 1 || history > 10_000_000 {
            throw ValidationError("--history must be between 1 and 10000000.")
        }
        if Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError(
                "“\(logLevel)” is not a log level; use trace, debug, info, notice, warning, error or critical."
            )
        }
    }

    /// Who listd runs as: libpq's default user (and database) for `--share`.
    static var userName: String {
        getpwuid(geteuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "listd"
    }

    func run() async throws {
        try await serve()
    }

    /// The daemon itself (`run` by another name: main.swift calls it, and a call to `run` there
    /// would pick ParsableCommand's synchronous one, which prints the help).
    func serve() async throws {
        // A closed stderr (or any pipe) must fail a write, not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        let environment = ProcessInfo.processInfo.environment
        let socketPath = ListdPaths.socket(option: socket, environment: environment)
        let filePath = ListdPaths.file(option: file, environment: environment)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let useJournal =
            log == .journal || (log == .auto && JournalLogHandler.stderrIsJournal(environment: environment))
        LoggingSystem.bootstrap { label in
            if useJournal {
                var handler = JournalLogHandler(identifier: "listd")
                handler.logLevel = level
                return handler
            }
            var handler = StderrLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "listd")

        do throws(any Error) {
            // Read from the start, on one of NIO's loops: a stop before listd serves stops it at
            // once, as the signal's default would; a SIGHUP waits until it serves.
            let signals = try ProcessSignals([SIGTERM, SIGINT, SIGHUP])
            let stopping = Mutex<ServiceGroup?>(nil)
            let (hangups, hangup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            try await signals.start(on: MultiThreadedEventLoopGroup.singleton.next()) { signal in
                guard signal != SIGHUP else {
                    hangup.yield()
                    return
                }
                guard let group = stopping.withLock({ $0 }) else { ProcessSignals.stopByDefault(signal) }
                logger.info("\(signal == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
                Task { await group.triggerGracefulShutdown() }
            }.get()

            // Socket activation: a socket passed by systemd (or systemd-socket-activate) wins.
            let passed = try ListenFileDescriptors.take()
            guard passed.count <= 1 else {
                throw ValidationError("listd serves one socket, but \(passed.count) were passed (LISTEN_FDS).")
            }
            if let socket = passed.first, !(try ListenFileDescriptors.isListeningUnixStream(socket)) {
                throw ValidationError("the socket passed by the service manager is not a listening Unix stream socket.")
            }
            // Whatever can fail is checked before anything is written.
            if passed.isEmpty {
                // The user's own runtime directory (/tmp/listd-UID without XDG_RUNTIME_DIR):
                // made 0700 here, or one already there is this user's and closed to others.
                if let directory = ListdPaths.privateRuntimeDirectory(ofSocket: socketPath, environment: environment) {
                    try RuntimeDirectory.make(directory)
                }
                try RPCServer.checkSocketPath(socketPath)
            }
            let shareURL = share ?? environment["LISTD_SHARE"].flatMap { $0.isEmpty ? nil : $0 }
            let shareServer: ShareServer?
            do {
                shareServer = try shareURL.map { try ShareServer(url: $0, defaultUser: Self.userName) }
            } catch {
                logger.critical("\(error)")
                throw ExitCode(2)
            }
            // listd's one table of timers and thresholds, with what the flags set in it.
            var limits = CoreLimits.standard
            limits.quietPeriod = .milliseconds(settleMs)
            limits.idleLimit = .milliseconds(idleMs)
            let parts = try await ListdParts(
                filePath: filePath,
                limits: limits,
                historyLimit: history,
                share: shareServer,
                logger: logger,
                // The journal's entries go where the log goes, written without swift-log's
                // dictionaries (one entry per edit).
                journal: useJournal ? .journald(identifier: "listd") : .stderr(label: "listd", lines: .shared)
            )
            let owner = parts.owner
            let loaded = try await owner.snapshot
            logger.info("loaded \(loaded.lists.count) list(s) from \(owner.filePath) at revision \(loaded.revision)")
            let systemd = SystemdIntegration(owner: owner, hangups: hangups, logger: logger)
            let watchdog = try Watchdog.interval()
            if let watchdog { logger.info("watchdog: a keep-alive at least every \(watchdog / 2)") }
            let ping: @Sendable () -> Void = { systemd.watchdog() }
            let configuration = RPCServer.Configuration(
                socketPath: socketPath,
                listeningSocket: passed.first,
                maximumLineLength: maxLineBytes,
                lineLimits: RPCLine.Limits(maximumDepth: maxJsonDepth, maximumBatch: maxBatch),
                maximumConnections: maxConnections,
                maximumConnectionsPerUser: maxConnectionsPerUser,
                maximumOutboundBytes: maxOutboundBytes,
                access: AccessPolicy(group: allowGroup.flatMap(AccessPolicy.Group.init(named:))),
                version: Self.version,
                watchdog: watchdog.map { (interval: $0, ping: ping) }
            )
            let server = parts.server(configuration: configuration, logger: logger, onReady: { systemd.ready() })
            // Shut down in reverse: systemd hears STOPPING first, then the server stops taking
            // requests, the watcher stops, and the owner finishes what it accepted.
            let group = ServiceGroup(
                services: [owner, parts.watcher, server, systemd],
                gracefulShutdownSignals: [],
                cancellationSignals: [],
                logger: logger
            )
            stopping.withLock { $0 = group }
            try await group.run()
        } catch let error as SystemdError {
            logger.critical("\(error)")
            throw ExitCode.failure
        } catch let error as DaemonError {
            logger.critical("\(error)")
            throw ExitCode.failure
        } catch let error as UnsafeRuntimeDirectory {
            logger.critical("\(error)")
            throw ExitCode.failure
        } catch let error as ServiceGroupError {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
    }
}
