// The system calls under the file operations: EINTR retried, errno kept with its text.
import ErrnoText
import Glibc

/// Runs a system call, retrying on EINTR, and returns its result or the errno it failed with.
public func retryingEINTR<T: FixedWidthInteger>(_ call: () -> T) -> Result<T, Errno> {
    while true {
        let result = call()
        if result != -1 { return .success(result) }
        if errno != EINTR { return .failure(Errno(code: errno)) }
    }
}

/// A failed system call's errno.
public struct Errno: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public init(code: Int32) { self.code = code }
    public var description: String { errorText(code) }
}

/// The directory part of a path ("." when there is none).
public func directoryName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
}
