// Issue 61, case 2: another user on the machine makes /tmp/listd-UID (or /tmp/listd-web-UID)
// before its owner, who has no XDG_RUNTIME_DIR (su, cron, ssh without logind), and serves a fake
// listd there. The owner's listctl, listd and listd-web refuse the directory, naming it.
import Foundation
import Testing

private enum Squatting {
    static let need = "root and setpriv (to run listd and listctl as a user without XDG_RUNTIME_DIR, and squat as nobody)"
    static var canSwitch: Bool { getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0 }
}

@Suite(.offThePool, .serialized, .enabled(if: Requirement.runs(Squatting.canSwitch, needing: Squatting.need)))
struct RuntimeDirectoryTests {
    static let attacker: uid_t = 65_534

    /// A user of the test's own (no passwd entry needed): unique to this run, so that runs side by
    /// side do not share /tmp/listd-UID (the tests of this suite do: one at a time).
    let victim: uid_t = 200_000 + uid_t(getpid() % 100_000)
    let sandbox: Sandbox
    /// What the victim's programs see: no XDG_RUNTIME_DIR, no LISTD_SOCKET.
    var environment: [String: String] { ["HOME": sandbox.path, "PATH": "/usr/bin:/bin"] }

    init() throws {
        try Requirement.check(Squatting.canSwitch, needing: Squatting.need)
        sandbox = try Sandbox()
        #expect(chown(sandbox.path, victim, victim) == 0)
        for directory in ["/tmp/listd-\(victim)", "/tmp/listd-web-\(victim)"] { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// As the victim: `command` with its arguments.
    func asVictim(_ command: URL, _ arguments: [String]) -> [String] {
        ["--reuid=\(victim)", "--regid=\(victim)", "--clear-groups", "--", command.path] + arguments
    }

    /// The attacker's directory, open to all, with a fake server listening in it (nothing
    /// accepted, non-blocking: `connections()` says whether anyone connected).
    struct Squat {
        let directory: String
        let listener: Int32

        init(_ directory: String, socket name: String, mode: mode_t = 0o777, owner: uid_t = RuntimeDirectoryTests.attacker) throws {
            self.directory = directory
            guard mkdir(directory, mode) == 0, chmod(directory, mode) == 0, chown(directory, owner, owner) == 0 else {
                throw TestFailure("cannot make \(directory): errno \(errno)")
            }
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let path = directory + "/" + name
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(listener, 16) == 0, chmod(path, 0o777) == 0 else {
                throw TestFailure("cannot listen at \(path): errno \(errno)")
            }
        }

        /// Whether anyone connected to the fake.
        func connected() -> Bool {
            let accepted = accept(listener, nil, nil)
            if accepted >= 0 { close(accepted) }
            return accepted >= 0
        }

        func remove() {
            close(listener)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Runs a victim's command for at most 10 s (a client of the fake waits for an answer that
    /// never comes): its status (nil if it was still running) and what it said.
    func run(_ command: URL, _ arguments: [String]) throws -> (status: Int32?, output: String) {
        let child = try ChildProcess("/usr/bin/setpriv", asVictim(command, arguments), environment: environment, mergeOutput: true)
        let status = child.wait(timeout: 10)
        if status == nil { child.signal(SIGKILL) }
        child.wait()
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let flags = fcntl(child.stdout, F_GETFL)
        _ = fcntl(child.stdout, F_SETFL, flags | O_NONBLOCK)
        while case let count = read(child.stdout, &chunk, chunk.count), count > 0 { output += chunk[..<count] }
        return (status, String(decoding: output, as: UTF8.self))
    }

    @Test(.hangLimit(minutes: 2)) func aSquattedDirectoryIsRefusedByListctlAndListd() throws {
        let squat = try Squat("/tmp/listd-\(victim)", socket: "listd.sock")
        defer { squat.remove() }
        let add = try run(Binaries.listctl, ["add", "Groceries", "pin 4711 for the bank"])
        #expect(!squat.connected(), "listctl told the fake listd: \(add.output)")
        #expect(add.status == 3, "\(add)")
        #expect(add.output.contains("/tmp/listd-\(victim) belongs to another user (uid 65534)"), "\(add.output)")

        // listd does not serve in it either (with the fake gone, it would have bound there).
        unlink(squat.directory + "/listd.sock")
        let listd = try run(Binaries.listd, ["--file", sandbox.file])
        #expect(listd.status != nil && listd.status != 0, "\(listd)")
        #expect(listd.output.contains("/tmp/listd-\(victim) belongs to another user"), "\(listd.output)")
        #expect(access(squat.directory + "/listd.sock", F_OK) != 0, "listd made its socket in the squatted directory")
    }

    @Test(.hangLimit(minutes: 2)) func aDirectoryOfTheUsersOwnOpenToOthersIsRefused() throws {
        let open = try Squat("/tmp/listd-\(victim)", socket: "listd.sock", mode: 0o755, owner: victim)
        defer { open.remove() }
        let add = try run(Binaries.listctl, ["add", "Groceries", "milk"])
        #expect(!open.connected() && add.status == 3, "\(add)")
        #expect(add.output.contains("is open to other users (mode 755)"), "\(add.output)")
    }

    /// Without a squatter: listd makes the directory 0700 and listctl reaches it.
    @Test(.hangLimit(minutes: 2)) func aDirectoryListdMakesIsTheUsersAlone() throws {
        let directory = "/tmp/listd-\(victim)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let listd = try ChildProcess("/usr/bin/setpriv", asVictim(Binaries.listd, ["--file", sandbox.file]), environment: environment, mergeOutput: true)
        defer {
            listd.signal(SIGTERM)
            listd.wait()
        }
        let deadline = Date().addingTimeInterval(20)
        while access(directory + "/listd.sock", F_OK) != 0, Date() < deadline { usleep(20_000) }
        var info = stat()
        #expect(lstat(directory, &info) == 0 && info.st_uid == victim && info.st_mode & 0o777 == 0o700)
        let create = try run(Binaries.listctl, ["create", "Groceries", "milk"])
        #expect(create.status == 0, "\(create)")
    }

    @Test(.hangLimit(minutes: 2)) func aSquattedWebDirectoryIsRefusedByListdWebAndListctlWeb() throws {
        let squat = try Squat("/tmp/listd-web-\(victim)", socket: "control.sock")
        defer { squat.remove() }
        let pair = try run(Binaries.listctl, ["web", "pair", "Kitchen phone"])
        #expect(!squat.connected(), "listctl web pair asked the fake listd-web: \(pair.output)")
        #expect(pair.status == 3 && pair.output.contains("/tmp/listd-web-\(victim) belongs to another user"), "\(pair)")

        unlink(squat.directory + "/control.sock")
        let web = try run(Binaries.listdWeb, ["--listen", "127.0.0.1:0"])
        #expect(web.status != nil && web.status != 0, "\(web)")
        #expect(web.output.contains("/tmp/listd-web-\(victim) belongs to another user"), "\(web.output)")
        #expect(access(squat.directory + "/control.sock", F_OK) != 0, "listd-web made its control socket in the squatted directory")
    }
}
