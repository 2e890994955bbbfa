// `listctl web`: pair a phone with listd-web, list the paired devices, revoke one. These talk to
// listd-web's control socket, not to listd.
import ArgumentParser
import Glibc
import ListClientCore
import ListRPC
import ListWebProtocol
import ListdLocations

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Listctl {
    struct Web: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "web",
            abstract: "Pair phones with listd-web, list them, revoke one.",
            subcommands: [WebPair.self, WebDevices.self, WebRevoke.self]
        )
    }

    struct WebPair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair",
            abstract: "Print a one-time link (and its QR code) that pairs a phone.",
            discussion: "Open the link on the phone within five minutes; it works once. Every change the phone makes is shown with the name given here."
        )
        @OptionGroup var options: WebOptions
        @Flag(help: "Pair a tasks app (CalDAV: Apple Reminders, DAVx⁵ with Tasks.org, Thunderbird, Home Assistant) instead: print its server, user name and app password, once.")
        var caldav = false
        @Argument(help: "What the device is called (\"Kitchen phone\").") var name: String

        func run() throws {
            try options.withControl { control in
                if caldav {
                    let paired = try control.call(PairTasksApp.self, .init(name: name))
                    if options.json { return printJSON(paired) }
                    print("In the tasks app, add a CalDAV account with:")
                    print("")
                    print("  Server:    \(paired.server)")
                    print("  User name: \(paired.user)")
                    print("  Password:  \(paired.password)")
                    print("")
                    print("The password is shown this once. Each list is a task list there; every change the app")
                    print("makes is shown as “\(paired.device.name)”. Revoke it with: listctl web revoke \(paired.device.id)")
                    print("Guide: \(Self.calDAVGuide)")
                    return
                }
                let pairing = try control.call(PairDevice.self, .init(name: name))
                if options.json { return printJSON(pairing) }
                print("Open this on the device within \(pairing.validForSeconds / 60) minutes (it works once):")
                print("")
                print("  \(pairing.link)")
                print("")
                if let host = URLComponents(string: pairing.link)?.host, Self.isThisMachineOnly(host) {
                    // No QR code: no phone can open a link to its own loopback.
                    print("This link opens on this computer only (\(host)): a phone cannot open it.")
                    print("To pair a phone, serve listd-web over HTTPS on the network and give it --url: see")
                    print("web.md, “Phones on the household’s network” (\(Self.webGuide)).")
                    return
                }
                let qr = runCommand(["qrencode", "-t", "UTF8", "-m", "2", pairing.link], input: [])
                if qr.status == 0 {
                    print(qr.output, terminator: "")
                } else {
                    print("(Install qrencode to see a QR code here.)")
                }
                if pairing.link.hasPrefix("http://") {
                    print("Without HTTPS the page does not work offline: see web.md (\(Self.webGuide)).")
                }
            }
        }

        /// The guides, where the package installs them.
        static let webGuide = "/usr/share/doc/listd/web.md"
        static let calDAVGuide = "/usr/share/doc/listd/caldav.md"

        /// A loopback address or name: only this machine reaches it.
        static func isThisMachineOnly(_ host: String) -> Bool {
            let bare = host.filter { $0 != "[" && $0 != "]" }.lowercased()
            return bare == "localhost" || bare.hasSuffix(".localhost") || bare.hasPrefix("127.") || bare == "::1"
        }
    }

    struct WebDevices: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the paired devices.")
        @OptionGroup var options: WebOptions

        func run() throws {
            try options.withControl { control in
                let devices = try control.call(ListDevices.self, .init()).devices
                if options.json { return printJSON(devices) }
                if devices.isEmpty { return print("No device is paired. Pair one with: listctl web pair NAME") }
                let nameWidth = Columns.width(of: devices.map(\.name) + ["NAME"], leaving: 60)
                let idWidth = max(devices.map(\.id.count).max() ?? 0, 2)
                print(Columns.fitted("ID", to: idWidth) + "  " + Columns.fitted("NAME", to: nameWidth) + "  PAIRED                    LAST SEEN")
                for device in devices {
                    print(
                        Columns.fitted(device.id, to: idWidth) + "  " + Columns.fitted(device.name, to: nameWidth) + "  "
                            + Columns.fitted(device.paired, to: 24) + "  " + (device.lastSeen ?? "never")
                    )
                }
            }
        }
    }

    struct WebRevoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Unpair a device: its token stops working and its open pages close at once."
        )
        @OptionGroup var options: WebOptions
        @Argument(help: "The device's id or name (see listctl web devices).") var device: String

        func run() throws {
            try options.withControl { control in
                let revoked = try control.call(RevokeDevice.self, .init(device: device))
                if options.json { return printJSON(revoked) }
                print("Revoked \(revoked.name) (\(revoked.id)).")
            }
        }
    }
}

struct WebOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "listd-web's control socket (default: $LISTD_WEB_CONTROL, else $XDG_RUNTIME_DIR/listd-web/control.sock).",
            valueName: "path"
        ),
        completion: .file()
    )
    var controlSocket: String?

    @Flag(help: "Print JSON for scripts instead of text for people.")
    var json = false

    /// What to do when listd-web's control socket at `path` cannot be reached, for the setup
    /// this user is in: a household's (the system listd-web pairs phones as root), or their own.
    static func hint(unreached path: String) -> String {
        let household = "/run/listd-web/control.sock"
        let householdsListd = ListdPaths.systemSocket
        let inHousehold = path != household && getuid() != 0
            && (access(householdsListd, F_OK) == 0 || errno == EACCES) && access(householdsListd, W_OK) == 0
        if inHousehold {
            return """
                The household's lists are served by the system listd-web, whose phones are paired as root:
                `sudo listctl web pair NAME --control-socket \(household)` (and `sudo listctl web devices`, `revoke`, likewise).
                """
        }
        if getuid() == 0 {
            return "Start it with `systemctl enable --now listd-web` (or run `listd-web`), or point --control-socket at its control socket."
        }
        return "Start it with `systemctl --user enable --now listd-web` (or run `listd-web`), or point --control-socket at its control socket."
    }

    func withControl(_ body: (BlockingListClient) throws -> Void) throws {
        let path = ListdPaths.webControlSocket(option: controlSocket, environment: ProcessInfo.processInfo.environment)
        try Connection.checkRuntimeDirectory(of: path)
        do {
            try body(try BlockingListClient(socketPath: path))
        } catch let error as ListClientError {
            switch error {
            case .cannotConnect(_, let detail):
                writeError("listctl: cannot reach listd-web at \(path): \(detail).\n" + Self.hint(unreached: path))
                throw ExitCode(ListctlExit.unreachable.rawValue)
            case .protocolError(let refusal):
                writeError("listctl: \(refusal.message)")
                throw ExitCode(ListctlExit.denied.rawValue)
            case .denied(let denial):
                writeError("listctl: \(denial.message)")
                throw ExitCode(ListctlExit.denied.rawValue)
            default:
                writeError("listctl: \(error.description.replacing("listd ", with: "listd-web "))")
                throw ExitCode(ListctlExit.failed.rawValue)
            }
        }
    }
}
