import CSystemd
import Glibc
import Logging

/// A swift-log handler that writes to the systemd journal natively (`sd_journal_sendv`), with
/// structured fields: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, CODE_FILE/CODE_LINE/CODE_FUNC, and
/// every metadata key upper-cased (`list_name` → `LIST_NAME`), so that
/// `journalctl LIST_NAME=Groceries` finds every entry about that list.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let identifier: String

    public init(identifier: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.identifier = identifier
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(Self.priority(event.level))",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            fields.append("\(Self.fieldName(key))=\(value)")
        }
        // A journal that is gone cannot be told so; there is nowhere better to report it.
        try? Self.send(fields)
    }

    /// Sends one entry (`sd_journal_sendv`): `FIELD=value` strings.
    public static func send(_ fields: [String]) throws(SystemdError) {
        // One buffer holds every field; the iovecs point into it.
        let bytes = fields.map { Array($0.utf8) }
        let total = bytes.reduce(0) { $0 + $1.count }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 1)
        defer { storage.deallocate() }
        var vectors: [iovec] = []
        vectors.reserveCapacity(bytes.count)
        var offset = 0
        for field in bytes {
            let start = storage.baseAddress! + offset
            field.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            vectors.append(iovec(iov_base: start, iov_len: field.count))
            offset += field.count
        }
        let result = vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        _ = try SystemdError.check(result, "sd_journal_sendv")
    }

    /// A journal field name: upper case letters, digits and underscores, not starting with `_`.
    public static func fieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        while name.hasPrefix("_") { name.removeFirst() }
        return name.isEmpty ? "FIELD" : String(name.prefix(64))
    }

    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Whether stderr is connected to the journal (systemd sets `JOURNAL_STREAM` to its
    /// `device:inode`): then native logging is the better choice.
    public static func stderrIsJournal(environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return stream == "\(info.st_dev):\(info.st_ino)"
    }
}
