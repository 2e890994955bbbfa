import Glibc

/// Where listd puts its socket and list file when not told, per the XDG Base Directory spec.
public enum ListdPaths {
    /// `$XDG_RUNTIME_DIR/listd/listd.sock`; `/run/listd/listd.sock` for root without XDG
    /// variables; otherwise `/tmp/listd-UID/listd.sock` (the spec's advice when the runtime
    /// directory is unset: a private replacement).
    public static func defaultSocket(environment: [String: String]) -> String {
        if let runtime = nonEmpty(environment["XDG_RUNTIME_DIR"]) {
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
        option ?? nonEmpty(environment["LISTD_SOCKET"]) ?? defaultSocket(environment: environment)
    }

    /// The list file from `--file`, else `LISTD_FILE`, else the default.
    public static func file(option: String?, environment: [String: String]) -> String {
        option ?? nonEmpty(environment["LISTD_FILE"]) ?? defaultFile(environment: environment)
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
