// Where listd keeps its own files, hidden beside the list file (`.lists.md.listd-log`, …): their
// names made in one place, for the change log, the snapshot, the lock and the shared copy.
import DurableFiles

struct StateFiles: Sendable {
    /// The directory and name the files are named after: the list file's (at start, its
    /// symlink's target: `ListFileStorage.statePath`).
    let directory: String
    let name: String

    init(besideListFile path: String) {
        directory = directoryName(of: path)
        name = path.split(separator: "/").last.map(String.init) ?? "lists.md"
    }

    private func hidden(_ suffix: String) -> String { directory + "/." + name + "." + suffix }

    /// The snapshot of the lists.
    var state: String { hidden("listd-state.json") }
    /// The change log.
    var log: String { hidden("listd-log") }
    /// The lock one listd holds on them.
    var lock: String { hidden("listd-lock") }
    /// The copy of the shared lists (`--share`).
    var shared: String { hidden("listd-shared") }
}
