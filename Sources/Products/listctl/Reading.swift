// listctl's commands that read: `lists` and `show`, and a list as `show` prints it.
import ArgumentParser
import ListClientCore
import ListModel
import ListRPC

extension Listctl {
    struct Lists: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lists",
            abstract: "Show every list, with its id and number of items."
        )
        @OptionGroup var options: ConnectionOptions

        func run() throws {
            try Self.lists(on: options.connection)
        }

        /// What `run` does, on plain values (the quick path calls it too).
        static func lists(on connection: Connection) throws {
            try connection.withClient { client in
                let snapshot = try client.call(GetLists.self, NoParams())
                if connection.json { return printJSON(snapshot) }
                if snapshot.lists.isEmpty {
                    print("No lists yet. Create one with: listctl create NAME [ITEM…]")
                }
                // A long name is cut to what the terminal leaves beside the count and id.
                let width = Columns.width(of: snapshot.lists.map(\.name), leaving: 30)
                for list in snapshot.lists {
                    print("\(Columns.fitted(list.name, to: width))  \(plural(list.items.count, "item"))  (id \(list.id))")
                }
                // A household's rule that stopped: what it would refuse is not refused now.
                for missing in snapshot.missingDelegates ?? [] {
                    print(
                        "Delegate “\(missing.name)” is not running since \(localTime(missing.since)) (\(missing.reason)): what it vets is not vetted."
                    )
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one list's items.")
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String

        func run() throws {
            try Self.show(list, on: options.connection)
        }

        static func show(_ list: String, on connection: Connection) throws {
            try connection.withClient { client in
                let list = try client.call(GetList.self, .init(list: reference(list)))
                if connection.json { return printJSON(list) }
                printList(list)
            }
        }
    }
}

func printList(_ list: ShoppingList) {
    print("\(list.name) (id \(list.id), revision \(list.revision), edited \(list.edited))")
    if list.items.isEmpty, list.sections.isEmpty { print("  (no items)") }
    func line(_ item: String, indent: String) -> String {
        "\(indent)- [\(list.isChecked(item) ? "x" : " ")] \(item)" + (list.quantities[item].map { " (\($0))" } ?? "")
    }
    for item in list.items[list.range(ofSection: nil)] { print(line(item, indent: "  ")) }
    // Each section's items under its name, in list order.
    for section in list.sectionsWithItems {
        print("  \(section.name)")
        if section.items.isEmpty { print("    (no items)") }
        for item in section.items { print(line(item, indent: "    ")) }
    }
}
