// Sections and amounts in the model: every rule of addItem, moveItemInto, the section edits and
// setQuantity, and that each change redoes from its record and undoes from its inverse.
import ListModel
import Testing

/// `book` after `edit`, which must change something.
@discardableResult
private func apply(_ edit: ListEdit, to book: inout ListBook) throws -> ListChange {
    try #require(try book.apply(edit, at: t1, origin: me))
}

/// Groceries: batteries in no section; Dairy: milk, butter; Bakery: bread.
private func sectioned() throws -> ListBook {
    var book = try groceries(["batteries"])
    try apply(.addItem("milk", to: .id(1), section: "Dairy"), to: &book)
    try apply(.addItem("butter", to: .id(1), section: "dairy"), to: &book)
    try apply(.addItem("bread", to: .id(1), section: "Bakery"), to: &book)
    return book
}

/// The sections with their items, as the protocol shows them.
private func shape(_ book: ListBook, _ id: ListID = 1) throws -> [String] {
    let list = try book.list(.id(id))
    return ["-: " + list.items[list.range(ofSection: nil)].joined(separator: ",")]
        + list.sectionsWithItems.map { "\($0.name): " + $0.items.joined(separator: ",") }
}

@Suite struct SectionTests {
    /// A copy read when batteries came right before Dairy moves butter first in Dairy (after
    /// batteries); meanwhile tape was added after batteries. Butter goes first in Dairy — it
    /// went out of its section before (the save model found it).
    @Test func anItemMovedFirstInItsSectionStaysInItWhenAnItemWasAddedBeforeTheSection() throws {
        var book = try sectioned()
        try apply(.addItem("tape", to: .id(1)), to: &book)
        #expect(try shape(book) == ["-: batteries,tape", "Dairy: milk,butter", "Bakery: bread"])
        try apply(.moveItem("butter", on: .id(1), after: "batteries", section: "Dairy"), to: &book)
        #expect(try shape(book) == ["-: batteries,tape", "Dairy: butter,milk", "Bakery: bread"])
    }

    @Test func anItemAddedToASectionTheListLacksMakesItInTheSameChange() throws {
        var book = try groceries(["batteries"])
        let change = try apply(.addItem("milk", to: .id(1), section: "Dairy"), to: &book)
        #expect(change.steps == [.addSection(section: "Dairy"), .add(item: "milk", section: "Dairy")])
        #expect(change.revision == 2, "one change")
        #expect(try shape(book) == ["-: batteries", "Dairy: milk"])
        try apply(.addItem("butter", to: .id(1), section: " DAIRY "), to: &book)
        #expect(try shape(book) == ["-: batteries", "Dairy: milk,butter"], "the same section, by the usual comparison")
    }

    @Test func anItemInNoSectionGoesBeforeTheSections() throws {
        var book = try sectioned()
        try apply(.addItem("tape", to: .id(1), section: ""), to: &book)
        try apply(.addItem("glue", to: .id(1)), to: &book)
        #expect(try shape(book) == ["-: batteries,tape,glue", "Dairy: milk,butter", "Bakery: bread"])
        #expect(try book.list(.id(1)).items == ["batteries", "tape", "glue", "milk", "butter", "bread"], "items stay in file order")
    }

