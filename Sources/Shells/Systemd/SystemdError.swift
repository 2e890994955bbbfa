import Glibc

/// A libsystemd call failed. libsystemd reports failures as negative errno return values, not
/// through `errno`.
public struct SystemdError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C function that failed.
    public var call: String
    /// The positive errno value.
    public var errno: Int32

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }

    /// Returns `result` when it is not negative, else throws it as an errno.
    static func check(_ result: Int32, _ call: String) throws(SystemdError) -> Int32 {
        guard result >= 0 else { throw SystemdError(call: call, errno: -result) }
        return result
    }
}
