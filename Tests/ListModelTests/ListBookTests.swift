import ListModel
import Testing

@Suite struct CreateTests {
    @Test func createAssignsIDRevisionAndStamp() throws {
        var book = ListBook()
        let change = try #require(
            try book.apply(.createList(name: "  Groceries ", items: [" milk"]), at: t0, origin: me)
        )
        #expect(change.kind == .created)
        #expect(change.revision == 1)
        #expect(change.list == ShoppingList(id: 1, name: "Groceries", edited: t0, revision: 1, items: ["milk"]))
        #expect(book.revision == 1)
        #expect(book.nextID == 2)
    }

    @Test func createDeniesANameInUseComparedCaseInsensitively() throws {
        var book = try groceries()
        let error = denial { () throws(ListError) in
            _ = try book.apply(.createList(name: "GROCERIES ", items: []), at: t1, origin: me)
        }
        #expect(error == .listExists(name: "Groceries"))
        #expect(error?.reason == "listExists")
        #expect(error?.message == "There is already a list called “Groceries”.")
        #expect(book.revision == 1)
    }

    @Test func createDeniesDuplicateStartingItems() {
        var book = ListBook()
        let error = denial { () throws(ListError) in
            _ = try book.apply(.createList(name: "A", items: ["milk", "MILK"]), at: t0, origin: me)
        }
        #expect(error == .itemExists(item: "MILK", list: "A"))
        #expect(book.lists.isEmpty)
        #expect(book.revision == 0)
    }

    @Test func createDeniesInvalidNamesAndItems() {
        var book = ListBook()
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.createList(name: "  ", items: []), at: t0, origin: me)
            } == .invalidName("  ", .empty)
        )
        #expect(
            denial { () throws(ListError) in
                _ = try book.apply(.createList(name: "A", items: ["ok", ""]), at: t0, origin: me)
            } == .invalidItem("", .empty)
        )
        #expect(book.lists.isEmpty)
    }

    @Test func idsAreNeverReusedAfterDelete() throws {
        var book = try groceries()
        _ = try book.apply(.deleteList(.id(1)), at: t1, origin: me)
        let change = try #require(try book.apply(.createList(name: "Groceries", items: []), at: t1, origin: me))
        #expect(change.list.id == 2)
    }
}

@Suite struct ItemRuleTests {
    @Test func addAppendsAndStampsTheList() throws {
        var book = try groceries()
        let change = try #require(try book.apply(.addItem(" bread ", to: .name("groceries")), at: t1, origin: me))
        #expect(change.kind == .updated)
        #expect(change.steps == [.add(item: "bread")])
        #expect(change.list.items == ["milk", "eggs", "bread"])
        #expect(change.list.edited == t1)
        #expect(change.list.revision == 2)
        #expect(change.origin == me)
    }

    @Test(arguments: ["milk", "Milk ", "  MILK", "mIlK\t"])
    func addDeniesAnItemAlreadyThere(_ text: String) throws {
        var book = try groceries()
        let error = denial { () throws(ListError) in _ = try book.apply(.addItem(text, to: .id(1)), at: t1, origin: me)
        }
        #expect(error == .itemExists(item: "milk", list: "Groceries"))
        #expect(error?.message == "“milk” is already on Groceries.")
        #expect(book == (try groceries()))
    }

