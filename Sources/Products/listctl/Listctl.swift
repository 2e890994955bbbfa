import ArgumentParser
import Glibc
import ListClientCore
import ListModel
import ListRPC
import ListdLocations

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

struct Listctl: ParsableCommand {
    // Every command names itself (commandName): left out, ArgumentParser derives the name from
    // the type's description, and the dynamic casts that takes scan every protocol conformance
    // in the binary at each start (a quarter of `listctl add`'s CPU time, seen with perf).
    static let configuration = CommandConfiguration(
        commandName: "listctl",
        abstract: "Read and edit the shopping lists that listd keeps.",
        discussion: """
            Every edit is confirmed or denied by listd. Exit status: 0 all confirmed, 1 something \
            denied (the reason is on stderr), 2 usage error, 3 listd cannot be reached, 4 any other \
            failure. Shell completions: listctl --generate-completion-script bash|zsh|fish.

            Which listd: --socket, else LISTD_SOCKET, else your own \
            ($XDG_RUNTIME_DIR/listd/listd.sock; /run/listd/listd.sock for root), else, when you \
            have none, the household's /run/listd/listd.sock if you may use it. An error names \
            the socket it tried.
            """,
        version: ListdVersion.current,
        subcommands: [
            Lists.self, Show.self, Create.self, Rename.self, Delete.self,
            Add.self, Replace.self, Remove.self, Check.self, Uncheck.self, Clear.self, Move.self, Section.self, Amount.self,
            Log.self, UndoChange.self,
            Watch.self, Delegate.self, Web.self,
        ]
    )
}

/// Options every subcommand takes.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "listd's socket (default: $LISTD_SOCKET, else your own listd's, $XDG_RUNTIME_DIR/listd/listd.sock — without XDG_RUNTIME_DIR, /run/listd/listd.sock for root, /tmp/listd-UID/listd.sock for others; when you have none, the household's /run/listd/listd.sock if you may use it).",
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    @Flag(help: "Print JSON for scripts instead of text for people.")
    var json = false

    /// The options as plain values (what the commands run on; the quick path makes one too).
    var connection: Connection { Connection(socket: socket, json: json) }

    var socketPath: String { connection.socketPath }

    func withClient(brief: Bool = false, _ body: (BlockingListClient) throws -> Void) throws {
        try connection.withClient(brief: brief, body)
    }

    func report(_ denial: ListDenial) {
        connection.report(denial)
    }
}

/// What an edit may say besides its params, for scripts that run again: `--edit-id`.
struct EditOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Your own id for this edit (1 to 200 bytes, e.g. weekly-2026-48): run again with the same id, it is done once. With several items, each is sent as ID/ITEM.",
            valueName: "id"
        )
    )
    var editId: String?

    /// What the edit of `item` (one of `count`) says with the id given: the id itself for one
    /// item, `ID/item` for each of several.
    static func provenance(_ editId: String, item: String, of count: Int) -> EditProvenance {
        EditProvenance(editId: count == 1 ? editId : "\(editId)/\(ListText.key(item))")
    }
}

/// Where listd is and how to print: `--socket` and `--json` as given, with what every command
/// does with them (connect, report a failure with listctl's exit status).
struct Connection {
    var socket: String?
    var json: Bool

    var socketPath: String {
        // Each variable read with getenv: Foundation's ProcessInfo copies the whole environment,
        // which costs a one-shot process more than its request.
        ListdPaths.clientSocket(option: socket) { name in getenv(name).map { String(cString: $0) } }
    }

    /// Connects, runs `body`, and turns connection and protocol failures into listctl's exit
    /// statuses with a message on stderr.
    /// - Parameter brief: a brief connection (confirms without the list's items).
    func withClient(brief: Bool = false, _ body: (BlockingListClient) throws -> Void) throws {
        let socketPath = self.socketPath
        try Self.checkRuntimeDirectory(of: socketPath)
        do {
            try body(try BlockingListClient(socketPath: socketPath, name: "listctl", brief: brief))
        } catch let error as ListClientError {
            throw exit(for: error)
        }
    }

