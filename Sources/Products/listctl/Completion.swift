// Tab completion of list names and items from the running listd (argument-parser's custom
// completion). When listd cannot be reached in time, there is nothing to offer and the shell
// falls back quietly: no message, no wait of more than a moment.
import ArgumentParser
import ListClientCore
import ListModel
import ListRPC
import ListdLocations

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

enum ListCompletion {
    /// The names of the lists, for an argument that names a list.
    static let listNames = CompletionKind.custom { words, _, prefix in
        let lists = withListd(words) { try $0.call(GetLists.self, NoParams()).lists } ?? []
        return lists.map(\.name).filter { $0.hasPrefix(unquoted(prefix)) }
    }

    /// The items of the list named before the cursor, for an argument that names an item.
    static let items = CompletionKind.custom { words, index, prefix in
        guard let list = firstArgument(words, before: index) else { return [] }
        let items = withListd(words) { try $0.call(GetList.self, .init(list: reference(list))).items } ?? []
        return items.filter { $0.hasPrefix(unquoted(prefix)) }
    }

    /// The sections of the list named before the cursor (`section rename LIST …` names it after
    /// its own word).
    static let sectionNames = CompletionKind.custom { words, index, prefix in
        guard var list = firstArgument(words, before: index) else { return [] }
        if words.count > 2, words[1] == "section", list == unquoted(words[2]) {
            guard let after = firstArgument(Array(words.prefix(2)) + words.dropFirst(3), before: index - 1) else { return [] }
            list = after
        }
        let sections = withListd(words) { try $0.call(GetList.self, .init(list: reference(list))).sections } ?? []
        return sections.map(\.name).filter { $0.hasPrefix(unquoted(prefix)) }
    }

    /// `body`'s result from the listd that `--socket` (or the environment) names; nil when it
    /// cannot be asked.
    private static func withListd<T>(_ words: [String], _ body: (BlockingListClient) throws -> T) -> T? {
        let path = ListdPaths.clientSocket(
            option: option("--socket", in: words),
            environment: ProcessInfo.processInfo.environment
        )
        guard (try? ListdPaths.checkBeforeConnecting(to: path, variable: { ProcessInfo.processInfo.environment[$0] })) != nil,
            let client = try? BlockingListClient(socketPath: path, timeLimit: .milliseconds(500))
        else { return nil }
        return try? body(client)
    }

    /// The value of `name` on the command line (`--socket PATH` or `--socket=PATH`).
    private static func option(_ name: String, in words: [String]) -> String? {
        for (index, word) in words.enumerated() {
            if word == name, index + 1 < words.count { return unquoted(words[index + 1]) }
            if word.hasPrefix(name + "=") { return unquoted(String(word.dropFirst(name.count + 1))) }
        }
        return nil
    }

    /// The subcommand's first argument (the list), from the words before the one being completed.
    private static func firstArgument(_ words: [String], before index: Int) -> String? {
        // words[0] is listctl, words[1] the subcommand.
        var position = 2
        while position < min(index, words.count) {
            let word = words[position]
            if word == "--socket" {
                position += 2
            } else if word.hasPrefix("-") {
                position += 1
            } else {
                return unquoted(word)
            }
        }
        return nil
    }

    /// A shell word as typed, without the quotes or backslashes around its text.
    private static func unquoted(_ word: String) -> String {
        var text = ""
        var quote: Character?
        var escaped = false
        for character in word {
            if escaped {
                text.append(character)
                escaped = false
            } else if character == "\\", quote != "'" {
                escaped = true
            } else if let open = quote, character == open {
                quote = nil
            } else if quote == nil, character == "'" || character == "\"" {
                quote = character
            } else {
                text.append(character)
            }
        }
        return text
    }
}
