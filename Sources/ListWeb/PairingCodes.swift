// One-time pairing codes and the limit on wrong ones: the rules alone, with the time passed in,
// so they are tested without a clock or a socket.

/// The codes `listctl web pair` asked for and not yet used, and the recent failed attempts.
public struct PairingCodes: Sendable {
    /// How long a pairing link stays valid.
    public static let validity: Duration = .seconds(300)
    /// Wrong or expired codes taken within `failureWindow` before pairing is refused for a while:
    /// a code is 128 random bits, so this only stops a peer on the network from hammering.
    public static let failuresAllowed = 10
    public static let failureWindow: Duration = .seconds(60)

    struct Pending: Sendable {
        var deviceName: String
        var expires: ContinuousClock.Instant
    }

    private var pending: [String: Pending] = [:]
    private var failures: [ContinuousClock.Instant] = []

    public init() {}

    public enum Redemption: Equatable, Sendable {
        /// The code was valid: pair a device of this name. The code is gone.
        case pair(deviceName: String)
        /// No such code, or one already used.
        case unknown
        /// The code was valid once; its minutes are over.
        case expired
        /// Too many wrong codes lately; nothing was checked.
        case tooManyAttempts
    }

    /// Remembers `code` for a device called `deviceName`, valid from `now` for `validity`.
    public mutating func issue(_ code: String, deviceName: String, now: ContinuousClock.Instant) {
        pending = pending.filter { $0.value.expires > now }
        pending[code] = Pending(deviceName: deviceName, expires: now + Self.validity)
    }

    /// Uses `code` once. A wrong or expired code counts against the limit.
    public mutating func redeem(_ code: String, now: ContinuousClock.Instant) -> Redemption {
        failures.removeAll { $0 <= now - Self.failureWindow }
        guard failures.count < Self.failuresAllowed else { return .tooManyAttempts }
        guard let found = pending.removeValue(forKey: code) else {
            failures.append(now)
            return .unknown
        }
        guard found.expires > now else {
            failures.append(now)
            return .expired
        }
        return .pair(deviceName: found.deviceName)
    }
}
