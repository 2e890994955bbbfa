// How fast a device's pages may send requests: a bucket per device that holds a burst and
// refills at a steady rate. The rule, with time passed in, and the lock its pages share.
import Synchronization

/// Every device's request rate, shared by its pages.
final class RequestRates: Sendable {
    private let rate: Mutex<RequestRate>
    init(limits: WebLimits) { rate = Mutex(RequestRate(limits: limits)) }

    /// nil when `device` may send a request now, else how long until it may.
    func take(device: String) -> Duration? { rate.withLock { $0.take(device: device, now: .now) } }
}

struct RequestRate {
    let burst: Double
    let perSecond: Double
    private var buckets: [String: (tokens: Double, at: ContinuousClock.Instant)] = [:]

    init(limits: WebLimits) {
        burst = Double(limits.requestBurst)
        perSecond = Double(limits.requestsPerSecond)
    }

    /// Takes one request of `device`'s: nil when it may go, else how long until it may.
    mutating func take(device: String, now: ContinuousClock.Instant) -> Duration? {
        var (tokens, at) = buckets[device] ?? (burst, now)
        let elapsed = now - at
        tokens = min(burst, tokens + perSecond * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        guard tokens >= 1 else {
            buckets[device] = (tokens, now)
            return .milliseconds(Int(((1 - tokens) / perSecond * 1000).rounded(.up)))
        }
        buckets[device] = (tokens - 1, now)
        return nil
    }
}

/// Whether something said once per `interval` is due now (a warning that every page would
/// otherwise repeat).
final class OncePer: Sendable {
    private let interval: Duration
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    init(_ interval: Duration) { self.interval = interval }

    func due(now: ContinuousClock.Instant = .now) -> Bool {
        last.withLock { last in
            if let previous = last, now - previous < interval { return false }
            last = now
            return true
        }
    }
}
