import DurableFiles
import Foundation
import ListCore
import ListFileFormat
import ListModel
import Logging
import NIOPosix

/// listd's parts, built once and wired here: the owner's loop, the store (`LocalPersistence`),
/// the shells (the subscription hub, the list file and its watcher, the delegate registry, the
/// journal), the owner that runs the core through them, and the socket server, served on the
/// owner's loop. Another store takes the place of `LocalPersistence` here.
package struct ListdParts: Sendable {
    package let owner: ListOwner
    /// Tells the owner what happens to the list file (a service: it stops watching at shutdown).
    package let watcher: FileWatcher
    /// Held while listd runs: no second listd keeps these lists.
    let lock: StateLock
    /// listd's one table of timers and thresholds: the core's, the connections', the shared
    /// store's (Listd.swift sets the flags' values in it).
    package let limits: CoreLimits

    /// Recovers the lists kept beside `filePath` and starts the owner on them (see
    /// `ListOwner.init`).
    ///
    /// - Parameter historyLimit: how many changes `subscribe {since}` can always replay.
    /// - Parameter share: keep the lists in this PostgreSQL database, shared with every listd
    ///   that uses it, instead of beside the list file.
    /// - Parameter journal: where applied and denied changes are written, at `logger`'s level.
    package init(
        filePath: String,
        limits: CoreLimits = .standard,
        historyLimit: Int = 10_000,
        share: ShareServer? = nil,
        logger: Logger,
        journal: JournalOutput
    ) async throws(DaemonError) {
        guard let share else {
            try await self.init(filePath: filePath, limits: limits, logger: logger, journal: journal) { path throws(DaemonError) in
                try LocalPersistence(listFilePath: path, historyLimit: historyLimit)
            }
            return
        }
        // Connected (and the tables made) before anything is written: a bad URL, a wrong
        // password or a missing database stops listd with a sentence, before it serves. A
        // server that cannot be reached is ridden out from this machine's copy, when it has one.
        let statePath = ListFileStorage(path: filePath).statePath
        let machine = "\(ProcessInfo.processInfo.hostName):\(statePath)"
        let store = try await SharedPersistence.open(
            server: share,
            machine: machine,
            copyPath: SharedCopy.path(besideListFile: statePath),
            historyLimit: historyLimit,
            limits: limits,
            logger: logger
        )
        logger.info("sharing the lists through \(share.description) as \(machine)")
        try await self.init(filePath: filePath, limits: limits, logger: logger, journal: journal) { _ in store }
    }

    /// The same, on the store `makePersistence` opens for the list file's path (tests give one
    /// whose appends complete when they say).
    init(
        filePath: String,
        limits: CoreLimits = .standard,
        logger: Logger,
        journal: JournalOutput,
        makePersistence: (String) throws(DaemonError) -> any ListPersistence
    ) async throws(DaemonError) {
        self.limits = limits
        try makeDirectories(directoryName(of: filePath), mode: 0o700)
        // Before anything is read or written: another listd may own all of it.
        lock = try StateLock(listFilePath: filePath)
        let storage = ListFileStorage(path: filePath)
        for name in storage.removeAbandonedTemporaryFiles() {
            logger.notice("removed \(name), a temp file a listd that is gone left while writing the list file")
        }
        watcher = try FileWatcher(path: storage.path, logger: logger)
        let persistence = try makePersistence(storage.statePath)
        let fileBytes = try storage.read()
        let recovered = try persistence.recover(listFileDigest: fileBytes.map(digest))
        for problem in recovered.problems { logger.warning("\(problem)") }
        let instance = recovered.instance ?? UUID().uuidString.lowercased()
        // One thread: the owner's, which serves every connection too.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        owner = try await ListOwner(
            recovered: recovered,
            fileBytes: fileBytes,
            persistence: persistence,
            hub: SubscriptionHub(
                book: recovered.book,
                history: recovered.history,
                published: PublishedStatus(instance: instance),
                loop: loop
            ),
            fileSync: ListFileShell(storage: storage),
            watcher: watcher,
            limits: limits,
            delegates: DelegateRegistry(loop: loop, logger: logger),
            journal: JournalWriter(output: journal, level: logger.logLevel, keptIn: persistence.keptIn),
            group: group,
            logger: logger
        )
    }

    /// The socket server for these parts.
    /// - Parameter onReady: called once the socket accepts connections.
    package func server(
        configuration: RPCServer.Configuration,
        logger: Logger,
        onReady: @escaping @Sendable () -> Void = {}
    ) -> RPCServer {
        RPCServer(
            configuration: configuration,
            services: connectionServices(configuration, logger: logger),
            logger: logger,
            onReady: onReady
        )
    }

    /// What every connection is served with.
    func connectionServices(_ configuration: RPCServer.Configuration, logger: Logger) -> ConnectionServices {
        ConnectionServices(
            methods: .listd(owner: owner, version: configuration.version),
            owner: owner,
            configuration: configuration,
            rules: configuration.rules(limits: limits),
            logger: logger,
            refusals: RefusalLog(logger: logger)
        )
    }
}
