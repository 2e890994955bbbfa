// `listctl log` and `listctl undo`: the kept changes, and undoing one of them.
import ArgumentParser
import Glibc
import ListClientCore
import ListModel
import ListRPC

extension Listctl {
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract: "Show who changed what, and when (the changes listd keeps, oldest first).",
            discussion: "A list is followed through its renames. Times are local."
        )
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "Only this list's changes (its name or id).", completion: ListCompletion.listNames)
        var list: String?
        @Option(help: "Show at most this many changes, the newest.") var limit: Int = GetHistory.defaultLimit
        @Flag(help: "Name every step of a large change, not a count of each kind.") var verbose = false

        func validate() throws {
            guard limit >= 1 else { throw ValidationError("--limit must be 1 or more.") }
        }

        func run() throws {
            try options.withClient { client in
                let history = try client.call(GetHistory.self, .init(list: list.map(reference), limit: limit))
                if options.json { return printJSON(history) }
                if history.changes.isEmpty { print(list == nil ? "No changes kept." : "No changes of \(list!) kept.") }
                let width = history.changes.map(\.list.name.count).max() ?? 0
                for entry in history.changes {
                    let padding = String(repeating: " ", count: width - entry.list.name.count)
                    print(
                        "#\(entry.revision)  \(localTime(entry.time))  \(entry.list.name)\(padding)  \(summary(entry, verbose: verbose))  (\(originText(entry.origin)))"
                    )
                }
            }
        }
    }

    struct UndoChange: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo",
            abstract: "Undo a change (without a revision: the latest not undone yet), as a new change.",
            discussion:
                "Without a revision, the latest change that is not undone yet and is not itself an undo: run it again to step further back. An undo is undone by its revision (`listctl log` shows them). The undo goes through the same rules and delegates as any edit; when what it would put back no longer fits (the item was removed since, the name is taken), it is denied and says what is in the way."
        )
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The change's revision (#12 or 12).") var revision: String?
        @Flag(help: "Name every step of a large change, not a count of each kind.") var verbose = false

        func validate() throws {
            if let revision, Int(revision.drop { $0 == "#" }) == nil {
                throw ValidationError("“\(revision)” is not a revision: give its number, as `listctl log` shows it.")
            }
        }

        func run() throws {
            try options.withClient { client in
                let target = revision.flatMap { Int($0.drop { $0 == "#" }) }
                let result = try client.call(Undo.self, .init(revision: target))
                if options.json { return printJSON(result) }
                let undone = "#\(result.undone.revision) (\(result.undone.list.name): \(summary(result.undone, verbose: verbose)))"
                if let revision = result.revision {
                    print("Undid \(undone) as #\(revision).")
                } else {
                    print("Undid \(undone): nothing left to change.")
                }
            }
        }
    }
}

/// `added “milk”`, `created`, `renamed from Food`: what a kept change did (see `StepsText`).
func summary(_ entry: HistoryEntry, verbose: Bool = false) -> String {
    var text: String
    switch entry.event {
    case .didCreateShoppingList: text = entry.undoes == nil ? "created" : "put back"
    case .didDeleteShoppingList: text = "deleted"
    default: text = StepsText.text(entry.changes ?? [], verbose: verbose)
    }
    if let undoes = entry.undoes { text += ", undoing #\(undoes)" }
    return text
}

/// `listctl, pid 4242, uid 1000`, or `list file` (`list file on kitchen` when shared).
func originText(_ origin: ChangeOrigin) -> String {
    switch origin {
    case .file(nil): "list file"
    case .file(let host?): "list file on \(host)"
    case .client(let pid, let uid, let name?): "\(name), pid \(pid), uid \(uid)"
    case .client(let pid, let uid, nil): "pid \(pid), uid \(uid)"
    }
}

/// `2026-11-22 10:01` in the local time zone.
func localTime(_ time: Timestamp) -> String {
    var seconds = time_t(time.millisecondsSinceEpoch / 1000)
    var parts = tm()
    localtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min))"
}
