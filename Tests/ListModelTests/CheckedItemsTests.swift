import ListModel
import Testing

@Suite struct CheckTests {
    @Test func checkingTicksTheItemOffAndKeepsItOnTheList() throws {
        var book = try groceries(["milk", "eggs", "bread"])
        let change = try #require(try book.apply(.checkItem("MILK ", on: .name("groceries")), at: t1, origin: me))
        #expect(change.steps == [.check(item: "milk")])
        #expect(change.revision == 2)
        #expect(change.list.items == ["milk", "eggs", "bread"])
        #expect(change.list.checkedItems == ["milk"])
        #expect(change.list.edited == t1)
        // Checking it again, or unchecking what is not checked, changes nothing.
        #expect(try book.apply(.checkItem("milk", on: .id(1)), at: t1, origin: me) == nil)
        #expect(try book.apply(.uncheckItem("eggs", on: .id(1)), at: t1, origin: me) == nil)
        #expect(book.revision == 2)
        let unchecked = try #require(try book.apply(.uncheckItem("milk", on: .id(1)), at: t1, origin: me))
        #expect(unchecked.steps == [.uncheck(item: "milk")])
        #expect(unchecked.list.checked.isEmpty)
    }

    @Test func checkingAnItemThatIsNotThereIsDenied() throws {
        var book = try groceries(["milk", "eggs", "bread"])
        let error = denial { () throws(ListError) in _ = try book.apply(.checkItem("jam", on: .id(1)), at: t1, origin: me) }
        #expect(error == .itemNotFound(item: "jam", list: "Groceries"))
        #expect(error?.reason == "itemNotFound")
        let conflict = denial { () throws(ListError) in
            _ = try book.apply(.checkItem("milk", on: .id(1)), ifRevision: 7, at: t1, origin: me)
        }
        #expect(conflict?.reason == "conflict")
    }

    @Test func addingACheckedItemUnchecksItAndAnUncheckedOneIsADuplicate() throws {
        var book = try groceries(["milk", "eggs", "bread"])
        _ = try book.apply(.checkItem("milk", on: .id(1)), at: t1, origin: me)
        let change = try #require(try book.apply(.addItem("Milk", to: .id(1)), at: t1, origin: me))
        #expect(change.steps == [.uncheck(item: "milk")])
        #expect(change.list.items == ["milk", "eggs", "bread"], "no second milk")
        #expect(change.list.checked.isEmpty)
        let error = denial { () throws(ListError) in _ = try book.apply(.addItem("milk", to: .id(1)), at: t1, origin: me) }
        #expect(error == .itemExists(item: "milk", list: "Groceries"))
    }

    @Test func aReplacedItemKeepsItsTickAndARemovedOneLosesIt() throws {
        var book = try groceries(["milk", "eggs", "bread"])
        _ = try book.apply(.checkItem("milk", on: .id(1)), at: t1, origin: me)
        let replaced = try #require(try book.apply(.replaceItem("milk", with: "oat milk", on: .id(1)), at: t1, origin: me))
        #expect(replaced.list.checkedItems == ["oat milk"])
        let removed = try #require(try book.apply(.removeItem("oat milk", from: .id(1)), at: t1, origin: me))
        #expect(removed.list.checked.isEmpty)
    }

    @Test func clearingRemovesEveryCheckedItemAsOneChange() throws {
        var book = try groceries(["milk", "eggs", "bread"])
        _ = try book.apply(.checkItem("bread", on: .id(1)), at: t1, origin: me)
        _ = try book.apply(.checkItem("milk", on: .id(1)), at: t1, origin: me)
        let (change, record) = try #require(try book.applyRecorded(.clearChecked(.id(1)), at: t1, origin: me))
        #expect(change.revision == 4, "one revision")
        #expect(change.steps == [.remove(item: "milk"), .remove(item: "bread")], "each removal, in list order")
        #expect(change.list.items == ["eggs"])
        #expect(change.list.checked.isEmpty)
        #expect(
            record.operation
                == .removeItems(id: 1, [PlacedItem("milk", at: 0, checked: true), PlacedItem("bread", at: 2, checked: true)])
        )
        // Nothing checked: nothing to clear.
        #expect(try book.apply(.clearChecked(.id(1)), at: t1, origin: me) == nil)
    }

    @Test func clearingKeepsTheItemsDelegatesRefused() throws {
        var book = try groceries(["milk", "eggs", "bread"])
        _ = try book.apply(.checkItem("bread", on: .id(1)), at: t1, origin: me)
        _ = try book.apply(.checkItem("milk", on: .id(1)), at: t1, origin: me)
        let change = try #require(try book.apply(.clearChecked(.id(1), keeping: ["milk"]), at: t1, origin: me))
        #expect(change.steps == [.remove(item: "bread")])
        #expect(change.list.items == ["milk", "eggs"])
        #expect(change.list.checkedItems == ["milk"])
    }
}

