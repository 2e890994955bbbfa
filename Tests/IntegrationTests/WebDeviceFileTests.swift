// listd-web's device file on a disk that loses power: it is replaced as listd replaces its own
// files (DurableFiles' `FileIO.replace`), so a phone told it is paired is still paired after the
// power comes back.
import Foundation
import Glibc
import Testing

@Suite(.offThePool) struct WebDeviceFileTests {
    /// The power goes right after the device file's rename, before its directory is synced:
    /// the pairing is either refused (the directory's sync fails with the power gone) or, once
    /// answered "paired", kept. Before, listd-web renamed without syncing the directory and
    /// answered "paired" for a device the disk then did not have.
    @Test(.hangLimit(minutes: 2))
    func aPhoneToldItIsPairedIsPairedAfterAPowerCut() throws {
        try Requirement.check(PowerCutFileSystem.isAvailable, needing: PowerCutFileSystem.need)
        let daemon = try Daemon.start()
        let disk = try Sandbox()
        let fs = try PowerCutFileSystem(in: disk.path)
        defer { try? fs.unmount() }
        let devices = fs.mountpoint + "/listd-web/devices.json"

        // A first phone, paired on a disk with its power on: the device file exists.
        try fs.mount()
        var web = try WebServer(daemon.sandbox, devices: devices)
        let first = try web.pair("Hall tablet")
        _ = web.stop()
        try fs.unmount()

        try fs.mount(cut: .afterRename("devices.json"))
        web = try WebServer(daemon.sandbox, devices: devices)
        let told = try? web.pair("Kitchen phone")
        let reason = try fs.waitForCut()
        #expect(reason.contains("rename"), "the power went at the device file's rename: \(reason)")
        _ = web.stop()
        try fs.unmount()

        try fs.mount()
        web = try WebServer(daemon.sandbox, devices: devices)
        defer { _ = web.stop() }
        func paired(_ token: String) throws -> Bool {
            try HTTP.request(port: web.port, "GET", "/whoami", headers: ["Authorization": "Bearer \(token)"]).status == 200
        }
        #expect(try paired(first), "the phone paired before the cut")
        if let told {
            #expect(try paired(told), "a phone told it is paired is paired after the power cut")
        }
    }
}
