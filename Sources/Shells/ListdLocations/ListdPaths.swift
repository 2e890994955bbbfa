import Glibc

/// Where listd puts its socket and list file when not told, per the XDG Base Directory spec.
public enum ListdPaths {
    /// `$XDG_RUNTIME_DIR/listd/listd.sock`; `/run/listd/listd.sock` for root without XDG
    /// variables; otherwise `/tmp/listd-UID/listd.sock` (the spec's advice when the runtime
    /// directory is unset: a private replacement).
    public static func defaultSocket(environment: [String: String]) -> String {
        defaultSocket { environment[$0] }
    }

    /// The same, with each variable looked up as it is needed (`getenv`: a one-shot client
    /// need not copy the whole environment).
    public static func defaultSocket(variable: (String) -> String?) -> String {
        if let runtime = nonEmpty(variable("XDG_RUNTIME_DIR")) {
            return runtime + "/listd/listd.sock"
        }
        if getuid() == 0 { return "/run/listd/listd.sock" }
        return "/tmp/listd-\(getuid())/listd.sock"
    }

    /// `$XDG_DATA_HOME/listd/lists.md`, `$HOME/.local/share/listd/lists.md`, or
    /// `/var/lib/listd/lists.md` for root without XDG variables.
    public static func defaultFile(environment: [String: String]) -> String {
        if let data = nonEmpty(environment["XDG_DATA_HOME"]) {
            return data + "/listd/lists.md"
        }
        if getuid() == 0 { return "/var/lib/listd/lists.md" }
        let home = nonEmpty(environment["HOME"]) ?? "/tmp"
        return home + "/.local/share/listd/lists.md"
    }

    /// The socket from `--socket`, else `LISTD_SOCKET`, else the default.
    public static func socket(option: String?, environment: [String: String]) -> String {
        socket(option: option) { environment[$0] }
    }

    public static func socket(option: String?, variable: (String) -> String?) -> String {
        option ?? nonEmpty(variable("LISTD_SOCKET")) ?? defaultSocket(variable: variable)
    }

    /// The household's listd (the system units' `listd.socket`, for the members of the group
    /// `listd`).
    public static let systemSocket = "/run/listd/listd.sock"

    /// The socket a client connects to: `--socket`, else `LISTD_SOCKET`, else this user's own
    /// listd's — or, when this user has none (nothing at that path) and the household's listd
    /// is there and this user may use it (a member of its group), the household's.
    /// `isThere` and `mayUse` ask the file system (stat, and access for writing: what connecting
    /// to a Unix socket needs).
    public static func clientSocket(
        option: String?,
        variable: (String) -> String?,
        isThere: (String) -> Bool = { access($0, F_OK) == 0 },
        mayUse: (String) -> Bool = { access($0, W_OK) == 0 }
    ) -> String {
        if let chosen = option ?? nonEmpty(variable("LISTD_SOCKET")) { return chosen }
        let own = defaultSocket(variable: variable)
        guard own != systemSocket, !isThere(own), isThere(systemSocket), mayUse(systemSocket) else { return own }
        return systemSocket
    }

    public static func clientSocket(option: String?, environment: [String: String]) -> String {
        clientSocket(option: option) { environment[$0] }
    }

    /// The list file from `--file`, else `LISTD_FILE`, else the default.
    public static func file(option: String?, environment: [String: String]) -> String {
        option ?? nonEmpty(environment["LISTD_FILE"]) ?? defaultFile(environment: environment)
    }

    /// listd-web's control socket (`listctl web`): `$XDG_RUNTIME_DIR/listd-web/control.sock`,
    /// `/run/listd-web/control.sock` for root without XDG variables, else
    /// `/tmp/listd-web-UID/control.sock`.
    public static func defaultWebControlSocket(environment: [String: String]) -> String {
        defaultWebControlSocket { environment[$0] }
    }

    public static func defaultWebControlSocket(variable: (String) -> String?) -> String {
        if let runtime = nonEmpty(variable("XDG_RUNTIME_DIR")) {
            return runtime + "/listd-web/control.sock"
        }
        if getuid() == 0 { return systemWebControlSocket }
        return "/tmp/listd-web-\(getuid())/control.sock"
    }

    /// The household's listd-web control socket (the system unit's).
    public static let systemWebControlSocket = "/run/listd-web/control.sock"

    /// The directory of `socket` when it is the user's own runtime directory, chosen by default
    /// (`$XDG_RUNTIME_DIR/listd`, `/tmp/listd-UID`, and listd-web's): the one listd and listd-web
    /// make or check, and clients check, with `RuntimeDirectory` before they use it. nil for the
    /// household's sockets (`/run/…`, made by systemd for a group) and for any path a person
    /// chose elsewhere.
    public static func privateRuntimeDirectory(ofSocket socket: String, variable: (String) -> String?) -> String? {
        guard socket != systemSocket, socket != systemWebControlSocket,
            socket == defaultSocket(variable: variable) || socket == defaultWebControlSocket(variable: variable),
            let slash = socket.lastIndex(of: "/")
        else { return nil }
        return String(socket[..<slash])
    }

    public static func privateRuntimeDirectory(ofSocket socket: String, environment: [String: String]) -> String? {
        privateRuntimeDirectory(ofSocket: socket) { environment[$0] }
    }

    /// A client's check before it connects to `socket`: when it is in the user's own runtime
    /// directory, that directory is the user's and closed to others (or not there yet).
    public static func checkBeforeConnecting(to socket: String, variable: (String) -> String?) throws(UnsafeRuntimeDirectory) {
        guard let directory = privateRuntimeDirectory(ofSocket: socket, variable: variable) else { return }
        try RuntimeDirectory.check(directory)
    }

    /// The control socket from `--control-socket`, else `LISTD_WEB_CONTROL`, else the default.
    public static func webControlSocket(option: String?, environment: [String: String]) -> String {
        option ?? nonEmpty(environment["LISTD_WEB_CONTROL"]) ?? defaultWebControlSocket(environment: environment)
    }

    /// Where listd-web keeps its paired devices: `$STATE_DIRECTORY/devices.json` under systemd
    /// (`StateDirectory=listd-web`), else `$XDG_STATE_HOME/listd-web/devices.json`,
    /// `$HOME/.local/state/listd-web/devices.json`, or `/var/lib/listd-web/devices.json` for root.
    public static func defaultWebDeviceFile(environment: [String: String]) -> String {
        if let state = nonEmpty(environment["STATE_DIRECTORY"]) { return state + "/devices.json" }
        if let state = nonEmpty(environment["XDG_STATE_HOME"]) { return state + "/listd-web/devices.json" }
        if getuid() == 0 { return "/var/lib/listd-web/devices.json" }
        let home = nonEmpty(environment["HOME"]) ?? "/tmp"
        return home + "/.local/state/listd-web/devices.json"
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
