// `listctl move`, `listctl section add|rename|remove` and `listctl amount`: where an item is on a
// list, and how much of it to buy.
import ArgumentParser
import ListClientCore
import ListModel
import ListRPC

extension Listctl {
    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Move an item to another section, or before another item.",
            discussion: "Without --before it goes to the end of the section; --section \"\" is no section."
        )
        @OptionGroup var options: ConnectionOptions
        @Option(help: "The section it goes to (default: the one it is in, or --before's).", completion: ListCompletion.sectionNames)
        var section: String?
        @Option(help: "The item it goes right before.", completion: ListCompletion.items) var before: String?
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The item to move.", completion: ListCompletion.items) var item: String

        func validate() throws {
            guard section != nil || before != nil else { throw ValidationError("Say where it goes: --section, --before or both.") }
        }

        func run() throws {
            try options.withClient { client in
                let list: ShoppingList
                do {
                    list = try client.call(MoveItem.self, .init(list: reference(self.list), item: item, section: section, before: before))
                } catch ListClientError.denied(let denial) where denial.reason == "sectionNotFound" {
                    // A move does not make a section (an add does): say how to make it.
                    options.report(denial)
                    writeError("listctl: make it first: listctl section add \(shellWord(self.list)) \(shellWord(section ?? ""))")
                    throw ExitCode(ListctlExit.denied.rawValue)
                }
                if options.json { return printJSON(list) }
                let place = list.index(ofItem: item).flatMap { list.section(ofItemAt: $0) }.map { list.sections[$0].name }
                print("Moved “\(ListText.trimmed(item))” on \(list.name)" + (place.map { " to \($0)." } ?? " (in no section)."))
            }
        }
    }

    struct Section: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "section",
            abstract: "Add, rename or remove a section of a list (an aisle, a shop).",
            subcommands: [AddSectionCommand.self, RenameSectionCommand.self, RemoveSectionCommand.self]
        )
    }

    struct AddSectionCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an empty section.")
        @OptionGroup var options: ConnectionOptions
        @Option(help: "The section it goes before (default: at the end).", completion: ListCompletion.sectionNames)
        var before: String?
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The new section's name.") var section: String

        func run() throws {
            try options.withClient { client in
                let list = try client.call(AddSection.self, .init(list: reference(list), section: section, before: before))
                if options.json { return printJSON(list) }
                print("Added the section \(ListText.trimmed(section)) to \(list.name).")
            }
        }
    }

    struct RenameSectionCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a section.")
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The section.", completion: ListCompletion.sectionNames) var section: String
        @Argument(help: "Its new name.") var newName: String

        func run() throws {
            try options.withClient { client in
                let list = try client.call(RenameSection.self, .init(list: reference(list), section: section, to: newName))
                if options.json { return printJSON(list) }
                print("Renamed the section \(ListText.trimmed(section)) of \(list.name) to \(ListText.trimmed(newName)).")
            }
        }
    }

    struct RemoveSectionCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a section; its items stay, in the section above it (or none)."
        )
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The section.", completion: ListCompletion.sectionNames) var section: String

        func run() throws {
            try options.withClient { client in
                let list = try client.call(RemoveSection.self, .init(list: reference(list), section: section))
                if options.json { return printJSON(list) }
                print("Removed the section \(ListText.trimmed(section)) from \(list.name); its items stay.")
            }
        }
    }

    struct Amount: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "amount",
            abstract: "Set how much of an item to buy (2 l, 500 g); without an amount, clear it."
        )
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The item.", completion: ListCompletion.items) var item: String
        @Argument(help: "How much (2 l, 500 g, or a note: a few).") var quantity: String?

        func run() throws {
            try options.withClient { client in
                let list = try client.call(SetQuantity.self, .init(list: reference(list), item: item, quantity: quantity))
                if options.json { return printJSON(list) }
                let text = list.index(ofItem: item).map { list.items[$0] } ?? ListText.trimmed(item)
                if let amount = list.quantities[text] {
                    print("“\(text)” on \(list.name): \(amount).")
                } else {
                    print("“\(text)” on \(list.name) has no amount.")
                }
            }
        }
    }
}
