import Foundation
import Glibc
import Testing

/// Tab completion as bash does it: listctl's generated script, loaded into a real bash, asked
/// for the words of a command line; list names and items come from the running listd.
@Suite(.offThePool) struct CompletionTests {
    /// What bash offers at the end of `line` (candidates joined with `|`), with listctl's
    /// completion script loaded as bash-completion would.
    private func completions(_ line: String) throws -> Run {
        let script = try ChildProcess.run(Binaries.listctl.path, ["--generate-completion-script", "bash"])
        #expect(script.status == 0, "\(script.stderr)")
        // One file per call: the tests of this suite run at once.
        let path = NSTemporaryDirectory() + "listctl-completion-\(UUID().uuidString).bash"
        try script.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let driver = """
            source "$1"
            COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<<"$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            _listctl listctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            IFS='|'; echo "${COMPREPLY[*]}"
            """
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = Binaries.directory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment.removeValue(forKey: "LISTD_SOCKET")
        // A completion that never returns ends here (status 124) instead of holding the test.
        return try ChildProcess.run(
            "/usr/bin/timeout",
            ["10", "/bin/bash", "-c", driver, "bash", path, line],
            environment: environment
        )
    }

    @Test func listNamesAndItemsComeFromTheRunningListd() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        #expect(try listctl(["create", "Groceries", "milk", "oat milk", "eggs"], socket: socket).status == 0)
        #expect(try listctl(["create", "Garden"], socket: socket).status == 0)

        #expect(try completions("listctl show --socket \(socket) Gr").stdout == "Groceries\n")
        #expect(try completions("listctl add --socket \(socket) ").stdout == "Groceries|Garden\n")
        #expect(
            try completions("listctl remove --socket \(socket) Groceries ").stdout
                == "milk|oat milk|eggs\n"
        )
        #expect(try completions("listctl replace --socket \(socket) Groceries o").stdout == "oat milk\n")
        // A list named by id, and the socket given as --socket=PATH.
        #expect(try completions("listctl remove --socket=\(socket) 1 e").stdout == "eggs\n")
    }

    @Test func sectionNamesComeFromTheRunningListd() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        #expect(try listctl(["create", "Groceries"], socket: socket).status == 0)
        #expect(try listctl(["add", "Groceries", "milk", "--section", "Dairy"], socket: socket).status == 0)
        #expect(try listctl(["section", "add", "Groceries", "Bakery"], socket: socket).status == 0)
        #expect(try completions("listctl move --socket \(socket) Groceries milk --section ").stdout == "Dairy|Bakery\n")
        #expect(try completions("listctl section rename --socket \(socket) Groceries B").stdout == "Bakery\n")
        #expect(try completions("listctl section remove --socket \(socket) Groceries ").stdout == "Dairy|Bakery\n")
    }

    @Test func withoutListdThereIsNothingToOfferAndNothingSaid() throws {
        let sandbox = try Sandbox()
        let run = try completions("listctl show --socket \(sandbox.socket) Gr")
        #expect(run.status == 0)
        #expect(run.stdout == "\n")
        #expect(run.stderr == "")
    }

    /// A socket that takes the connection and never answers (a hung listd): listctl gives up
    /// after its half-second limit instead of holding the shell.
    @Test func aListdThatDoesNotAnswerHoldsNothingUp() throws {
        let sandbox = try Sandbox()
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(sandbox.socket.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0 && listen(listener, 8) == 0, "a socket that never answers")
        let run = try completions("listctl show --socket \(sandbox.socket) Gr")
        #expect(run.status == 0, "the completion did not return: status \(run.status)")
        #expect(run.stdout == "\n")
        #expect(run.stderr == "")
    }

    /// Issue 26, item 14: the values of --list, --event, --question and --on-timeout.
    @Test func optionValuesAreOffered() throws {
        let daemon = try Daemon.start()
        let socket = daemon.sandbox.socket
        #expect(try listctl(["create", "Groceries"], socket: socket).status == 0)
        #expect(try listctl(["create", "Garden"], socket: socket).status == 0)
        #expect(try completions("listctl watch --socket \(socket) --list ").stdout == "Groceries|Garden\n")
        #expect(try completions("listctl delegate --socket \(socket) --list Gr").stdout == "Groceries\n")
        #expect(try completions("listctl watch --event didU").stdout == "didUpdateShoppingList\n")
        #expect(try completions("listctl delegate --question shouldR").stdout == "shouldRename|shouldReplace|shouldRemove\n")
        #expect(try completions("listctl delegate --on-timeout ").stdout == "allow|deny\n")
    }
}
