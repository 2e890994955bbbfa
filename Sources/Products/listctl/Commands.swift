// listctl's commands that edit: create, rename and delete a list; add, remove, check, uncheck,
// clear and replace items (the batch of `ItemBatchCommand`); reading stdin's items for `-`.
import ArgumentParser
import ListClientCore
import ListModel
import ListRPC

extension Listctl {
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a list, optionally with items."
        )
        @OptionGroup var options: ConnectionOptions
        @OptionGroup var edit: EditOptions
        @Flag(help: "When a list of that name is there already, leave it as it is and succeed.") var ifAbsent = false
        @Argument(help: "The new list's name.") var name: String
        @Argument(help: "Items to start with; - reads one item per line from stdin.") var items: [String] = []

        func run() throws {
            try options.withClient { client in
                // `milk (2 l)`, `2 l milk`: the item milk, 2 l, read as `add` and the list file read it.
                let written = withStandardInput(self.items).map(ItemAmount.split)
                var quantities: [String: String] = [:]
                for (text, quantity) in written { if let quantity { quantities[text] = quantity } }
                let confirmed = try client.call(
                    CreateList.self,
                    .init(
                        name: name,
                        items: written.isEmpty ? nil : written.map(\.text),
                        quantities: quantities.isEmpty ? nil : quantities,
                        ifAbsent: ifAbsent ? true : nil
                    ),
                    provenance: edit.editId.map { EditOptions.provenance($0, item: name, of: 1) },
                    decoding: ConfirmedEdit<ShoppingList>.self
                )
                let list = confirmed.list
                if options.json { return printJSON(list) }
                switch (confirmed.effect.resent, confirmed.effect.unchanged) {
                case (true, _): print("Created \(list.name) before (revision \(confirmed.effect.appliedRevision ?? 0)): not done again.")
                case (_, true): print("\(list.name) is there already (id \(list.id)); left as it is.")
                default: print("Created \(list.name) (id \(list.id)) with \(plural(list.items.count, "item")).")
                }
            }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a list.")
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "Its new name.") var newName: String

        func run() throws {
            try options.withClient { client in
                let before = try client.call(GetList.self, .init(list: reference(list)))
                let after = try client.call(
                    RenameList.self,
                    .init(list: .id(before.id), name: newName, ifRevision: before.revision)
                )
                if options.json { return printJSON(after) }
                print("Renamed \(before.name) to \(after.name).")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a list and its items.")
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String

        func run() throws {
            try options.withClient { client in
                let deleted = try client.call(DeleteList.self, .init(list: reference(list)))
                if options.json { return printJSON(deleted) }
                print("Deleted \(deleted.name) (\(plural(deleted.items.count, "item"))).")
            }
        }
    }

    struct Add: ItemBatchCommand {
        typealias Method = AddItem
        static let verb = "Added"
        static let preposition = "to"
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add items to a list.",
            discussion: "Several items go to listd as one batch; each is confirmed or denied on its own."
        )
        @OptionGroup var options: ConnectionOptions
        @Option(help: "The section they go in (\"\" for none); one the list lacks is made. Default: where each was last.")
        var section: String?
        @Option(help: "How much to buy (2 l, 500 g, or a note: a few); without it, an amount typed with the item is read (2 l milk, milk (2 l)).") var amount: String?
        @Flag(help: "An item on the list already (not ticked) is left as it is, and the add succeeds.") var ifAbsent = false
        @OptionGroup var edit: EditOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The items to add; - reads one item per line from stdin.") var items: [String]

        func params(_ list: ListReference, _ item: String) -> AddItemParams {
            var params = Self.params(list, item, section: section, amount: amount)
            params.ifAbsent = ifAbsent ? true : nil
            return params
        }

        func spoken(_ item: String) -> String {
            Self.spoken(item, amount: amount)
        }

        /// `milk (2 l)`, `2 l milk` is read as the list file reads it (the item milk, 2 l) unless --amount is given.
        static func params(_ list: ListReference, _ item: String, section: String?, amount: String?) -> AddItemParams {
            let written = written(item, amount: amount)
            return AddItemParams(list: list, item: written.text, section: section, quantity: written.quantity)
        }

        private static func written(_ item: String, amount: String?) -> (text: String, quantity: String?) {
            amount == nil ? ItemAmount.split(item) : (ListText.trimmed(item), amount.map(ListText.trimmed))
        }

        /// `“milk” (2 l)`: the item and the amount it was added with.
        static func spoken(_ item: String, amount: String?) -> String {
            let written = written(item, amount: amount)
            return "“\(written.text)”" + (written.quantity.map { " (\($0))" } ?? "")
        }
    }

    struct Remove: ItemBatchCommand {
        typealias Method = RemoveItem
        static let verb = "Removed"
        static let preposition = "from"
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove items from a list.",
            discussion: "Several items go to listd as one batch; each is confirmed or denied on its own."
        )
        @OptionGroup var options: ConnectionOptions
        @OptionGroup var edit: EditOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The items to remove; - reads one item per line from stdin.", completion: ListCompletion.items)
        var items: [String]
    }

    struct Check: ItemBatchCommand {
        typealias Method = CheckItem
        static let verb = "Checked"
        static let preposition = "on"
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Tick items off: they stay on the list, checked, until `listctl clear`.",
            discussion: "Several items go to listd as one batch; each is confirmed or denied on its own."
        )
        @OptionGroup var options: ConnectionOptions
        @OptionGroup var edit: EditOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The items to check; - reads one item per line from stdin.", completion: ListCompletion.items)
        var items: [String]
    }

    struct Uncheck: ItemBatchCommand {
        typealias Method = UncheckItem
        static let verb = "Unchecked"
        static let preposition = "on"
        static let configuration = CommandConfiguration(
            commandName: "uncheck",
            abstract: "Untick items: they are needed again.",
            discussion: "Several items go to listd as one batch; each is confirmed or denied on its own."
        )
        @OptionGroup var options: ConnectionOptions
        @OptionGroup var edit: EditOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The items to uncheck; - reads one item per line from stdin.", completion: ListCompletion.items)
        var items: [String]
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Remove every checked item from a list, as one change.",
            discussion: "An item a delegate refuses to let go stays; listctl says which and why, and exits with 1."
        )
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String

        func run() throws {
            var anyKept = false
            try options.withClient { client in
                let result = try client.call(ClearChecked.self, .init(list: reference(list)))
                anyKept = !result.kept.isEmpty
                if options.json { return printJSON(result) }
                if result.cleared.isEmpty && result.kept.isEmpty {
                    print("Nothing is checked on \(result.list.name).")
                } else {
                    print("Cleared \(plural(result.cleared.count, "checked item")) from \(result.list.name).")
                }
                for kept in result.kept { writeError("listctl: kept: \(kept.message)") }
            }
            if anyKept { throw ExitCode(ListctlExit.denied.rawValue) }
        }
    }

    struct Replace: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replace",
            abstract: "Replace an item's text, keeping its place."
        )
        @OptionGroup var options: ConnectionOptions
        @Argument(help: "The list's name or id.", completion: ListCompletion.listNames) var list: String
        @Argument(help: "The item to replace.", completion: ListCompletion.items) var item: String
        @Argument(help: "Its new text.") var newText: String

        func run() throws {
            try options.withClient { client in
                let list = try client.call(ReplaceItem.self, .init(list: reference(list), item: item, with: newText))
                if options.json { return printJSON(list) }
                print("Replaced “\(ListText.trimmed(item))” with “\(ListText.trimmed(newText))” on \(list.name).")
            }
        }
    }
}

