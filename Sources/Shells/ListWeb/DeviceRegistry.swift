// The devices paired with listd-web: who they are, the hashes of their tokens (kept in a file
// that only its owner reads), the pairing codes not yet used, and the pages each has open — so
// that a revoked device is cut off at once.
import DurableFiles
import Foundation
import NIOPosix
import ListWebProtocol
import Synchronization

/// What the device file keeps of one device (never its token).
struct DeviceRecord: Codable, Sendable, Hashable {
    var id: String
    var name: String
    var tokenSHA256: String
    var paired: String
    var lastSeen: String?
    /// Where the device keeps its token: `"page"` (its origin's storage, sent by the page
    /// itself). Absent for a device paired when the token was a cookie, which the browser sent
    /// to every port of the host: such a token may have leaked, and is refused.
    var keptIn: String?

    var paired_: PairedDevice { PairedDevice(id: id, name: name, paired: paired, lastSeen: lastSeen) }
}

/// A device a request was made from, once its token matched.
package struct Device: Sendable, Hashable {
    package let id: String
    package let name: String
}

package final class DeviceRegistry: Sendable {
    private struct State {
        var devices: [DeviceRecord]
        var codes = PairingCodes()
        var openPages: [UInt64: (deviceID: String, close: @Sendable () -> Void)] = [:]
        var nextPage: UInt64 = 0
    }

    private struct DeviceFile: Codable {
        var devices: [DeviceRecord]
    }

    /// The device file: `devices.json` in listd-web's state directory.
    package let path: String
    private let state: Mutex<State>
    /// Pages per device and in all.
    let limits: WebLimits

    /// The devices paired while tokens were cookies, forgotten when the file was read: each must
    /// be paired again (listd-web logs their names).
    package let pairAgain: [String]

    /// Reads the device file at `path` (none yet: no devices). Devices paired while the token was
    /// a cookie are dropped, and the file written without them.
    package init(path: String, limits: WebLimits = WebLimits()) throws(WebError) {
        self.path = path
        self.limits = limits
        var devices: [DeviceRecord] = []
        if FileManager.default.fileExists(atPath: path) {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                devices = try JSONDecoder().decode(DeviceFile.self, from: data).devices
            } catch {
                throw .deviceFileUnreadable(path: path, detail: "\(error)")
            }
        }
        let kept = devices.filter { Self.keptSafely.contains($0.keptIn ?? "") }
        pairAgain = devices.filter { !Self.keptSafely.contains($0.keptIn ?? "") }.map(\.name)
        if !pairAgain.isEmpty { try Self.write(kept, to: path) }
        state = Mutex(State(devices: kept))
    }

    static let keptInPage = "page"
    /// A CalDAV app password: the person typed it into a tasks app, which sends it (HTTP Basic)
    /// to this server only.
    static let keptInTasksApp = "caldav"
    static let keptSafely: Set<String> = [keptInPage, keptInTasksApp]

    /// Pairs a tasks app (CalDAV) called `deviceName` at once: its user name (the device's id)
    /// and its app password, shown once; only the password's SHA-256 is kept.
    package func pairTasksApp(deviceName: String) throws(WebError) -> (user: String, password: String, device: Device) {
        let password = DeviceTokens.random(byteCount: 18)
        let result: Result<Device, WebError> = state.withLock { state in
            if let taken = Self.device(named: deviceName, in: state.devices) { return .failure(.deviceNameTaken(taken.name)) }
            let ids = Set(state.devices.map(\.id))
            var id = DeviceTokens.random(byteCount: 6)
            while ids.contains(id) { id = DeviceTokens.random(byteCount: 6) }
            let record = DeviceRecord(
                id: id, name: deviceName, tokenSHA256: DeviceTokens.hash(password), paired: Date.now.ISO8601Format(),
                keptIn: Self.keptInTasksApp
            )
            let devices = state.devices + [record]
            do throws(WebError) {
                try Self.write(devices, to: path)
            } catch {
                return .failure(error)
            }
            state.devices = devices
            return .success(Device(id: id, name: deviceName))
        }
        let device = try result.get()
        return (device.id, password, device)
    }

    /// Whether any tasks app is paired.
    package var hasTasksApps: Bool { state.withLock { $0.devices.contains { $0.keptIn == Self.keptInTasksApp } } }

    /// The tasks app whose user name and app password these are, if it is paired (a page's token
    /// is no app password, nor the other way round).
    package func tasksApp(user: String, password: String) -> Device? {
        let hash = DeviceTokens.hash(password)
        return state.withLock { state in
            state.devices.first { $0.id == user && $0.keptIn == Self.keptInTasksApp && $0.tokenSHA256 == hash }
                .map { Device(id: $0.id, name: $0.name) }
        }
    }

    // MARK: Pairing

    /// A new one-time code for a device to be called `deviceName`. A name is one device's: its
    /// changes are told by it, and the page's Undo undoes the changes made under it.
    package func issueCode(deviceName: String) throws(WebError) -> String {
        let code = DeviceTokens.random(byteCount: 16)
        try state.withLock { state throws(WebError) in
            if let taken = Self.device(named: deviceName, in: state.devices) { throw .deviceNameTaken(taken.name) }
            state.codes.issue(code, deviceName: deviceName, now: .now)
        }
        return code
    }

    /// The paired device with this name, in any case or compatibility form (`DeviceNames.key`).
    private static func device(named name: String, in devices: [DeviceRecord]) -> DeviceRecord? {
        let key = DeviceNames.key(name)
        return devices.first { DeviceNames.key($0.name) == key }
    }

    /// What a pairing attempt came to.
    package enum Pairing: Sendable {
        /// The device, and its token (for the page to keep). The code cannot be used again.
        case paired(token: String, device: Device)
        /// `lockedOut`: this refusal was the client's last allowed wrong code.
        case refused(WebError, lockedOut: Bool)
    }

    /// Pairs the device that opened a link with `code`, sent from `client` (its address: wrong
    /// codes are counted per client).
    package func pair(code: String, client: String) -> Pairing {
        let token = DeviceTokens.random()
        var lockedOut = false
        let result: Result<Device, WebError> = state.withLock { state in
            let outcome = state.codes.redeem(code, client: client, now: .now)
            lockedOut = outcome.lockedOut
            switch outcome.redemption {
            case .tooManyAttempts: return .failure(.tooManyPairingAttempts)
            case .unknown: return .failure(.pairingCodeUnknown)
            case .expired: return .failure(.pairingCodeExpired)
            case .pair(let name):
                // Two links made for one name: the first opened pairs.
                if let taken = Self.device(named: name, in: state.devices) { return .failure(.deviceNameTaken(taken.name)) }
                var ids = Set(state.devices.map(\.id))
                var id = DeviceTokens.random(byteCount: 6)
                while ids.contains(id) { id = DeviceTokens.random(byteCount: 6) }
                ids.insert(id)
                let record = DeviceRecord(
                    id: id, name: name, tokenSHA256: DeviceTokens.hash(token), paired: Date.now.ISO8601Format(),
                    keptIn: Self.keptInPage
                )
                var devices = state.devices
                devices.append(record)
                do throws(WebError) {
                    try Self.write(devices, to: path)
                } catch {
                    return .failure(error)
                }
                state.devices = devices
                return .success(Device(id: id, name: name))
            }
        }
        switch result {
        case .success(let device): return .paired(token: token, device: device)
        case .failure(let error): return .refused(error, lockedOut: lockedOut)
        }
    }

    // MARK: Who is asking

    /// The device whose token this is, if it is paired.
    package func device(token: String) -> Device? {
        let hash = DeviceTokens.hash(token)
        return state.withLock { state in
            state.devices.first { $0.tokenSHA256 == hash && $0.keptIn == Self.keptInPage }.map { Device(id: $0.id, name: $0.name) }
        }
    }

    package func devices() -> [PairedDevice] {
        state.withLock { $0.devices.map(\.paired_) }
    }

    /// Notes that `device` connected now (shown by `listctl web devices`). Written at most once
    /// a minute per device: a phone that reconnects often does not rewrite the file each time.
    /// The write (an fsync, under the registry's lock) is made on NIO's thread pool, never on
    /// the event loop the request came on; most calls find it not due and return at once.
    package func seen(_ device: Device) async {
        guard seenIsDue(device, now: .now) else { return }
        try? await NIOThreadPool.singleton.runIfActive { self.recordSeen(device) }
    }

    /// Whether `device`'s last-seen time is a minute old or more.
    private func seenIsDue(_ device: Device, now: Date) -> Bool {
        state.withLock { state in
            guard let record = state.devices.first(where: { $0.id == device.id }) else { return false }
            guard let last = record.lastSeen, let lastDate = try? Date(last, strategy: .iso8601) else { return true }
            return now.timeIntervalSince(lastDate) >= 60
        }
    }

    private func recordSeen(_ device: Device) {
        let now = Date.now
        state.withLock { state in
            guard let index = state.devices.firstIndex(where: { $0.id == device.id }) else { return }
            if let last = state.devices[index].lastSeen,
                let lastDate = try? Date(last, strategy: .iso8601),
                now.timeIntervalSince(lastDate) < 60
            {
                return
            }
            var devices = state.devices
            devices[index].lastSeen = now.ISO8601Format()
            if (try? Self.write(devices, to: path)) != nil { state.devices = devices }
        }
    }

    // MARK: Revoking

    /// Forgets the device `reference` names (its id, else its name if only one has it), and
    /// closes its open pages.
    package func revoke(_ reference: String) throws(WebError) -> PairedDevice {
        let result: Result<(PairedDevice, [@Sendable () -> Void]), WebError> = state.withLock { state in
            let matches: [DeviceRecord]
            if let byID = state.devices.first(where: { $0.id == reference }) {
                matches = [byID]
            } else {
                matches = state.devices.filter { $0.name == reference }
            }
            guard let record = matches.first else { return .failure(.noSuchDevice(reference)) }
            guard matches.count == 1 else { return .failure(.ambiguousDevice(reference, ids: matches.map(\.id))) }
            let devices = state.devices.filter { $0.id != record.id }
            do throws(WebError) {
                try Self.write(devices, to: path)
            } catch {
                return .failure(error)
            }
            state.devices = devices
            let closers = state.openPages.values.filter { $0.deviceID == record.id }.map(\.close)
            return .success((record.paired_, closers))
        }
        let (revoked, closers) = try result.get()
        for close in closers { close() }
        return revoked
    }

    /// Whether a page may open.
    package enum PageOpening: Equatable, Sendable {
        /// Registered as this page.
        case opened(UInt64)
        /// The device was revoked meanwhile: the page must not go on.
        case revoked
        /// Too many pages open, of this device or in all: try again later.
        case full(String)
    }

    /// Registers a page `device` has open; `close` is called if the device is revoked.
    package func opened(by device: Device, close: @escaping @Sendable () -> Void) -> PageOpening {
        state.withLock { state in
            guard state.devices.contains(where: { $0.id == device.id }) else { return .revoked }
            guard state.openPages.count < limits.pages else {
                return .full("busy: listd-web has \(limits.pages) pages open, its most; trying again shortly.")
            }
            guard state.openPages.values.count(where: { $0.deviceID == device.id }) < limits.pagesPerDevice else {
                return .full("busy: this device has \(limits.pagesPerDevice) pages open, its most; close one.")
            }
            state.nextPage += 1
            state.openPages[state.nextPage] = (device.id, close)
            return .opened(state.nextPage)
        }
    }

    package func closed(_ page: UInt64) {
        _ = state.withLock { $0.openPages.removeValue(forKey: page) }
    }

    package var openPageCount: Int { state.withLock { $0.openPages.count } }

    /// Writes the device file anew, as listd writes its files (`FileIO.replace`: a temporary
    /// file, fsync, rename, fsync the directory — never half a file, and the rename survives a
    /// power cut), readable by its owner only.
    private static func write(_ devices: [DeviceRecord], to path: String) throws(WebError) {
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            data = try encoder.encode(DeviceFile(devices: devices)) + Data("\n".utf8)
            try FileManager.default.createDirectory(
                atPath: directoryName(of: path), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw .deviceFileUnwritable(path: path, detail: "\(error)")
        }
        do throws(FileIO.Failure) {
            try FileIO.replace(path, with: Array(data))
        } catch {
            throw .deviceFileUnwritable(path: path, detail: "\(error)")
        }
    }
}
