// The names listd-web answers to (the request's Host): a page at another name that resolves to
// this machine — DNS rebinding — must not pair a device or reach the lists.

/// The host names a request may be addressed to. An IP address is always answered (a
/// rebinding page is at a name of its attacker's, never at an address); a name only when it is
/// listd-web's: `--url`'s host, the address it listens on, this machine's name when it
/// listens everywhere, and localhost.
package struct ServedNames: Sendable, Equatable {
    /// Lower-cased, without a port.
    package private(set) var names: Set<String>

    /// `listenHost`: what `--listen` gave; `publicAddress`: `--url`; `machineName`: this
    /// machine's host name (used when listening everywhere).
    package init(listenHost: String, publicAddress: String?, machineName: String?) {
        var names: Set<String> = ["localhost"]
        if let publicAddress, let host = Self.host(ofURL: publicAddress) { names.insert(host) }
        if !Self.isWildcard(listenHost) { names.insert(listenHost.lowercased()) }
        if Self.isWildcard(listenHost), let machineName, !machineName.isEmpty {
            names.insert(machineName.lowercased())
            names.insert(machineName.lowercased() + ".local")
        }
        self.names = names
    }

    /// Whether a request with this `Host` (an authority: name or address, perhaps a port) is
    /// answered.
    package func admits(authority: String) -> Bool {
        guard let host = Self.host(ofAuthority: authority) else { return false }
        return Self.isAddress(host) || names.contains(host)
    }

    /// The host of `host[:port]` or `[v6]:port`, lower-cased; nil when it is not one.
    static func host(ofAuthority authority: String) -> String? {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: end)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            return String(host[host.index(after: host.startIndex)..<end])
        }
        if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }  // "localhost." is localhost
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else {
            return nil
        }
        return String(host)
    }

    static func host(ofURL address: String) -> String? {
        guard let schemeEnd = address.range(of: "://") else { return nil }
        let authority = address[schemeEnd.upperBound...].prefix { $0 != "/" }
        return host(ofAuthority: String(authority))
    }

    /// An IPv4 address in dotted decimal, or an IPv6 one (its brackets taken off).
    static func isAddress(_ host: String) -> Bool {
        if host.contains(":") { return host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in part.count <= 3 && !part.isEmpty && part.allSatisfy(\.isASCIIDigit) && Int(part)! <= 255 }
    }

    package static func isWildcard(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" }

    /// Whether listening on `host` reaches this machine only.
    package static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered == "::1" || lowered.hasPrefix("127.")
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