/// One item's outcome as `add --json` and `remove --json` print it.
private struct ItemOutcome: Encodable {
    var item: String
    var confirmed: Bool
    var list: ShoppingList?
    var denied: DenialOutput.Denied?
    /// A resend of an `--edit-id` done before: the revision of the change it made then.
    var resentFrom: Revision?
    /// Nothing was done: it held already (`--if-absent`).
    var unchanged: Bool?

    init(item: String, confirmed: Bool, list: ShoppingList? = nil, denied: DenialOutput.Denied? = nil, effect: EditEffect? = nil) {
        self.item = item
        self.confirmed = confirmed
        self.list = list
        self.denied = denied
        resentFrom = effect?.resent == true ? effect?.appliedRevision : nil
        unchanged = effect?.unchanged == true ? true : nil
    }
}

/// `add` and `remove`: one request per item, sent as a single batch, each outcome reported; exit
/// status 1 when any was denied.
protocol ItemBatchCommand: ParsableCommand {
    associatedtype Method: RPCMethod where Method.Result == ShoppingList
    static var verb: String { get }
    var edit: EditOptions { get }
    /// The request for one item.
    func params(_ list: ListReference, _ item: String) -> Method.Params
    static var preposition: String { get }
    var options: ConnectionOptions { get }
    var list: String { get }
    var items: [String] { get }
    /// The item as the sentence for it names it (`“milk”`).
    func spoken(_ item: String) -> String
}

