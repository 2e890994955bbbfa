// Issue 63, case 7: the page names a change by its person. Which uids are named, and who saves
// the list file: the person listd runs as (its socket's owner), never a system account.
import Foundation
import Glibc
import Testing

@testable import ListWeb

struct PeopleNamesTests {
    @Test func askedUidsAreNamedFromTheUserDatabase() {
        #expect(PeopleNames.asked("0,65534,x,4294967296") == [0, 65_534])
        #expect(PeopleNames.asked(Array(repeating: "0", count: 100).joined(separator: ",")).count == PeopleNames.maximumAsked)
        #expect(PeopleNames.names(of: [0]) == ["0": "root"])
        #expect(PeopleNames.names(of: [4_000_000_000]).isEmpty, "a uid no account has is not named")
    }

    @Test func theFileIsSavedByThePersonListdRunsAsNotBySystemAccounts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("people-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/listd.sock"
        #expect(FileManager.default.createFile(atPath: socket, contents: nil))
        // Owned by a system account (root, or the user running the test when not root).
        if getuid() < PeopleNames.firstPersonUID {
            #expect(PeopleNames.fileAuthor(listdSocket: socket) == nil)
        }
        #expect(PeopleNames.fileAuthor(listdSocket: directory + "/missing.sock") == nil)
        // A person's account, when this machine has one and the test may give the file to it.
        setpwent()
        defer { endpwent() }
        while let entry = getpwent() {
            let uid = entry.pointee.pw_uid
            guard uid >= PeopleNames.firstPersonUID, uid != 65_534, getuid() == 0 else { continue }
            #expect(chown(socket, uid, entry.pointee.pw_gid) == 0)
            #expect(PeopleNames.fileAuthor(listdSocket: socket) == String(cString: entry.pointee.pw_name))
            return
        }
    }
}
