// `listctl lists`, `listctl show LIST` and `listctl add LIST ITEM…`, the commands people and
// scripts run most, read without argument-parser: its reflection over every command's properties
// costs a one-shot process more than its request does (issue 38). Only the plain forms are read
// here; anything else — help, `--`, `-` for stdin, an option of another command, a missing or
// extra word — goes to argument-parser, which parses it (or explains the mistake) as ever.
// QuickCommandTests checks that the two read every form this takes alike.

/// A command read from the words of the command line, when it is one of the plain forms.
enum QuickCommand: Equatable {
    case lists(socket: String?, json: Bool)
    case show(list: String, socket: String?, json: Bool)
    case add(list: String, items: [String], section: String?, amount: String?, socket: String?, json: Bool)

    /// The command `arguments` (without the program's name) say, or nil to let argument-parser
    /// read them.
    static func parse(_ arguments: [String]) -> QuickCommand? {
        // The shared options may come first (`Arguments.hoistingSharedOptions`).
        var start = 0
        while start < arguments.count, arguments[start].hasPrefix("-") {
            start += arguments[start] == "--socket" ? 2 : 1
        }
        guard start < arguments.count, ["lists", "show", "add"].contains(arguments[start]) else { return nil }
        let command = arguments[start]
        let takesItemOptions = command == "add"
        // The options' values, by name (three: no dictionary to build in a one-shot process).
        var socket: String?
        var section: String?
        var amount: String?
        var json = false
        var words: [String] = []
        let given = Array(arguments[..<start]) + arguments[(start + 1)...]
        var index = given.startIndex
        while index < given.endIndex {
            let word = given[index]
            index += 1
            // A word of the command, or (before it) a shared option: `--section` comes after.
            let beforeCommand = index <= start
            guard word.hasPrefix("-") else {
                guard !beforeCommand else { return nil }
                words.append(word)
                continue
            }
            if word == "--json" {
                guard !json else { return nil }
                json = true
                continue
            }
            let (name, inline) = Self.split(word)
            let itemOption = takesItemOptions && !beforeCommand
            let value: String
            if let inline {
                guard !inline.isEmpty else { return nil }
                value = inline
            } else {
                guard index < given.endIndex, !given[index].hasPrefix("-") else { return nil }
                value = given[index]
                index += 1
            }
            // Each at most once (argument-parser decides what a repeat means).
            switch name {
            case "--socket" where socket == nil: socket = value
            case "--section" where itemOption && section == nil: section = value
            case "--amount" where itemOption && amount == nil: amount = value
            default: return nil
            }
        }
        switch command {
        case "lists":
            guard words.isEmpty else { return nil }
            return .lists(socket: socket, json: json)
        case "show":
            guard words.count == 1 else { return nil }
            return .show(list: words[0], socket: socket, json: json)
        default:
            guard words.count >= 2 else { return nil }
            return .add(
                list: words[0],
                items: Array(words.dropFirst()),
                section: section,
                amount: amount,
                socket: socket,
                json: json
            )
        }
    }

    /// `--name=value` as its name and value; `--name` alone as its name.
    private static func split(_ word: String) -> (name: String, value: String?) {
        guard let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// Runs the command, as argument-parser's would (the same code, on the same values).
    func run() throws {
        switch self {
        case .lists(let socket, let json):
            try Listctl.Lists.lists(on: Connection(socket: socket, json: json))
        case .show(let list, let socket, let json):
            try Listctl.Show.show(list, on: Connection(socket: socket, json: json))
        case .add(let list, let items, let section, let amount, let socket, let json):
            try Listctl.Add.runBatch(
                list: list,
                items: items,
                on: Connection(socket: socket, json: json),
                params: { Listctl.Add.params($0, $1, section: section, amount: amount) },
                spoken: { Listctl.Add.spoken($0, amount: amount) }
            )
        }
    }
}
