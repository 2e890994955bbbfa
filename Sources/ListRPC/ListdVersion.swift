// The one place the release's version is written: listd reports it in `hello` and --version,
// listctl in --version, and `make deb` names the package with it.
public enum ListdVersion {
    public static let current = "0.1.0"
}