@Suite struct RedoAndUndoTests {
    /// Every edit of each kind, as a sequence: each change's record, redone on the lists before
    /// it, gives the same change; its inverse, applied right after it, gives back the lists before.
    @Test func everyKindOfChangeIsRedoneFromItsRecordAndUndoneByItsInverse() throws {
        let edits: [ListEdit] = [
            .createList(name: "Groceries", items: ["milk", "eggs", "bread", "jam"]),
            .addItem("tea", to: .id(1), at: 1),
            .checkItem("eggs", on: .id(1)),
            .checkItem("jam", on: .id(1)),
            .replaceItem("eggs", with: "brown eggs", on: .id(1)),
            .moveItem("bread", on: .id(1), after: nil),
            .removeItem("brown eggs", from: .id(1)),
            .checkItem("milk", on: .id(1)),
            .clearChecked(.id(1)),
            .checkItem("tea", on: .id(1)),
            .uncheckItem("tea", on: .id(1)),
            .checkItem("tea", on: .id(1)),
            .addItem("tea", to: .id(1)),
            .renameList(.id(1), to: "Food"),
            .checkItem("bread", on: .id(1)),
            .deleteList(.id(1)),
        ]
        var book = ListBook()
        for edit in edits {
            let before = book
            let (change, record) = try #require(try book.applyRecorded(edit, at: t1, origin: me), "\(edit)")
            var redone = before
            #expect(try redone.redo(record) == change, "redo of \(edit)")
            #expect(redone == book)
            var undone = book
            let inverse = try record.inverse(before: before)
            _ = try #require(try undone.apply(inverse, at: t1, origin: me), "inverse of \(edit)")
            // The same lists as before (revisions and times move on).
            #expect(undone.lists.map(\.name) == before.lists.map(\.name), "undo of \(edit)")
            #expect(undone.lists.map(\.items) == before.lists.map(\.items), "undo of \(edit)")
            #expect(undone.lists.map(\.checked) == before.lists.map(\.checked), "undo of \(edit)")
            #expect(undone.lists.map(\.id) == before.lists.map(\.id), "undo of \(edit)")
        }
    }

    @Test func anUndoThatNoLongerFitsIsDeniedWithTheUsualReason() throws {
        var book = try groceries(["milk", "eggs", "bread"])
        let before = book
        let (_, added) = try #require(try book.applyRecorded(.addItem("tea", to: .id(1)), at: t1, origin: me))
        _ = try book.apply(.removeItem("tea", from: .id(1)), at: t1, origin: me)
        let inverse = try added.inverse(before: before)
        let error = denial { () throws(ListError) in _ = try book.apply(inverse, at: t1, origin: me) }
        #expect(error == .itemNotFound(item: "tea", list: "Groceries"))
        let blocked = ListError.undoBlocked(revision: 2, error: error!)
        #expect(blocked.reason == "itemNotFound")
        #expect(blocked.message == "Change #2 cannot be undone: “tea” is not on Groceries.")
    }

    @Test func aDeletedListComesBackWithItsIDUnlessItsNameIsTaken() throws {
        var book = try groceries(["milk", "eggs", "bread"])
        _ = try book.apply(.checkItem("eggs", on: .id(1)), at: t1, origin: me)
        let before = book
        let (_, deleted) = try #require(try book.applyRecorded(.deleteList(.id(1)), at: t1, origin: me))
        let inverse = try deleted.inverse(before: before)
        var taken = book
        _ = try taken.apply(.createList(name: "groceries", items: []), at: t1, origin: me)
        let error = denial { () throws(ListError) in _ = try taken.apply(inverse, at: t1, origin: me) }
        #expect(error == .listExists(name: "groceries"))
        let change = try #require(try book.apply(inverse, at: t1, origin: me))
        #expect(change.kind == .created)
        #expect(change.list.id == 1)
        #expect(change.list.checkedItems == ["eggs"])
        #expect(book.nextID == 2)
    }

    @Test func itemsPutBackGoWhereTheyWereOrAtTheEnd() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "L", items: ["a"]), at: t0, origin: me)
        let change = try #require(
            try book.apply(
                .restoreItems([PlacedItem("x", at: 0, checked: true), PlacedItem("y", at: 9, checked: false)], to: .id(1)),
                at: t1,
                origin: me
            )
        )
        #expect(change.list.items == ["x", "a", "y"])
        #expect(change.list.checkedItems == ["x"])
        #expect(change.steps == [.add(item: "x"), .check(item: "x"), .add(item: "y")])
    }
}