    /// Issue 63, case 3: aisles were typed per item, per list. An item's section, given on one
    /// list, is used on another when an add names none — from the list changed most recently —
    /// and never over what the add says or what this list remembers.
    @Test func anAisleGivenOnOneListIsUsedOnAnother() throws {
        var book = try sectioned()  // Groceries: milk and butter in Dairy, bread in Bakery
        try apply(.createList(name: "Weekend", items: ["wine"]), to: &book)
        let change = try apply(.addItem("MILK", to: .id(2)), to: &book)
        #expect(change.steps == [.addSection(section: "Dairy"), .add(item: "MILK", section: "Dairy")])
        #expect(try shape(book, 2) == ["-: wine", "Dairy: MILK"])
        try apply(.addItem("bread", to: .id(2), section: ""), to: &book)
        try apply(.addItem("butter", to: .id(2), section: "Fridge"), to: &book)
        #expect(try shape(book, 2) == ["-: wine,bread", "Dairy: MILK", "Fridge: butter"], "what the add says wins")
        try apply(.addItem("tape", to: .id(2)), to: &book)
        #expect(try shape(book, 2) == ["-: wine,bread,tape", "Dairy: MILK", "Fridge: butter"], "nothing learned: none")
        // A third list learns from the list changed last: butter is under Fridge on Weekend now.
        try apply(.createList(name: "Party", items: []), to: &book)
        try apply(.addItem("butter", to: .id(3)), to: &book)
        #expect(try shape(book, 3) == ["-: ", "Fridge: butter"])
        // What a list remembers of its own item comes first.
        try apply(.removeItem("butter", from: .id(3)), to: &book)
        try apply(.moveItemInto("butter", on: .id(2), section: "Dairy", before: nil), to: &book)
        try apply(.addItem("butter", to: .id(3)), to: &book)
        #expect(try shape(book, 3) == ["-: ", "Fridge: butter"])
    }

    @Test func anItemAddedAgainGoesBackToTheSectionItWasLastIn() throws {
        var book = try sectioned()
        try apply(.removeItem("milk", from: .id(1)), to: &book)
        try apply(.addItem("Milk", to: .id(1)), to: &book)
        #expect(try shape(book) == ["-: batteries", "Dairy: butter,Milk", "Bakery: bread"])
        // Across a rename of the section, and its removal (it is made again).
        try apply(.removeItem("bread", from: .id(1)), to: &book)
        try apply(.renameSection("Bakery", on: .id(1), to: "Bread & cakes"), to: &book)
        try apply(.removeSection("Bread & cakes", on: .id(1)), to: &book)
        try apply(.addItem("bread", to: .id(1)), to: &book)
        #expect(try shape(book) == ["-: batteries", "Dairy: butter,Milk", "Bread & cakes: bread"])
        // An item last in no section goes to none; one never seen too.
        try apply(.removeItem("batteries", from: .id(1)), to: &book)
        try apply(.addItem("batteries", to: .id(1)), to: &book)
        try apply(.addItem("jam", to: .id(1)), to: &book)
        #expect(try shape(book) == ["-: batteries,jam", "Dairy: butter,Milk", "Bread & cakes: bread"])
    }

    @Test func aDuplicateIsNamedWithItsSectionAndAmount() throws {
        var book = try sectioned()
        try apply(.setQuantity("milk", on: .id(1), quantity: "2 l"), to: &book)
        let error = denial { () throws(ListError) in _ = try book.apply(.addItem("MILK", to: .id(1), section: "Bakery"), at: t1, origin: me) }
        #expect(error == .itemExists(item: "milk", list: "Groceries", section: "Dairy", has: "2 l"))
        #expect(error?.message == "“milk” (2 l) is already on Groceries, under Dairy. To buy more, change its amount.")
        let another = denial { () throws(ListError) in
            _ = try book.apply(.addItem("milk", to: .id(1), quantity: "1 l"), at: t1, origin: me)
        }
        #expect(another?.message == "“milk” (2 l) is already on Groceries, under Dairy. To buy 1 l, change its amount instead.")
        let plain = denial { () throws(ListError) in _ = try book.apply(.addItem("batteries", to: .id(1)), at: t1, origin: me) }
        #expect(plain?.message == "“batteries” is already on Groceries.")
    }

