// The one place the release's version is written: listd reports it in `hello` and --version,
// listctl in --version, and `make deb` names the package with it.
package enum ListdVersion {
    package static let current = "0.1.0"
}
