import ListRPC

// listd-web's control requests, sent by `listctl web` on listd-web's control socket (newline
// JSON-RPC, like listd's). Whoever can open that socket may pair a phone: it lives in the
// user's runtime directory (mode 0700), or /run/listd-web for the system unit.

/// A one-time link that pairs one device: valid for a few minutes, used once.
public enum PairDevice: RPCMethod {
    public static let name = "pair"

    public struct Params: Codable, Sendable, Hashable {
        /// What the device is called in every change it makes ("Kitchen phone").
        public var name: String
        public init(name: String) { self.name = name }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// The address to open on the device; the code is after `#`, so it is never sent in a
        /// request line, a proxy's log or a link preview.
        public var link: String
        /// Seconds the link stays valid.
        public var validForSeconds: Int
        public init(link: String, validForSeconds: Int) {
            self.link = link
            self.validForSeconds = validForSeconds
        }
    }
}

/// A device paired with listd-web, as `listctl web devices` shows it.
public struct PairedDevice: Codable, Sendable, Hashable {
    /// A short id that names the device for `revoke` (not its token).
    public var id: String
    public var name: String
    /// RFC 3339, UTC.
    public var paired: String
    /// RFC 3339, UTC; absent until the device first connects.
    public var lastSeen: String?
    public init(id: String, name: String, paired: String, lastSeen: String? = nil) {
        self.id = id
        self.name = name
        self.paired = paired
        self.lastSeen = lastSeen
    }
}

public enum ListDevices: RPCMethod {
    public static let name = "devices"
    public typealias Params = NoParams
    public struct Result: Codable, Sendable, Hashable {
        public var devices: [PairedDevice]
        public init(devices: [PairedDevice]) { self.devices = devices }
    }
}

/// Forgets a device: its token stops working at once, and its open pages are disconnected.
public enum RevokeDevice: RPCMethod {
    public static let name = "revoke"
    public struct Params: Codable, Sendable, Hashable {
        /// The device's id, or its name when no id matches (names need not be unique: a name
        /// that names several devices is refused, listing their ids).
        public var device: String
        public init(device: String) { self.device = device }
    }
    public typealias Result = PairedDevice
}

/// The control socket's error codes (JSON-RPC server-defined range, apart from listd's).
public enum WebControlError {
    /// `revoke` named no paired device.
    public static let noSuchDevice = 2001
    /// `revoke` named several devices by a name they share.
    public static let ambiguousDevice = 2002
    /// A name that is empty, longer than 100 characters or more than one line.
    public static let invalidName = 2003
}
