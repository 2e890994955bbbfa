import ArgumentParser
import ListClient
import ListModel
import ListRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Listctl {
    struct Watch: AsyncParsableCommand {
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
            for event in events where ListEventName(rawValue: event) == nil {
                let known = ListEventName.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("“\(event)” is not an event; listd sends \(known).")
            }
        }

        func run() async throws {
            try await options.withClient { client in
                let json = options.json
                // --exec: one command at a time, in the order of the notifications.
                let (actions, queue) = AsyncStream.makeStream(of: Data.self)
                let command = exec ? self.command : []
                let runner = Task {
                    for await input in actions {
                        let (status, _) = await runCommand(command, input: input)
                        if status != 0 { writeError("listctl: \(command[0]) exited with status \(status)") }
                    }
                }
                defer {
                    queue.finish()
                    runner.cancel()
                }
                // Notifications (replayed ones too) may arrive before `subscribe` returns: they
                // wait here, in order, until the first line is out; the stream ends with the
                // connection.
                let (notifications, sink) = AsyncStream.makeStream(
                    of: (line: any Encodable & Sendable, sentence: String).self
                )
                client.on { event in sink.yield((WatchLine(event), describe(event))) }
                client.onFileRejection { rejection in sink.yield((RejectionLine(rejection), describe(rejection))) }
                let connection = client.events()
                Task {
                    for await _ in connection {}
                    sink.finish()
                }
                let snapshot = try await client.subscribe(
                    events: events.isEmpty ? nil : events.compactMap(ListEventName.init(rawValue:)),
                    lists: lists.isEmpty ? nil : lists.map(reference),
                    since: since
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
                // Every notification goes the same way: to the command, as JSON, or as a sentence.
                for await (line, sentence) in notifications {
                    if !command.isEmpty {
                        queue.yield(jsonData(line))
                    } else if json {
                        printJSON(line)
                    } else {
                        print(sentence)
                    }
                }
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
private struct WatchLine: Encodable, Sendable {
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
            }
        }.joined(separator: ", ")
    }
    return "#\(event.revision) \(event.list.name): \(what) (by \(event.origin))"
}

/// A `didRejectFileEdit` as `watch --json` prints it.
private struct RejectionLine: Encodable, Sendable {
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
