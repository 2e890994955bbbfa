import ArgumentParser
import Dispatch
import Glibc
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
            help: ArgumentHelp("Only changes to this list (name or id); repeatable.", valueName: "list"),
            completion: ListCompletion.listNames
        )
        var lists: [String] = []

        @Option(
            name: .customLong("event"),
            help: ArgumentHelp("Only this notification, e.g. didUpdateShoppingList; repeatable.", valueName: "event"),
            completion: .list(ListEventName.allCases.map(\.rawValue))
        )
        var events: [String] = []

        @Option(
            help: ArgumentHelp("Only changes made by others, or by mine (your user's listctl); default: any.", valueName: "any|mine|others"),
            completion: .list(OriginFilter.allCases.map(\.rawValue))
        )
        var origin: String?

        @Option(
            name: .customLong("step"),
            help: ArgumentHelp("Only changes with a step of this kind, e.g. add or check; repeatable.", valueName: "kind"),
            completion: .list(ListChange.Step.Kind.allCases.map(\.rawValue))
        )
        var steps: [String] = []

        @Option(
            help: ArgumentHelp(
                "First print every change after this revision (from an earlier watch), then go on live.",
                valueName: "revision"
            )
        )
        var since: Int?

        @Flag(help: "Run COMMAND (after --) for each notification, with it as JSON on stdin, one at a time, in order.")
        var exec = false

        @Flag(help: "Exit with status 4 when listd goes away, instead of reconnecting and resuming.")
        var noReconnect = false

        @Flag(help: "Name every step of a large change, not a count of each kind.")
        var verbose = false

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
            if let origin, OriginFilter(rawValue: origin) == nil {
                throw ValidationError("“\(origin)” is not an origin; say any, mine or others.")
            }
            for step in steps where ListChange.Step.Kind(rawValue: step) == nil {
                let known = ListChange.Step.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("“\(step)” is not a step kind; they are \(known).")
            }
            for event in events where ListEventName(rawValue: event) == nil {
                let known = ListEventName.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("“\(event)” is not an event; listd sends \(known).")
            }
        }

        func run() throws {
            if exec {
                ignoreBrokenPipes()
                endCommandsWithListctl()
            }
            // --exec: one command at a time, in the order of the notifications, while reading
            // goes on (listd closes a subscriber that stops reading).
            let command = exec ? self.command : []
            let runs = DispatchQueue(label: "listctl.watch.exec")
            // A brief connection: each change is told with its steps and the list's name, never
            // the whole list again (a paste of 10,000 lines would print the list 10,000 times).
            try options.withClient(brief: true) { first in
                var client = first
                var resume = Resume(since: since, instance: nil, first: true)
                while true {
                    try watch(client, resume: &resume, command: command, runs: runs)
                    runs.sync {}  // every notification received is handled before going on
                    guard !noReconnect else {
                        writeError("listctl: listd closed the connection.")
                        throw ExitCode(ListctlExit.failed.rawValue)
                    }
                    writeError(
                        "listctl: listd closed the connection; reconnecting to resume after revision \(resume.since ?? 0)."
                    )
                    client = options.connection.reconnect(brief: true)
                }
            }
        }

        /// Where a watch goes on from after a reconnect: the last revision it handled, and the
        /// instance that revision belongs to.
        struct Resume {
            var since: Revision?
            var instance: String?
            var first: Bool
        }

        /// Subscribes (from `resume`) and handles notifications until listd closes the connection.
        private func watch(
            _ client: BlockingListClient,
            resume: inout Resume,
            command: [String],
            runs: DispatchQueue
        ) throws {
            let snapshot = try client.call(
                Subscribe.self,
                .init(
                    events: events.isEmpty ? nil : events,
                    lists: lists.isEmpty ? nil : lists.map(reference),
                    since: resume.since,
                    instance: resume.instance,
                    origin: origin,
                    steps: steps.isEmpty ? nil : steps
                )
            )
            if resume.first {
                printHeader(snapshot)
                resume.first = false
            }
            resume.instance = snapshot.instance
            if resume.since == nil { resume.since = snapshot.revision }
            // Notifications that came before the reply to subscribe (replayed ones too) come
            // first, in order; every one goes the same way: to the command, as JSON, or as a
            // sentence.
            while let message = client.next() {
                let line: any Encodable
                let sentence: String
                switch message {
                case .briefEvent(let name, let change):
                    (line, sentence) = (BriefWatchLine(name, change), describe(name, change, verbose: verbose))
                    resume.since = max(resume.since ?? 0, change.revision)
                case .fileRejection(let rejection):
                    (line, sentence) = (RejectionLine(rejection), describe(rejection))
                case .denial(let denial):
                    (line, sentence) = (DenialLine(denial), describe(denial))
                case .delegatesChanged(let missing):
                    (line, sentence) = (DelegatesLine(missing), describe(missing))
                case .question, .delegateDropped, .event: continue  // a whole change: not sent on a brief connection
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
        }

        private func printHeader(_ snapshot: ListsSnapshot) {
            if options.json {
                // The starting point, so a script knows the state each change applies to.
                printJSON(
                    SubscribedLine(revision: snapshot.revision, lists: snapshot.lists, instance: snapshot.instance, since: since)
                )
            } else if let since {
                print("Watching from revision \(since) (now \(snapshot.revision)); Ctrl-C to stop.")
            } else {
                print("Watching \(plural(snapshot.lists.count, "list")) from revision \(snapshot.revision); Ctrl-C to stop.")
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

/// One `watch --json` line of a brief connection: the list's summary, not its items (a created
/// list's items are in `items`).
private struct BriefWatchLine: Encodable {
    var event: String
    var revision: Revision
    var list: ListSummary
    var origin: ChangeOrigin
    var changes: [ListChange.Step]
    var items: [String]?
    var undoes: Revision?

    init(_ name: ListEventName, _ change: BriefChangeParams) {
        self.event = name.rawValue
        self.revision = change.revision
        self.list = change.list
        self.origin = change.origin
        self.changes = change.changes.compactMap(\.step)
        self.items = change.items
        self.undoes = change.undoes
    }
}

/// A change as `watch` prints it: `#12 Groceries: added “milk” (by listctl (pid 4242, uid 1000))`.
func describe(_ name: ListEventName, _ change: BriefChangeParams, verbose: Bool = false) -> String {
    let what: String
    switch name {
    case .didCreateShoppingList:
        what = "created with \(plural(change.items?.count ?? 0, "item"))"
    case .didDeleteShoppingList:
        what = "deleted"
    case .didRejectFileEdit, .didDenyChange, .didChangeDelegates:
        what = "not taken"
    case .didRenameShoppingList, .didUpdateShoppingList:
        what = StepsText.text(change.changes.compactMap(\.step), verbose: verbose)
    }
    let undoing = change.undoes.map { ", undoing #\($0)" } ?? ""
    return "#\(change.revision) \(change.list.name): \(what) (by \(change.origin)\(undoing))"
}


/// A `didChangeDelegates` as `watch --json` prints it.
private struct DelegatesLine: Encodable {
    var event = ListEventName.didChangeDelegates.rawValue
    var missingDelegates: [MissingDelegate]

    init(_ params: MissingDelegatesParams) { missingDelegates = params.missingDelegates }
}

/// `Not running: delegate “no-sweets” (its connection closed)`, or `Every delegate is running.`
func describe(_ missing: MissingDelegatesParams) -> String {
    guard !missing.missingDelegates.isEmpty else { return "Every delegate is running." }
    return "Not running: " + missing.missingDelegates.map { "delegate “\($0.name)” (\($0.reason))" }.joined(separator: ", ")
}

/// A `didDenyChange` as `watch --json` prints it.
private struct DenialLine: Encodable {
    var event = ListEventName.didDenyChange.rawValue
    var question: DelegateQuestion
    var proposal: DelegateQuestionParams
    var denials: [DelegateDenial]
    var timedOut: [String]

    init(_ denial: DeniedChangeParams) {
        question = denial.question
        proposal = denial.proposal
        denials = denial.denials
        timedOut = denial.timedOut
    }
}

/// `Denied shouldAdd “cake” on Groceries (by listctl (pid 4242, uid 1000)): diet: no sweets`
func describe(_ denial: DeniedChangeParams) -> String {
    var reasons = denial.denials.map { "\($0.delegate): \($0.reason)" }
    reasons += denial.timedOut.map { "\($0): no answer in time" }
    return "Denied \(denial.question.rawValue) \(summary(denial.proposal)) (by \(denial.proposal.origin)): \(reasons.joined(separator: "; "))"
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
    // Line 0: a note about a whole list (one deleted in the file, say), not about a line.
    return rejection.lines.map { "List file edit not taken: \($0.line > 0 ? "line \($0.line): " : "")\($0.message)" }
        .joined(separator: "\n")
}