    /// Connects again after listd went away, waiting 50 ms after the first try and doubling up
    /// to a second: listd restarting (or its socket unit) takes that long. Exits with status 3
    /// when the runtime directory is no longer safe (checked each time: another user may have
    /// taken it while listd was away).
    func reconnect(brief: Bool) -> BlockingListClient {
        var delay = Duration.milliseconds(50)
        while true {
            if (try? Self.checkRuntimeDirectory(of: socketPath)) == nil { Glibc.exit(ListctlExit.unreachable.rawValue) }
            if let client = try? BlockingListClient(socketPath: socketPath, name: "listctl", brief: brief) {
                return client
            }
            let (seconds, attoseconds) = delay.components
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
            delay = min(delay * 2, .seconds(1))
        }
    }

    /// Connects to nothing in a runtime directory of the user's that another user made or can
    /// enter (/tmp/listd-UID without XDG_RUNTIME_DIR): says why, exit status 3 (unreachable).
    static func checkRuntimeDirectory(of socketPath: String) throws {
        do {
            try ListdPaths.checkBeforeConnecting(to: socketPath) { name in getenv(name).map { String(cString: $0) } }
        } catch {
            writeError("listctl: \(error)")
            throw ExitCode(ListctlExit.unreachable.rawValue)
        }
    }

    /// Says what went wrong on stderr and returns the exit status that tells it.
    private func exit(for error: ListClientError) -> ExitCode {
        switch error {
        case .cannotConnect(let path, _) where SocketAccess.refusal(at: path) != nil:
            writeError(SocketAccess.refusal(at: path)!)
            return ExitCode(ListctlExit.unreachable.rawValue)
        case .cannotConnect(let path, let detail):
            writeError("listctl: cannot reach listd at \(path): \(detail).\n" + Self.hint(unreached: path))
            return ExitCode(ListctlExit.unreachable.rawValue)
        case .denied(let denial):
            report(denial)
            return ExitCode(ListctlExit.denied.rawValue)
        default:
            writeError("listctl: \(error)")
            return ExitCode(ListctlExit.failed.rawValue)
        }
    }

    /// What to do when `path` cannot be reached, for the setup this user is in: a household's
    /// listd they may not use yet (join its group), one they may use (name it), or none.
    static func hint(unreached path: String) -> String {
        let household = ListdPaths.systemSocket
        // There, or behind a directory this user may not enter (the group's own).
        if path != household, access(household, F_OK) == 0 || errno == EACCES {
            if let refusal = SocketAccess.refusal(at: household) {
                return "The household's lists are served at \(household):\n" + String(refusal.hasPrefix("listctl: ") ? refusal.dropFirst("listctl: ".count) : refusal[...])
            }
            return "The household's lists are served at \(household): use them with LISTD_SOCKET=\(household) (or --socket \(household))."
        }
        if getuid() == 0 {
            // Root's own listd is the system one.
            return "Start it with `systemctl enable --now listd.socket` (or run `listd`), or point --socket or LISTD_SOCKET at its socket."
        }
        return "Start it with `systemctl --user start listd.socket` (or run `listd`), or point --socket or LISTD_SOCKET at its socket."
    }

    func report(_ denial: ListDenial) {
        if json {
            printJSON(DenialOutput(denial))
        }
        writeError("listctl: denied: \(denial.message)")
    }
}

/// A deny as --json prints it.
struct DenialOutput: Encodable {
    struct Denied: Encodable {
        var reason: String
        var message: String
        var code: Int
    }

    var denied: Denied

    init(_ denial: ListDenial) {
        denied = Denied(reason: denial.reason.rawValue, message: denial.message, code: denial.code)
    }
}

func jsonData(_ value: some Encodable) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var data = (try? encoder.encode(value)) ?? Data()
    data.append(0x0A)
    return data
}

func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if let data = try? encoder.encode(value), let text = String(data: data, encoding: .utf8) {
        print(text)
    }
}

/// How a list is named on the command line: by its name, sent as one. listd reads digits that
/// name no list as an id, so a list called "2026" and the list with id 3 can both be given.
func reference(_ text: String) -> ListReference {
    .name(text)
}

func plural(_ count: Int, _ noun: String) -> String {
    "\(StepsText.thousands(count)) \(noun)\(count == 1 ? "" : "s")"
}

/// `word` as a shell reads it back: as it is when it is plain, else in single quotes.
func shellWord(_ word: String) -> String {
    let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./,:@+".contains($0) }
    return plain ? word : "'" + word.replacing("'", with: "'\\''") + "'"
}