    @Test func movingAnItemToAnotherSectionOrBeforeAnotherItem() throws {
        var book = try sectioned()
        let change = try apply(.moveItemInto("milk", on: .id(1), section: "Bakery", before: nil), to: &book)
        #expect(change.steps == [.move(item: "milk", to: 3, section: "Bakery")])
        #expect(try shape(book) == ["-: batteries", "Dairy: butter", "Bakery: bread,milk"])
        try apply(.moveItemInto("milk", on: .id(1), section: nil, before: "bread"), to: &book)
        #expect(try shape(book) == ["-: batteries", "Dairy: butter", "Bakery: milk,bread"])
        try apply(.moveItemInto("bread", on: .id(1), section: "", before: nil), to: &book)
        #expect(try shape(book) == ["-: batteries,bread", "Dairy: butter", "Bakery: milk"])
        try apply(.moveItemInto("batteries", on: .id(1), section: "Dairy", before: "butter"), to: &book)
        #expect(try shape(book) == ["-: bread", "Dairy: batteries,butter", "Bakery: milk"])
        // Already there: nothing changes.
        #expect(try book.apply(.moveItemInto("butter", on: .id(1), section: "Dairy", before: nil), at: t1, origin: me) == nil)
        let missing = denial { () throws(ListError) in
            _ = try book.apply(.moveItemInto("milk", on: .id(1), section: "Frozen", before: nil), at: t1, origin: me)
        }
        #expect(missing == .sectionNotFound(section: "Frozen", list: "Groceries"))
        let elsewhere = denial { () throws(ListError) in
            _ = try book.apply(.moveItemInto("milk", on: .id(1), section: "Dairy", before: "bread"), at: t1, origin: me)
        }
        #expect(elsewhere?.reason == "itemNotFound", "before names an item of that section")
    }

    @Test func sectionsAreAddedRenamedAndRemovedByTheRules() throws {
        var book = try sectioned()
        try apply(.addSection("Frozen", on: .id(1), before: "bakery"), to: &book)
        #expect(try shape(book) == ["-: batteries", "Dairy: milk,butter", "Frozen: ", "Bakery: bread"])
        #expect(denial { () throws(ListError) in _ = try book.apply(.addSection("FROZEN", on: .id(1), before: nil), at: t1, origin: me) }
            == .sectionExists(section: "Frozen", list: "Groceries"))
        #expect(denial { () throws(ListError) in _ = try book.apply(.addSection(" ", on: .id(1), before: nil), at: t1, origin: me) }?.reason
            == "invalidSection")
        #expect(denial { () throws(ListError) in _ = try book.apply(.renameSection("Frozen", on: .id(1), to: "dairy"), at: t1, origin: me) }
            == .sectionExists(section: "Dairy", list: "Groceries"))
        #expect(try book.apply(.renameSection("frozen", on: .id(1), to: "Frozen"), at: t1, origin: me) == nil)
        let renamed = try apply(.renameSection("frozen", on: .id(1), to: "Freezer"), to: &book)
        #expect(renamed.steps == [.renameSection(from: "Frozen", to: "Freezer")])
        let removed = try apply(.removeSection("Dairy", on: .id(1)), to: &book)
        #expect(removed.steps == [.removeSection(section: "Dairy")])
        #expect(try shape(book) == ["-: batteries,milk,butter", "Freezer: ", "Bakery: bread"], "its items join the section above")
        try apply(.removeSection("Bakery", on: .id(1)), to: &book)
        #expect(try shape(book) == ["-: batteries,milk,butter", "Freezer: bread"])
        #expect(denial { () throws(ListError) in _ = try book.apply(.removeSection("Dairy", on: .id(1)), at: t1, origin: me) }
            == .sectionNotFound(section: "Dairy", list: "Groceries"))
    }
}

@Suite struct QuantityTests {
    @Test func anAmountIsSetChangedAndCleared() throws {
        var book = try groceries(["milk", "eggs"])
        let set = try apply(.setQuantity("MILK", on: .id(1), quantity: " 2 l "), to: &book)
        #expect(set.steps == [.quantity(item: "milk", quantity: "2 l")])
        #expect(set.list.quantities == ["milk": "2 l"])
        #expect(try book.apply(.setQuantity("milk", on: .id(1), quantity: "2 l"), at: t1, origin: me) == nil)
        try apply(.setQuantity("milk", on: .id(1), quantity: "½ l"), to: &book)
        let cleared = try apply(.setQuantity("milk", on: .id(1), quantity: nil), to: &book)
        #expect(cleared.steps == [.quantity(item: "milk", quantity: nil)])
        #expect(cleared.list.quantities.isEmpty)
        let added = try apply(.addItem("flour", to: .id(1), quantity: "500 g"), to: &book)
        #expect(added.list.quantities == ["flour": "500 g"])
    }