    @Test func caseFoldingCoversNonASCII() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "Einkauf", items: ["Straße", "ÄPFEL"]), at: t0, origin: me)
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.addItem("STRASSE", to: .id(1)), at: t1, origin: me) }
                != nil
        )
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.addItem("äpfel", to: .id(1)), at: t1, origin: me) }
                != nil
        )
        // Precomposed and decomposed "é" are the same text.
        _ = try book.apply(.addItem("caf\u{E9}", to: .id(1)), at: t1, origin: me)
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.addItem("cafe\u{301}", to: .id(1)), at: t1, origin: me)
            } != nil
        )
    }

    @Test func theSpellingFirstStoredIsKept() throws {
        var book = try groceries()
        _ = try? book.apply(.addItem("MILK", to: .id(1)), at: t1, origin: me)
        #expect(try book.list(.id(1)).items == ["milk", "eggs"])
    }

    @Test func itemsMustBeOneNonEmptyLineOfAtMost1000Characters() throws {
        var book = try groceries()
        let exactly1000 = String(repeating: "é", count: 1000)
        #expect(try book.apply(.addItem(exactly1000, to: .id(1)), at: t1, origin: me) != nil)
        let cases: [(String, ListText.Violation)] = [
            ("", .empty),
            (" \t ", .empty),
            (String(repeating: "x", count: 1001), .tooLong(length: 1001)),
            ("two\nlines", .controlCharacter(scalar: 0x0A)),
            ("bell\u{7}", .controlCharacter(scalar: 0x07)),
            ("a\u{2028}b", .controlCharacter(scalar: 0x2028)),
        ]
        for (text, violation) in cases {
            let error = denial { () throws(ListError) in
                _ = try book.apply(.addItem(text, to: .id(1)), at: t1, origin: me)
            }
            #expect(error == .invalidItem(text, violation))
            #expect(error?.reason == "invalidItem")
        }
    }

    @Test func replaceKeepsThePosition() throws {
        var book = try groceries()
        let change = try #require(
            try book.apply(.replaceItem("MILK", with: "oat milk", on: .id(1)), at: t1, origin: me)
        )
        #expect(change.steps == [.replace(item: "milk", with: "oat milk")])
        #expect(change.list.items == ["oat milk", "eggs"])
    }

    @Test func replaceDeniesAMissingItemAndAClashWithAnotherItem() throws {
        var book = try groceries()
        #expect(
            denial { () throws(ListError) in
                _ = try book.apply(.replaceItem("bread", with: "rye", on: .id(1)), at: t1, origin: me)
            }
                == .itemNotFound(item: "bread", list: "Groceries")
        )
        #expect(
            denial { () throws(ListError) in
                _ = try book.apply(.replaceItem("milk", with: " Eggs", on: .id(1)), at: t1, origin: me)
            }
                == .itemExists(item: "eggs", list: "Groceries")
        )
        #expect(
            denial { () throws(ListError) in
                _ = try book.apply(.replaceItem("milk", with: "", on: .id(1)), at: t1, origin: me)
            }
                == .invalidItem("", .empty)
        )
    }

    @Test func replaceMayChangeTheSpellingOfTheSameItem() throws {
        var book = try groceries()
        let change = try #require(try book.apply(.replaceItem("milk", with: "Milk", on: .id(1)), at: t1, origin: me))
        #expect(change.list.items == ["Milk", "eggs"])
    }

    @Test func replaceWithIdenticalTextChangesNothing() throws {
        var book = try groceries()
        #expect(try book.apply(.replaceItem("milk", with: "milk ", on: .id(1)), at: t1, origin: me) == nil)
        #expect(book.revision == 1)
    }

    @Test func removeTakesTheItemOutOrDenies() throws {
        var book = try groceries()
        let change = try #require(try book.apply(.removeItem(" EGGS", from: .name("Groceries")), at: t1, origin: me))
        #expect(change.steps == [.remove(item: "eggs")])
        #expect(change.list.items == ["milk"])
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.removeItem("eggs", from: .id(1)), at: t1, origin: me) }
                == .itemNotFound(item: "eggs", list: "Groceries")
        )
    }
}

extension ItemRuleTests {
    /// Issue 26, item 1: a moved line is a move of the same item, kept in the change log as one
    /// record that redoes to the same change.
    @Test func moveKeepsTheItemAndRedoesFromItsRecord() throws {
        var book = try groceries()
        _ = try book.apply(.addItem("bread", to: .id(1)), at: t1, origin: me)
        let before = book
        let change = try #require(try book.apply(.moveItem("BREAD", on: .id(1), after: nil), at: t1, origin: .file))
        #expect(change.steps == [.move(item: "bread", to: 0)])
        #expect(change.list.items == ["bread", "milk", "eggs"])
        var redone = before
        let record = ChangeRecord(change, before: try before.list(.id(1)))
        #expect(record.operation == .move(id: 1, from: 2, to: 0))
        #expect(try redone.redo(record) == change)
        #expect(redone == book)
        // Already there, or after an item no longer on the list: nothing changes.
        #expect(try book.apply(.moveItem("milk", on: .id(1), after: "bread"), at: t1, origin: .file) == nil)
        #expect(try book.apply(.moveItem("milk", on: .id(1), after: "cake"), at: t1, origin: .file) == nil)
        #expect(
            denial { () throws(ListError) in
                _ = try book.apply(.moveItem("cake", on: .id(1), after: nil), at: t1, origin: me)
            } == .itemNotFound(item: "cake", list: "Groceries")
        )
    }
}

