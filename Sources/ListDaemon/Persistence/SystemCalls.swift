import Glibc

/// `strerror` text for an errno value.
func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// Runs a system call, retrying on EINTR, and returns its result or the errno it failed with.
func retryingEINTR<T: FixedWidthInteger>(_ call: () -> T) -> Result<T, Errno> {
    while true {
        let result = call()
        if result != -1 { return .success(result) }
        if errno != EINTR { return .failure(Errno(code: errno)) }
    }
}

/// A failed system call's errno.
struct Errno: Error, Sendable, CustomStringConvertible {
    var code: Int32
    var description: String { errorText(code) }
}

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

/// The directory part of a path ("." when there is none).
func directoryName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
}