    /// Issue 63, case 1: an item named with an amount is the item, whatever its amount now.
    @Test func anItemNamedWithItsAmountIsTheItem() throws {
        var book = try groceries(["milk"])
        _ = try apply(.addItem("eggs", to: .id(1), quantity: "6"), to: &book)
        #expect(try apply(.checkItem("eggs (12)", on: .id(1)), to: &book).list.checked.contains("eggs"))
        #expect(try apply(.setQuantity("12 eggs", on: .id(1), quantity: "12"), to: &book).list.quantities["eggs"] == "12")
        #expect(try apply(.removeItem("2 l milk", from: .id(1)), to: &book).list.items == ["eggs"])
        let error = denial { () throws(ListError) in _ = try book.apply(.checkItem("6 apples", on: .id(1)), at: t1, origin: me) }
        #expect(error == .itemNotFound(item: "6 apples", list: "Groceries"))
    }

    @Test func anAmountIsOneShortLineAndANoteIsKept() throws {
        var book = try groceries(["milk"])
        for (text, violation) in [
            ("", ListText.Violation.empty), ("2\nl", .controlCharacter(scalar: 10)),
            (String(repeating: "1", count: 101), .quantityTooLong(length: 101)),
        ] {
            let error = denial { () throws(ListError) in _ = try book.apply(.setQuantity("milk", on: .id(1), quantity: text), at: t1, origin: me) }
            #expect(error == .invalidQuantity(text, violation), "\(text)")
            #expect(error?.reason == "invalidQuantity")
        }
        #expect(denial { () throws(ListError) in _ = try book.apply(.addItem("jam", to: .id(1), quantity: "12 (large"), at: t1, origin: me) }?.reason
            == "invalidQuantity")
        #expect(try book.list(.id(1)).items == ["milk"], "a denied add adds nothing")
        // Issue 63: what is not a count or a measure is kept, as a note.
        let noted = try apply(.addItem("rice", to: .id(1), quantity: "a few bags"), to: &book)
        #expect(noted.list.quantities["rice"] == "a few bags")
    }

    @Test func anAmountFollowsItsItemAndGoesWithIt() throws {
        var book = try groceries(["milk"])
        try apply(.setQuantity("milk", on: .id(1), quantity: "2 l"), to: &book)
        try apply(.replaceItem("milk", with: "oat milk", on: .id(1)), to: &book)
        #expect(try book.list(.id(1)).quantities == ["oat milk": "2 l"])
        try apply(.removeItem("oat milk", from: .id(1)), to: &book)
        try apply(.addItem("oat milk", to: .id(1)), to: &book)
        #expect(try book.list(.id(1)).quantities.isEmpty, "an item added again starts without one")
    }
}

@Suite struct SectionHistoryTests {
    /// Every new change, from the sectioned book: each must redo from its record to the same
    /// lists, and undo (its inverse, applied) back to the lists before it.
    static let edits: [ListEdit] = [
        .addItem("cheese", to: .id(1), section: "Dairy", quantity: "200 g"),
        .addItem("tape", to: .id(1), section: ""),
        .moveItemInto("milk", on: .id(1), section: "Bakery", before: "bread"),
        .moveItemInto("butter", on: .id(1), section: "", before: nil),
        .moveItemInto("milk", on: .id(1), section: nil, before: nil),
        .moveItemInto("batteries", on: .id(1), section: "Dairy", before: nil),
        .addSection("Frozen", on: .id(1), before: "Bakery"),
        .renameSection("Dairy", on: .id(1), to: "Milk & co"),
        .removeSection("Dairy", on: .id(1)),
        .removeSection("Bakery", on: .id(1)),
        .setQuantity("milk", on: .id(1), quantity: "2 l"),
        .removeItem("milk", from: .id(1)),
        .removeItems(["milk", "bread"], from: .id(1)),
        .replaceItem("butter", with: "salted butter", on: .id(1)),
        // Issue 36, item 1: checked milk added again into a section, with an amount: one change.
        .addItem("milk", to: .id(1), section: "Bakery", quantity: "2 l"),
        .addItem("milk", to: .id(1), section: ""),
        .addItem("milk", to: .id(1), quantity: "3 l"),
    ]

