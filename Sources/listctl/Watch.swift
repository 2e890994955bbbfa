import ArgumentParser
import Dispatch
import ListClientCore
import ListModel
import ListRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Listctl {
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Print every change to the lists as it happens, until interrupted.",
            discussion:
                "With --json, one JSON object per line: first {event: \"subscribed\", revision, lists}, then {event, revision, list, origin, changes} per change."
        )
        @OptionGroup var options: ConnectionOptions

        @Option(
            name: .customLong("list"),
            help: ArgumentHelp("Only changes to this list (name or id); repeatable.", valueName: "list")
        )
        var lists: [String] = []

        @Option(
            name: .customLong("event"),
            help: ArgumentHelp("Only this notification, e.g. didUpdateShoppingList; repeatable.", valueName: "event")
        )
        var events: [String] = []

        @Option(
            help: ArgumentHelp(
                "First print every change after this revision (from an earlier watch), then go on live.",
                valueName: "revision"
            )
        )
        var since: Int?

        @Flag(help: "Run COMMAND (after --) for each notification, with it as JSON on stdin, one at a time, in order.")
        var exec = false

        @Argument(
            parsing: .postTerminator,
            help: ArgumentHelp("With --exec: the command and its arguments, after --.", valueName: "command")
        )
        var command: [String] = []

        func validate() throws {
            if exec, command.isEmpty {
                throw ValidationError(
                    "--exec needs the command to run after --, for example: listctl watch --exec -- ./on-change.sh"
                )
            }
            if !exec, !command.isEmpty { throw ValidationError("A command after -- is run only with --exec.") }
            if exec, !canRun(command[0]) {
                throw ValidationError("cannot run “\(command[0])”: no such program in PATH, or it is not executable.")
            }
            for event in events where ListEventName(rawValue: event) == nil {
                let known = ListEventName.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("“\(event)” is not an event; listd sends \(known).")
            }
        }

        func run() throws {
            if exec { ignoreBrokenPipes() }
            try options.withClient { client in
                let snapshot = try client.call(
                    Subscribe.self,
                    .init(
                        events: events.isEmpty ? nil : events,
                        lists: lists.isEmpty ? nil : lists.map(reference),
                        since: since
                    )
                )
                if options.json {
                    // The starting point, so a script knows the state each change applies to.
                    printJSON(
                        SubscribedLine(
                            revision: snapshot.revision,
                            lists: snapshot.lists,
                            instance: snapshot.instance,
                            since: since
                        )
                    )
                } else if let since {
                    print("Watching from revision \(since) (now \(snapshot.revision)); Ctrl-C to stop.")
                } else {
                    print(
                        "Watching \(plural(snapshot.lists.count, "list")) from revision \(snapshot.revision); Ctrl-C to stop."
                    )
                }
                // --exec: one command at a time, in the order of the notifications, while reading
                // goes on (listd closes a subscriber that stops reading).
                let command = exec ? self.command : []
                let runs = DispatchQueue(label: "listctl.watch.exec")
                // Notifications that came before the reply to subscribe (replayed ones too) come
                // first, in order; every one goes the same way: to the command, as JSON, or as a
                // sentence.
                while let message = client.next() {
                    let line: any Encodable
                    let sentence: String
                    switch message {
                    case .event(let event): (line, sentence) = (WatchLine(event), describe(event))
                    case .fileRejection(let rejection):
                        (line, sentence) = (RejectionLine(rejection), describe(rejection))
                    case .question, .delegateDropped: continue
                    }
                    if !command.isEmpty {
                        let input = Array(jsonData(line))
                        runs.async {
                            // Its output is the watch's output.
                            let (status, _) = runCommand(command, input: input, captureOutput: false)
                            if status != 0 { writeError("listctl: \(command[0]) exited with status \(status)") }
                        }
                    } else if options.json {
                        printJSON(line)
                    } else {
                        print(sentence)
                    }
                }
                runs.sync {}  // every notification received is handled before listctl stops
                writeError("listctl: listd closed the connection.")
                throw ExitCode(ListctlExit.failed.rawValue)
            }
        }
    }
}

/// The first `watch --json` line.
private struct SubscribedLine: Encodable {
    var event = "subscribed"
    var revision: Revision
    var lists: [ShoppingList]
    var instance: String?
    /// With --since: the changes after this revision come first.
    var since: Revision?
}

/// One `watch --json` line.
private struct WatchLine: Encodable {
    var event: String
    var revision: Revision
    var list: ShoppingList
    var origin: ChangeOrigin
    var changes: [ListChange.Step]

    init(_ event: ListEvent) {
        self.event = event.name.rawValue
        self.revision = event.revision
        self.list = event.list
        self.origin = event.origin
        self.changes = event.changes
    }
}

/// `#12 Groceries: added “milk” (by listctl (pid 4242, uid 1000))`
func describe(_ event: ListEvent) -> String {
    let what: String
    switch event.name {
    case .didCreateShoppingList:
        what = "created with \(plural(event.list.items.count, "item"))"
    case .didDeleteShoppingList:
        what = "deleted"
    case .didRejectFileEdit, .didDenyChange:
        what = "not taken"
    case .didRenameShoppingList, .didUpdateShoppingList:
        what = event.changes.map { step in
            switch step {
            case .add(let item): "added “\(item)”"
            case .remove(let item): "removed “\(item)”"
            case .replace(let item, let with): "replaced “\(item)” with “\(with)”"
            case .rename(let from, _): "renamed from \(from)"
            case .move(let item, let index): "moved “\(item)” to place \(index + 1)"
            }
        }.joined(separator: ", ")
    }
    return "#\(event.revision) \(event.list.name): \(what) (by \(event.origin))"
}

/// A `didRejectFileEdit` as `watch --json` prints it.
private struct RejectionLine: Encodable {
    var event = ListEventName.didRejectFileEdit.rawValue
    var reason: String
    var message: String
    var lines: [FileRejectionParams.RejectedLine]
    var byteOffset: Int?

    init(_ rejection: FileRejectionParams) {
        reason = rejection.reason
        message = rejection.message
        lines = rejection.lines
        byteOffset = rejection.byteOffset
    }
}

/// `List file edit not taken: line 4: “milk” is already on Groceries.` (one line per rejected line)
func describe(_ rejection: FileRejectionParams) -> String {
    if rejection.lines.isEmpty { return "List file edit not taken: \(rejection.message)" }
    return rejection.lines.map { "List file edit not taken: line \($0.line): \($0.message)" }.joined(separator: "\n")
}
