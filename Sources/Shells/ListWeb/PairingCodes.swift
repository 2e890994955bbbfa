// One-time pairing codes and the limit on wrong ones: the rules alone, with the time passed in,
// so they are tested without a clock or a socket.

/// The codes `listctl web pair` asked for and not yet used, and each client's recent failed
/// attempts.
package struct PairingCodes: Sendable {
    /// How long a pairing link stays valid.
    package static let validity: Duration = .seconds(300)
    /// Wrong or expired codes a client may send within `failureWindow` before its wrong codes
    /// are refused unchecked for the rest of it: a code is 128 random bits, so this only stops a
    /// peer on the network from hammering. A right code still pairs: counted per client address,
    /// and an address is only what a request says it is (behind a proxy, `X-Forwarded-For`,
    /// which a local process reaching listd-web directly may forge), a lockout keeps no phone
    /// with its link from pairing.
    package static let failuresAllowed = 10
    package static let failureWindow: Duration = .seconds(60)
    /// Clients whose failures are remembered at most (beyond, the longest quiet are forgotten).
    static let clientsRemembered = 4096

    struct Pending: Sendable {
        var deviceName: String
        var expires: ContinuousClock.Instant
    }

    private var pending: [String: Pending] = [:]
    /// By client (its address): when its recent wrong codes came.
    private var failures: [String: [ContinuousClock.Instant]] = [:]

    package init() {}

    package enum Redemption: Equatable, Sendable {
        /// The code was valid: pair a device of this name. The code is gone.
        case pair(deviceName: String)
        /// No such code, or one already used.
        case unknown
        /// The code was valid once; its minutes are over.
        case expired
        /// Too many wrong codes from this client lately, and this one is not right either.
        case tooManyAttempts
    }

    /// What a redemption did besides: whether this client's failure was the one that locks it
    /// out (to be logged once, not at every refused attempt after).
    package struct Outcome: Equatable, Sendable {
        package var redemption: Redemption
        package var lockedOut = false
    }

    /// Remembers `code` for a device called `deviceName`, valid from `now` for `validity`.
    package mutating func issue(_ code: String, deviceName: String, now: ContinuousClock.Instant) {
        pending = pending.filter { $0.value.expires > now }
        pending[code] = Pending(deviceName: deviceName, expires: now + Self.validity)
    }

    /// Uses `code` once, sent by `client`. A wrong or expired code counts against that client.
    package mutating func redeem(_ code: String, client: String, now: ContinuousClock.Instant) -> Outcome {
        forgetFailures(before: now - Self.failureWindow)
        if let found = pending[code], found.expires > now {
            pending[code] = nil
            return Outcome(redemption: .pair(deviceName: found.deviceName))
        }
        guard (failures[client]?.count ?? 0) < Self.failuresAllowed else { return Outcome(redemption: .tooManyAttempts) }
        let redemption: Redemption = pending.removeValue(forKey: code) == nil ? .unknown : .expired
        failures[client, default: []].append(now)
        if failures.count > Self.clientsRemembered { forgetQuietestClients() }
        return Outcome(redemption: redemption, lockedOut: failures[client]?.count == Self.failuresAllowed)
    }

    /// Counts a failed attempt of `client`'s that is not a code (a wrong app password): true when
    /// it is locked out now, this one included.
    package mutating func failed(client: String, now: ContinuousClock.Instant) -> (lockedOut: Bool, justNow: Bool) {
        forgetFailures(before: now - Self.failureWindow)
        guard (failures[client]?.count ?? 0) < Self.failuresAllowed else { return (true, false) }
        failures[client, default: []].append(now)
        if failures.count > Self.clientsRemembered { forgetQuietestClients() }
        let locked = failures[client]?.count == Self.failuresAllowed
        return (locked, locked)
    }

    /// Whether `client` may try now (fewer than `failuresAllowed` failures in the window).
    package mutating func mayTry(client: String, now: ContinuousClock.Instant) -> Bool {
        forgetFailures(before: now - Self.failureWindow)
        return (failures[client]?.count ?? 0) < Self.failuresAllowed
    }

    /// How many clients' failures are remembered now.
    var rememberedClients: Int { failures.count }

    /// Forgets failures older than the window.
    private mutating func forgetFailures(before cutoff: ContinuousClock.Instant) {
        for (client, times) in failures where times.first! <= cutoff {
            let recent = times.filter { $0 > cutoff }
            failures[client] = recent.isEmpty ? nil : recent
        }
    }

    /// A flood of wrong codes from many addresses does not grow the failures without bound: the
    /// quietest quarter is forgotten (a quarter at a time, so that this is rare).
    private mutating func forgetQuietestClients() {
        let quietest = failures.sorted { $0.value.last! < $1.value.last! }.prefix(failures.count - Self.clientsRemembered * 3 / 4)
        for (client, _) in quietest { failures[client] = nil }
    }
}
