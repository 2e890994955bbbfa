import CSystemd

/// Tells the service manager how listd is doing (`sd_notify`): ready, reloading, stopping, a
/// one-line status, and watchdog keep-alives. Without `NOTIFY_SOCKET` every call does nothing.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// Sends `state` (newline-separated `KEY=value` lines). Returns false when no service
    /// manager listens.
    @discardableResult
    public func notify(_ state: String) throws(SystemdError) -> Bool {
        try SystemdError.check(sd_notify(0, state), "sd_notify") > 0
    }

    /// `READY=1`: listd serves; with a status line.
    public func ready(status: String) throws(SystemdError) {
        try notify("READY=1\nSTATUS=\(oneLine(status))")
    }

    public func status(_ status: String) throws(SystemdError) {
        try notify("STATUS=\(oneLine(status))")
    }

    /// `RELOADING=1`: re-reading the list file; follow with `ready(status:)`.
    public func reloading() throws(SystemdError) {
        try notify("RELOADING=1\nSTATUS=Reloading the list file")
    }

    /// `STOPPING=1`: shutting down gracefully.
    public func stopping() throws(SystemdError) {
        try notify("STOPPING=1\nSTATUS=Stopping")
    }

    /// `WATCHDOG=1`: still alive.
    public func watchdog() throws(SystemdError) {
        try notify("WATCHDOG=1")
    }

    private func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}

/// The watchdog the service manager expects (`sd_watchdog_enabled`).
public enum Watchdog {
    /// How often `WATCHDOG=1` must arrive, or nil when no watchdog is set for this process.
    public static func interval() throws(SystemdError) -> Duration? {
        var microseconds: UInt64 = 0
        let enabled = try SystemdError.check(sd_watchdog_enabled(0, &microseconds), "sd_watchdog_enabled")
        guard enabled > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds))
    }
}

/// Sockets passed by socket activation (`sd_listen_fds`).
public enum ListenFileDescriptors {
    /// The passed descriptors (starting at 3), or none. Unsets `LISTEN_FDS`/`LISTEN_PID` so that
    /// children do not inherit them.
    public static func take() throws(SystemdError) -> [Int32] {
        let count = try SystemdError.check(sd_listen_fds(1), "sd_listen_fds")
        return (0..<count).map { SD_LISTEN_FDS_START + $0 }
    }

    /// Whether `descriptor` is a listening Unix stream socket (`sd_is_socket_unix`).
    public static func isListeningUnixStream(_ descriptor: Int32) throws(SystemdError) -> Bool {
        try SystemdError.check(
            sd_is_socket_unix(descriptor, Int32(SOCK_STREAM.rawValue), 1, nil, 0),
            "sd_is_socket_unix"
        ) > 0
    }
}
