// Which listd a client talks to (issue 50): the one it is told, else the user's own, else — for a
// member of the household's group with no listd of their own — the household's.
import Glibc
import ListdLocations
import Testing

@Suite struct ClientSocketTests {
    let own = "/run/user/1000/listd/listd.sock"
    let household = ListdPaths.systemSocket

    func socket(option: String? = nil, env: [String: String] = ["XDG_RUNTIME_DIR": "/run/user/1000"], there: Set<String>, usable: Set<String>) -> String {
        ListdPaths.clientSocket(option: option, variable: { env[$0] }, isThere: there.contains, mayUse: usable.contains)
    }

    @Test func aMemberWithNoListdOfTheirOwnReachesTheHouseholds() {
        #expect(socket(there: [household], usable: [household]) == household)
    }

    @Test func theirOwnListdComesFirstAndWhatTheyNameAlways() {
        #expect(socket(there: [own, household], usable: [own, household]) == own)
        #expect(socket(option: "/tmp/x.sock", there: [household], usable: [household]) == "/tmp/x.sock")
        #expect(socket(env: ["XDG_RUNTIME_DIR": "/run/user/1000", "LISTD_SOCKET": "/tmp/y.sock"], there: [household], usable: [household]) == "/tmp/y.sock")
    }

    @Test func aHouseholdListdTheyMayNotUseIsNotChosen() {
        // Not (yet) in the group: their own path, whose error then points at the group.
        #expect(socket(there: [household], usable: []) == own)
        #expect(socket(there: [], usable: []) == own)
    }
}

/// Which runtime directories listd, listctl and listd-web make or check as the user's own
/// (issue 61, case 2): the defaults only, never the household's or a path a person chose.
@Suite struct PrivateRuntimeDirectoryTests {
    func directory(_ socket: String, _ env: [String: String]) -> String? {
        ListdPaths.privateRuntimeDirectory(ofSocket: socket, environment: env)
    }

    @Test func theDefaultsAreTheUsersOwn() {
        let xdg = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(directory("/run/user/1000/listd/listd.sock", xdg) == "/run/user/1000/listd")
        #expect(directory("/run/user/1000/listd-web/control.sock", xdg) == "/run/user/1000/listd-web")
        if getuid() != 0 {
            #expect(directory("/tmp/listd-\(getuid())/listd.sock", [:]) == "/tmp/listd-\(getuid())")
            #expect(directory("/tmp/listd-web-\(getuid())/control.sock", [:]) == "/tmp/listd-web-\(getuid())")
        }
    }

    @Test func theHouseholdsAndAChosenPathAreNot() {
        #expect(directory(ListdPaths.systemSocket, [:]) == nil)
        #expect(directory(ListdPaths.systemWebControlSocket, [:]) == nil)
        #expect(directory("/tmp/x.sock", ["XDG_RUNTIME_DIR": "/run/user/1000"]) == nil)
        #expect(directory("/srv/lists/listd.sock", [:]) == nil)
    }
}