    /// Issue 36, item 1: a checked item added again with `--section` and `--amount` is needed
    /// again there, with that amount, in one change (before, it was only unchecked).
    @Test func aCheckedItemAddedAgainIntoASectionWithAnAmountGoesThereInOneChange() throws {
        var book = try sectioned()
        try apply(.checkItem("milk", on: .id(1)), to: &book)
        let change = try apply(.addItem("Milk", to: .id(1), section: "Fridge", quantity: "2 l"), to: &book)
        #expect(try shape(book) == ["-: batteries", "Dairy: butter", "Bakery: bread", "Fridge: milk"])
        let list = try book.list(.id(1))
        #expect(!list.isChecked("milk") && list.quantities["milk"] == "2 l")
        #expect(change.steps == [.addSection(section: "Fridge"), .uncheck(item: "milk"), .move(item: "milk", to: 3, section: "Fridge"), .quantity(item: "milk", quantity: "2 l")])
        // Added again as it is (no section, no amount named): only unchecked, as before.
        try apply(.checkItem("milk", on: .id(1)), to: &book)
        #expect(try apply(.addItem("milk", to: .id(1)), to: &book).steps == [.uncheck(item: "milk")])
    }

    @Test(arguments: edits) func eachChangeRedoesFromItsRecordAndUndoesToTheListsBefore(_ edit: ListEdit) throws {
        var before = try sectioned()
        try apply(.setQuantity("milk", on: .id(1), quantity: "1 l"), to: &before)
        try apply(.checkItem("milk", on: .id(1)), to: &before)
        var after = before
        let (change, record) = try #require(try after.applyRecorded(edit, at: t1, origin: me))
        var redone = before
        let redoneChange = try redone.redo(record)
        #expect(redone == after, "redone from its record")
        #expect(redoneChange.steps == change.steps)
        #expect(redone.lists[0].lastSections == after.lists[0].lastSections)
        var undone = after
        try apply(try record.inverse(before: before), to: &undone)
        let (was, now) = (before.lists[0], undone.lists[0])
        #expect(now.items == was.items, "\(edit)")
        #expect(now.sections == was.sections, "\(edit)")
        #expect(now.quantities == was.quantities, "\(edit)")
        #expect(now.checked == was.checked, "\(edit)")
    }

    /// Chosen: the section an add made stays when the add is undone (empty); the item goes.
    @Test func undoingAnAddThatMadeASectionTakesTheItemOff() throws {
        let before = try sectioned()
        var after = before
        let (_, record) = try #require(try after.applyRecorded(.addItem("ice", to: .id(1), section: "Frozen"), at: t1, origin: me))
        var redone = before
        try redone.redo(record)
        #expect(redone == after)
        try apply(try record.inverse(before: before), to: &after)
        #expect(try shape(after) == ["-: batteries", "Dairy: milk,butter", "Bakery: bread", "Frozen: "])
    }

    @Test func aListWithSectionsAndAmountsIsDeletedAndRestoredWhole() throws {
        var before = try sectioned()
        try apply(.setQuantity("bread", on: .id(1), quantity: "1 loaf"), to: &before)
        var after = before
        let (_, record) = try #require(try after.applyRecorded(.deleteList(.id(1)), at: t1, origin: me))
        try apply(try record.inverse(before: before), to: &after)
        let restored = try after.list(.id(1))
        #expect(restored.sections == (try before.list(.id(1))).sections)
        #expect(restored.quantities == ["bread": "1 loaf"])
    }
}
