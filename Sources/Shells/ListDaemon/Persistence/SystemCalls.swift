// Directories listd makes for its files.
import DurableFiles
import Glibc
import ListCore

/// `mkdir -p` with `mode` for every directory it creates.
func makeDirectories(_ path: String, mode: mode_t) throws(DaemonError) {
    var current = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
        current += "/" + component
        if mkdir(current, mode) != 0, errno != EEXIST {
            throw .cannotCreateDirectory(path: current, errno: errno)
        }
    }
}
