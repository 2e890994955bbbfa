// Which connections listd-web keeps when it is full: the rules alone, with time passed in, so
// they are tested without a socket. The shell (ConnectionGuard) closes what they name.

/// The open connections, each either unproven (no paired device's token seen on it yet) or a
/// paired device's.
struct ConnectionSlots {
    /// Numbered in the order accepted, never reused.
    typealias ID = UInt64

    let limits: WebLimits
    private var opened: [ID: ContinuousClock.Instant] = [:]
    /// Unproven connections, oldest first (the ones a newcomer evicts).
    private var unproven: [ID] = []
    private var unprovenStart = 0
    /// The device each proven connection is of, and how many each device has.
    private var devices: [ID: String] = [:]
    private var perDevice: [String: Int] = [:]

    init(limits: WebLimits) { self.limits = limits }

    var count: Int { opened.count }

    /// A connection was accepted: the connections to close (the oldest unproven one when full;
    /// the new one itself when every other is a paired device's).
    mutating func open(_ id: ID, now: ContinuousClock.Instant) -> [ID] {
        opened[id] = now
        unproven.append(id)
        if unproven.count - unprovenStart > 2 * limits.connections { compact() }
        guard opened.count > limits.connections else { return [] }
        let victim = oldestUnproven() ?? id
        close(victim)
        return [victim]
    }

    /// A request on `id` showed `device`'s token: kept from eviction and from the unpaired
    /// timeout, unless the device already has its share of kept connections.
    mutating func proven(_ id: ID, device: String) {
        guard opened[id] != nil, devices[id] == nil, perDevice[device, default: 0] < limits.protectedPerDevice else { return }
        devices[id] = device
        perDevice[device, default: 0] += 1
    }

    /// Whether `id` is still unproven (closed by the unpaired timeout if so).
    func isUnproven(_ id: ID) -> Bool { opened[id] != nil && devices[id] == nil }

    mutating func close(_ id: ID) {
        guard opened.removeValue(forKey: id) != nil else { return }
        if let device = devices.removeValue(forKey: id) {
            perDevice[device]! -= 1
            if perDevice[device] == 0 { perDevice[device] = nil }
        }
        // `unproven` is pruned lazily (a closed or proven id is skipped when reached).
    }

    private mutating func oldestUnproven() -> ID? {
        while unprovenStart < unproven.count {
            let id = unproven[unprovenStart]
            unprovenStart += 1
            if isUnproven(id) { return id }
        }
        return nil
    }

    /// Keeps the queue of unproven connections from growing with every connection ever made.
    private mutating func compact() {
        unproven = unproven[unprovenStart...].filter(isUnproven)
        unprovenStart = 0
    }
}
