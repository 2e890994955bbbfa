// Directories of the suites' own under the temp directory, removed when the test process ends:
// the helpers that make them hand their paths to listd's parts, which outlive any `defer` of
// theirs (a run left hundreds of them in /tmp).
import Foundation
import Synchronization

enum ScratchDirectories {
    private static let made = Mutex<[String]>([])
    private static let removal: Void = { atexit { ScratchDirectories.removeAll() } }()

    /// A new directory `PREFIX-UUID` under the temp directory (created when `create`), removed
    /// when the process exits.
    static func make(_ prefix: String, create: Bool = true) throws -> String {
        _ = removal
        let directory = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
        if create { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        made.withLock { $0.append(directory) }
        return directory
    }

    static func removeAll() {
        for directory in made.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: directory) }
    }
}
