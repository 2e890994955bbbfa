import ListRPC

// listd-web's control requests, sent by `listctl web` on listd-web's control socket (newline
// JSON-RPC, like listd's). Whoever can open that socket may pair a phone: it lives in the
// user's runtime directory (mode 0700), or /run/listd-web for the system unit.

/// A one-time link that pairs one device: valid for a few minutes, used once.
package enum PairDevice: RPCMethod {
    package static let name = "pair"

    package struct Params: Codable, Sendable, Hashable {
        /// What the device is called in every change it makes ("Kitchen phone").
        package var name: String
        package init(name: String) { self.name = name }
    }

    package struct Result: Codable, Sendable, Hashable {
        /// The address to open on the device; the code is after `#`, so it is never sent in a
        /// request line, a proxy's log or a link preview.
        package var link: String
        /// Seconds the link stays valid.
        package var validForSeconds: Int
        package init(link: String, validForSeconds: Int) {
            self.link = link
            self.validForSeconds = validForSeconds
        }
    }
}

/// Pairs a tasks app (CalDAV: Reminders, DAVx⁵, Thunderbird, Home Assistant) at once: a user
/// name and an app password, shown once (listd-web keeps only the password's hash).
package enum PairTasksApp: RPCMethod {
    package static let name = "pairTasksApp"

    package struct Params: Codable, Sendable, Hashable {
        /// What the app is called in every change it makes ("Anna's Reminders").
        package var name: String
        package init(name: String) { self.name = name }
    }

    package struct Result: Codable, Sendable, Hashable {
        /// The server address the app is given (`https://…/`: it finds /.well-known/caldav).
        package var server: String
        /// Its user name (the device's id) and app password.
        package var user: String
        package var password: String
        /// The device, as `listctl web devices` lists it.
        package var device: PairedDevice
        package init(server: String, user: String, password: String, device: PairedDevice) {
            self.server = server
            self.user = user
            self.password = password
            self.device = device
        }
    }
}

/// A device paired with listd-web, as `listctl web devices` shows it.
package struct PairedDevice: Codable, Sendable, Hashable {
    /// A short id that names the device for `revoke` (not its token).
    package var id: String
    package var name: String
    /// RFC 3339, UTC.
    package var paired: String
    /// RFC 3339, UTC; absent until the device first connects.
    package var lastSeen: String?
    package init(id: String, name: String, paired: String, lastSeen: String? = nil) {
        self.id = id
        self.name = name
        self.paired = paired
        self.lastSeen = lastSeen
    }
}

package enum ListDevices: RPCMethod {
    package static let name = "devices"
    package typealias Params = NoParams
    package struct Result: Codable, Sendable, Hashable {
        package var devices: [PairedDevice]
        package init(devices: [PairedDevice]) { self.devices = devices }
    }
}

/// Forgets a device: its token stops working at once, and its open pages are disconnected.
package enum RevokeDevice: RPCMethod {
    package static let name = "revoke"
    package struct Params: Codable, Sendable, Hashable {
        /// The device's id, or its name when no id matches (names need not be unique: a name
        /// that names several devices is refused, listing their ids).
        package var device: String
        package init(device: String) { self.device = device }
    }
    package typealias Result = PairedDevice
}

/// The control socket's error codes (JSON-RPC server-defined range, apart from listd's).
package enum WebControlError {
    /// `revoke` named no paired device.
    package static let noSuchDevice = 2001
    /// `revoke` named several devices by a name they share.
    package static let ambiguousDevice = 2002
    /// A name that is empty, longer than 100 characters or more than one line.
    package static let invalidName = 2003
}
