// What listctl does to its command line before argument-parser reads it: the shared options may
// come before the subcommand, and a word that looks like an option but is none is a usage error
// that says how to pass it as an item.

enum Arguments {
    /// Options every subcommand takes; people put them first, as with `git -C` or
    /// `systemctl --user`. The value-taking ones take the next word.
    static let sharedFlags: Set<String> = ["--json"]
    static let sharedValueOptions: Set<String> = ["--socket"]
    /// Options of any subcommand that take a value: the word after them is not checked.
    static let valueOptions: Set<String> = [
        "--socket", "--list", "--event", "--question", "--timeout", "--on-timeout", "--name", "--since", "--limit",
        "--section", "--amount", "--before", "--control-socket", "--jobs", "--edit-id", "--origin", "--step",
    ]

    /// With `valueOptions`, every long option of listctl and its subcommands, and argument-parser's
    /// own: any other `--word` is a usage error with the hint (argument-parser took `add L --bogus`
    /// for a missing item). ListctlTrapsTests checks them against every subcommand's help.
    static let longOptions: Set<String> = valueOptions.union([
        "--json", "--help", "--version", "--exec", "--no-reconnect", "--verbose", "--if-absent", "--caldav", "--generate-completion-script",
        "--experimental-dump-help",
    ])

    /// `--socket P` / `--socket=P` / `--json` given before the subcommand go right after it (after
    /// its own subcommand, for a group like `section add`: `nested` names them).
    static func hoistingSharedOptions(
        _ arguments: [String],
        subcommands: Set<String>,
        nested: [String: Set<String>] = [:]
    ) -> [String] {
        var shared: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if sharedFlags.contains(word) || sharedValueOptions.contains(where: { word.hasPrefix($0 + "=") }) {
                shared.append(word)
                index += 1
            } else if sharedValueOptions.contains(word), index + 1 < arguments.count {
                shared += [word, arguments[index + 1]]
                index += 2
            } else {
                break
            }
        }
        guard !shared.isEmpty, index < arguments.count, subcommands.contains(arguments[index]) else { return arguments }
        if let inner = nested[arguments[index]], index + 1 < arguments.count, inner.contains(arguments[index + 1]) {
            return [arguments[index], arguments[index + 1]] + shared + arguments[(index + 2)...]
        }
        return [arguments[index]] + shared + arguments[(index + 1)...]
    }

    /// The first word before `--` that starts with `-` but is no option listctl has (`-fresh fish`
    /// was read as the flags -f -r -e -s -h, and -h printed the help): with the words before it.
    static func strayDash(in arguments: [String]) -> (word: String, before: [String])? {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { return nil }
            if valueOptions.contains(word) {
                index += 2
                continue
            }
            // A lone "-" is stdin (add, remove, create); "---…" is argument-parser's completion call.
            let isLong = word.hasPrefix("--")
            let known =
                isLong
                ? word.hasPrefix("---") || longOptions.contains(String(word.prefix { $0 != "=" }))
                : word == "-" || word == "-h" || !word.hasPrefix("-")
            if !known { return (word, Array(arguments[..<index])) }
            index += 1
        }
        return nil
    }

    /// A command word listctl has not (`listctl ad Groceries flour`), with the nearest one it has:
    /// argument-parser would take it for arguments of the root ("3 unexpected arguments"). The
    /// words are the ones before hoisting (shared options may come first).
    static func unknownCommand(in arguments: [String], subcommands: Set<String>, nested: [String: Set<String>]) -> String? {
        // argument-parser's own completion calls (`---completion …`) are its business.
        guard !arguments.contains(where: { $0.hasPrefix("---") }) else { return nil }
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if sharedValueOptions.contains(word) {
                index += 2
            } else if sharedFlags.contains(word) || sharedValueOptions.contains(where: { word.hasPrefix($0 + "=") }) {
                index += 1
            } else {
                break
            }
        }
        // The root's own options (--help, --version, --generate-completion-script …) are
        // argument-parser's.
        guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
        let word = arguments[index]
        guard subcommands.contains(word) || word == "help" else {
            return "listctl: no command “\(word)”\(suggestion(for: word, among: subcommands)) (`listctl --help` lists them)."
        }
        guard let inner = nested[word], index + 1 < arguments.count else { return nil }
        let next = arguments[index + 1]
        guard !next.hasPrefix("-"), !inner.contains(next), next != "help" else { return nil }
        return "listctl \(word): no command “\(next)”\(suggestion(for: next, among: inner)) (`listctl \(word) --help` lists them)."
    }

    /// `; did you mean “add”?` when one command is near `word` (two edits at most, or the only
    /// one it begins), else nothing.
    static func suggestion(for word: String, among names: Set<String>) -> String {
        let typed = word.lowercased()
        let scored = names.map { (name: $0, distance: editDistance(typed, $0)) }
        let best = scored.min { ($0.distance, $0.name) < ($1.distance, $1.name) }
        let starting = names.filter { $0.hasPrefix(typed) }
        if let best, best.distance <= min(2, max(1, typed.count - 1)) { return "; did you mean “\(best.name)”?" }
        if starting.count == 1, let only = starting.first { return "; did you mean “\(only)”?" }
        return ""
    }

    /// Levenshtein distance: insertions, deletions and substitutions of characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// How to pass `word` as an item: after `--`.
    static func hint(for word: String, before: [String]) -> String {
        let quoted = word.contains(" ") ? "\"\(word)\"" : word
        let example = (["listctl"] + before + ["--", quoted]).joined(separator: " ")
        return "listctl: unknown option “\(word)”. To give an item or name that starts with -, put it after --: \(example)"
    }
}
