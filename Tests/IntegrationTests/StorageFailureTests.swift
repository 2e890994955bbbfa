import Foundation
import Glibc
import Testing

/// The disk under listd's files fills up (powercutfs answers ENOSPC): edits are denied
/// `storageFailed`, nothing of them is applied, notified or kept, listctl says why; once there is
/// room again edits are confirmed, and a restart finds exactly the confirmed ones.
@Suite(
    .offThePool,
    .enabled(
        if: Requirement.runs(
            PowerCutFileSystem.isAvailable,
            needing: PowerCutFileSystem.need
        )
    )
)
struct StorageFailureTests {
    @Test func aFullDiskDeniesEditsWithStorageFailedAndLosesNothing() throws {
        try Requirement.check(PowerCutFileSystem.isAvailable, needing: PowerCutFileSystem.need)
        let sandbox = try Sandbox()
        let fs = try PowerCutFileSystem(holdingListFileOf: sandbox)
        defer { try? fs.unmount() }
        try fs.mount()
        let daemon = try Daemon.start(in: sandbox)
        defer { daemon.kill() }
        let client = try LineConnection(path: sandbox.socket)
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe")
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        #expect(try subscriber.readObject()["method"] as? String == "didCreateShoppingList")

        fs.fillDisk()
        let denied = try client.error("addItem", ["list": "Groceries", "item": "eggs"])
        #expect(denied["code"] as? Int == 1100)
        #expect((denied["data"] as? [String: Any])?["reason"] as? String == "storageFailed")
        let message = denied["message"] as? String ?? ""
        #expect(message.contains("The change was not saved"), "\(message)")
        #expect(message.contains(".lists.md.listd-log") && message.contains("No space left on device"), "\(message)")
        let run = try listctl(["add", "Groceries", "bread"], socket: sandbox.socket)
        #expect(run.status == 1, "a denial: \(run.stderr)")
        #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")
        #expect(try client.result("getList", ["list": "Groceries"])["items"] as? [String] == ["milk"])

        fs.freeDisk()
        #expect(
            try client.result("addItem", ["list": "Groceries", "item": "tea"])["items"] as? [String] == ["milk", "tea"]
        )
        // Neither denied edit was notified: the next notification is the confirmed one's, then
        // nothing before a marker.
        let next = try subscriber.readObject()
        #expect(
            ((next["params"] as? [String: Any])?["list"] as? [String: Any])?["items"] as? [String] == ["milk", "tea"]
        )
        try subscriber.expectNothingBeforeMarker(
            { _ = try client.result("addItem", ["list": "Groceries", "item": "fence"]) },
            isMarker: listHolds("fence")
        )
        #expect(daemon.logShows("No space left on device"))

        daemon.kill()
        try daemon.start()
        #expect(
            try LineConnection(path: sandbox.socket).result("getList", ["list": "Groceries"])["items"] as? [String]
                == ["milk", "tea", "fence"]
        )
    }
}