@Suite struct ListRuleTests {
    @Test func renameKeepsTheIDAndDeniesANameInUseByAnotherList() throws {
        var book = try groceries()
        _ = try book.apply(.createList(name: "Hardware", items: []), at: t0, origin: me)
        let change = try #require(try book.apply(.renameList(.name("groceries"), to: "Food"), at: t1, origin: me))
        #expect(change.kind == .renamed)
        #expect(change.list.id == 1)
        #expect(change.steps == [.rename(from: "Groceries", to: "Food")])
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.renameList(.id(1), to: "HARDWARE"), at: t1, origin: me)
            }
                == .listExists(name: "Hardware", renaming: "Food")
        )
        // Its own name in other letter case is not "in use by another list".
        #expect(try book.apply(.renameList(.id(1), to: "FOOD"), at: t1, origin: me)?.list.name == "FOOD")
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.renameList(.id(1), to: "a\u{0}b"), at: t1, origin: me)
            }
                == .invalidName("a\u{0}b", .controlCharacter(scalar: 0))
        )
    }

    @Test func renameAndDeleteDenyAnUnknownList() throws {
        var book = try groceries()
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.renameList(.id(9), to: "X"), at: t1, origin: me) }
                == .listNotFound(.id(9))
        )
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.deleteList(.name("Nope")), at: t1, origin: me) }
                == .listNotFound(.name("Nope"))
        )
        #expect(
            denial { () throws(ListError) in _ = try book.apply(.addItem("x", to: .name("Nope")), at: t1, origin: me) }?
                .message
                == "There is no list called “Nope”."
        )
    }

    @Test func deleteReturnsTheLastState() throws {
        var book = try groceries()
        let change = try #require(try book.apply(.deleteList(.id(1)), at: t1, origin: me))
        #expect(change.kind == .deleted)
        #expect(change.revision == 2)
        #expect(change.list.items == ["milk", "eggs"])
        #expect(book.lists.isEmpty)
    }

    @Test func ifRevisionIsCompareAndSwap() throws {
        var book = try groceries()
        #expect(try book.apply(.addItem("bread", to: .id(1)), ifRevision: 1, at: t1, origin: me) != nil)
        let error = denial { () throws(ListError) in
            _ = try book.apply(.addItem("jam", to: .id(1)), ifRevision: 1, at: t1, origin: me)
        }
        #expect(error == .conflict(list: "Groceries", expected: 1, actual: 2))
        #expect(error?.reason == "conflict")
        #expect(
            denial { () throws(ListError) in
                _ = try book.apply(.createList(name: "B", items: []), ifRevision: 0, at: t1, origin: me)
            }?.reason == "conflict"
        )
        #expect(try book.apply(.createList(name: "B", items: []), ifRevision: 2, at: t1, origin: me) != nil)
    }

    @Test func everyAppliedChangeRaisesTheRevisionByExactlyOne() throws {
        var book = ListBook()
        var revisions: [Revision] = []
        let edits: [ListEdit] = [
            .createList(name: "A", items: []), .addItem("x", to: .id(1)), .replaceItem("x", with: "y", on: .id(1)),
            .renameList(.id(1), to: "B"), .removeItem("y", from: .id(1)), .deleteList(.id(1)),
        ]
        for edit in edits {
            revisions.append(try #require(try book.apply(edit, at: t1, origin: me)).revision)
            _ = denial { () throws(ListError) in _ = try book.apply(.addItem("", to: .id(1)), at: t1, origin: me) }
        }
        #expect(revisions == [1, 2, 3, 4, 5, 6])
    }
}

@Suite struct TimestampTests {
    @Test func formatsAndParsesRFC3339() throws {
        let stamp = Timestamp(millisecondsSinceEpoch: 1_795_330_023_123)
        #expect(stamp.rfc3339 == "2026-11-22T06:47:03.123Z")
        #expect(Timestamp(rfc3339: stamp.rfc3339) == stamp)
        #expect(Timestamp(rfc3339: "1970-01-01T00:00:00Z") == .epoch)
        #expect(Timestamp(rfc3339: "2026-11-22T08:47:03.123+02:00") == stamp)
        #expect(Timestamp(rfc3339: "2024-02-29T00:00:00Z")?.rfc3339 == "2024-02-29T00:00:00.000Z")
        #expect(Timestamp(rfc3339: "not a time") == nil)
        #expect(Timestamp(rfc3339: "2026-13-01T00:00:00Z") == nil)
        #expect(Timestamp.epoch.rfc3339 == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSinceEpoch: 253_402_300_799_999).rfc3339 == "9999-12-31T23:59:59.999Z")
        // Any instant from 1970 to 9999, to the millisecond, reads back as itself.
        for _ in 0..<10_000 {
            let random = Timestamp(millisecondsSinceEpoch: .random(in: 0...253_402_300_799_999))
            #expect(random.rfc3339.utf8.count == 24)
            #expect(Timestamp(rfc3339: random.rfc3339) == random)
        }
    }
}

@Suite struct ReplayTests {
    @Test func replayingEveryChangeRebuildsTheBook() throws {
        var book = ListBook()
        var changes: [ListChange] = []
        func record(_ edit: ListEdit) throws {
            if let change = try book.apply(edit, at: t1, origin: me) { changes.append(change) }
        }
        try record(.createList(name: "Groceries", items: ["milk"]))
        try record(.createList(name: "Hardware", items: []))
        try record(.addItem("eggs", to: .id(1)))
        try record(.renameList(.id(2), to: "Tools"))
        try record(.replaceItem("milk", with: "oat milk", on: .id(1)))
        try record(.createList(name: "Gone", items: []))
        try record(.deleteList(.id(3)))
        var replayed = ListBook()
        for change in changes { replayed.replay(change) }
        #expect(replayed == book)
        #expect(replayed.nextID == 4, "a deleted list's id is not handed out again")
        // A change replayed twice (the log read after a snapshot that has it) changes nothing.
        replayed.replay(changes[2])
        #expect(replayed.lists == book.lists)
    }
}
