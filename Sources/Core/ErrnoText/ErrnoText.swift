// The words for an errno value (strerror): the one libc call error messages need, kept apart so
// that a module which only describes failures (ListCore) needs no access to the system.
import Glibc

/// `strerror` text for an errno value.
public func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