extension ItemBatchCommand {
    func spoken(_ item: String) -> String { "“\(ListText.trimmed(item))”" }

    /// What became of one item's confirmed edit, in words: done now, done before (a resend of
    /// its `--edit-id`), or nothing to do (`--if-absent`).
    static func sentence(_ item: String, on list: String, _ effect: EditEffect) -> String {
        if effect.resent {
            return "\(verb) \(item) \(preposition) \(list) before (revision \(effect.appliedRevision ?? 0)): not done again."
        }
        if effect.unchanged { return "\(item) is on \(list) already; left as it is." }
        return "\(verb) \(item) \(preposition) \(list)."
    }
}

extension ItemBatchCommand where Method.Params == ListItemParams {
    func params(_ list: ListReference, _ item: String) -> ListItemParams {
        ListItemParams(list: list, item: item)
    }
}

extension ItemBatchCommand {
    func run() throws {
        try Self.runBatch(list: list, items: items, on: options.connection, editId: edit.editId, params: params, spoken: spoken)
    }

    /// Sends one request per item, as one batch, and says what became of each.
    static func runBatch(
        list: String,
        items: [String],
        on options: Connection,
        editId: String? = nil,
        params: (ListReference, String) -> Method.Params,
        spoken: (String) -> String
    ) throws {
        let target = reference(list)
        let items = withStandardInput(items)
        var anyDenied = false
        // What a person reads names the list only: a brief connection, whose confirms do not
        // carry the list's items (a thousand items added to a long list would bring it back a
        // thousand times). The JSON output keeps each confirm's whole list.
        try options.withClient(brief: !options.json) { client in
            let params = items.map { params(target, $0) }
            let provenance = editId.map { id in items.map { EditOptions.provenance(id, item: $0, of: items.count) } }
            let results: [Result<(name: String, list: ShoppingList?, effect: EditEffect), ListClientError>] =
                options.json
                ? try client.batch(Method.self, params, provenance: provenance, decoding: ConfirmedEdit<ShoppingList>.self)
                    .map { $0.map { ($0.list.name, $0.list, $0.effect) } }
                : try client.batch(Method.self, params, provenance: provenance, decoding: ConfirmedEdit<ListSummary>.self)
                    .map { $0.map { ($0.list.name, nil, $0.effect) } }
            var outcomes: [ItemOutcome] = []
            for (item, result) in zip(items, results) {
                switch result {
                case .success(let confirmed):
                    outcomes.append(ItemOutcome(item: item, confirmed: true, list: confirmed.list, effect: confirmed.effect))
                    if !options.json {
                        print(Self.sentence(spoken(item), on: confirmed.name, confirmed.effect))
                    }
                case .failure(.denied(let denial)):
                    anyDenied = true
                    outcomes.append(ItemOutcome(item: item, confirmed: false, denied: DenialOutput(denial).denied))
                    writeError("listctl: denied: \(denial.message)")
                case .failure(let error):
                    throw error
                }
            }
            if options.json { printJSON(outcomes) }
        }
        if anyDenied { throw ExitCode(ListctlExit.denied.rawValue) }
    }
}

/// `items` with each `-` replaced by the lines of stdin (blank ones skipped), so a file or a pipe
/// of items goes to listd as one batch.
func withStandardInput(_ items: [String]) -> [String] {
    guard items.contains("-") else { return items }
    var lines: [String] = []
    while let line = readLine(strippingNewline: true) {
        if !ListText.trimmed(line).isEmpty { lines.append(line) }
    }
    return items.flatMap { $0 == "-" ? lines : [$0] }
}
