import Foundation
import ListModel
import Logging

/// listd's parts, built once and wired here: the store (`LocalPersistence`), the shells (the
/// subscription hub, the list file and its watcher, the delegate registry, the journal), the
/// service that drives the core through them, and the socket server. Each part is handed the
/// others it needs; none is reached through another (the server is given the hub and the
/// delegates, not the service's). Another store takes the place of `LocalPersistence` here.
public struct ListdParts: Sendable {
    public let service: ListService
    /// Tells the service when a person's save has settled.
    public let watcher: FileWatcher
    let hub: SubscriptionHub
    let delegates: DelegateRegistry
    /// Held while listd runs: no second listd keeps these lists.
    let lock: StateLock

    /// Recovers the lists kept beside `filePath` and starts the service on them (see
    /// `ListService.init`).
    ///
    /// - Parameter historyLimit: how many changes `subscribe {since}` can always replay.
    public init(
        filePath: String,
        quietPeriod: Duration = .milliseconds(30),
        historyLimit: Int = 10_000,
        logger: Logger
    ) throws(DaemonError) {
        try makeDirectories(directoryName(of: filePath), mode: 0o700)
        // Before anything is read or written: another listd may own all of it.
        lock = try StateLock(listFilePath: filePath)
        let storage = ListFileStorage(path: filePath)
        for name in storage.removeAbandonedTemporaryFiles() {
            logger.notice("removed \(name), a temp file a listd that is gone left while writing the list file")
        }
        watcher = FileWatcher(path: storage.path, quietPeriod: quietPeriod, logger: logger)
        try watcher.open()
        let persistence = try LocalPersistence(listFilePath: storage.path, historyLimit: historyLimit)
        let fileBytes = try storage.read()
        let recovered = try persistence.recover(listFileDigest: fileBytes.map(digest))
        for problem in recovered.problems { logger.warning("\(problem)") }
        let instance = recovered.instance ?? UUID().uuidString.lowercased()
        hub = SubscriptionHub(book: recovered.book, history: recovered.history, instance: instance)
        delegates = DelegateRegistry(logger: logger)
        service = try ListService(
            recovered: recovered,
            fileBytes: fileBytes,
            persistence: persistence,
            hub: hub,
            fileSync: ListFileSync(storage: storage, watcher: watcher),
            delegates: delegates,
            journal: JournalEntries(logger: logger),
            logger: logger
        )
    }

    /// The socket server for these parts.
    /// - Parameter onReady: called once the socket accepts connections.
    public func server(
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
            methods: .listd(service: service, hub: hub, delegates: delegates, version: configuration.version),
            hub: hub,
            delegates: delegates,
            configuration: configuration,
            logger: logger
        )
    }
}
