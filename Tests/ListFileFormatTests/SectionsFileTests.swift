// Sections (`## Dairy`) and amounts (`- milk (2 l)`) in the list file: how they are read, what a
// person's save of them becomes, how listd writes them, and escaping.
import ListModel
import Testing

@testable import ListFileFormat

private let t0 = Timestamp(millisecondsSinceEpoch: 1_795_330_023_123)

private func firstStart(_ text: String) -> (ListBook, ListFileReading) {
    var reading = ListFileReading(ListDocument(parsing: text), known: nil)
    return (reading.book(at: t0), reading)
}

/// A person's save applied as listd applies it: the edits, and the lists after them.
private func save(_ text: String, over book: ListBook) throws -> ([ListEdit], ListBook) {
    let reading = ListFileReading(ListDocument(parsing: text), known: book)
    var book = book
    var edits: [ListEdit] = []
    for fileEdit in reading.edits(from: book) {
        _ = try book.apply(fileEdit.edit, at: t0, origin: .file)
        edits.append(fileEdit.edit)
    }
    return (edits, book)
}

/// `["-: batteries", "Dairy: milk,butter"]`: a list's parts with their items.
private func shape(_ list: ShoppingList) -> [String] {
    ["-: " + list.items[list.range(ofSection: nil)].joined(separator: ",")]
        + list.sectionsWithItems.map { "\($0.name): " + $0.items.joined(separator: ",") }
}

private let groceries = """
    # Groceries <!-- listd id=1 rev=0 -->
    - [ ] batteries (4)
    ## Dairy
    - [ ] milk (2 l)
    - [x] butter
    ## Bakery
    - [ ] bread

    """

@Suite struct SectionsFileTests {
    @Test func headingsOfLevelTwoAreSectionsAndTrailingNumbersAreAmounts() throws {
        let (book, reading) = firstStart(groceries + "### a note\n- oat milk (organic)\n")
        #expect(reading.diagnostics == [])
        let list = try book.list(.id(1))
        #expect(shape(list) == ["-: batteries", "Dairy: milk,butter", "Bakery: bread,oat milk"], "### is a note")
        #expect(list.quantities == ["batteries": "4", "milk": "2 l", "oat milk": "organic"])
        #expect(list.checked == ["butter"])
    }

    @Test func aSectionTypedAgainIsTheSameSectionAndItsItemsJoinIt() throws {
        let (_, reading) = firstStart("# Groceries\n## Dairy\n- milk\n## dairy\n- cream\n## Bakery\n- bread\n")
        #expect(reading.diagnostics == [])
        #expect(reading.sections[0].sectionLines.map(\.name) == ["Dairy", "Bakery"])
        #expect(reading.sections[0].items.map { "\($0.text)@\($0.section ?? -1)" } == ["milk@0", "cream@0", "bread@1"])
        // Typed above the real one, in another case: the real one's items stay, the typed ones
        // join it, and it keeps its name (no rename, no replace).
        let (book, _) = firstStart(groceries)
        let typed = groceries.replacing("- [ ] batteries (4)\n", with: "- [ ] batteries (4)\n## dairy\n- [ ] yoghurt\n")
        let (edits, after) = try save(typed, over: book)
        #expect(edits.allSatisfy { if case .addItem("yoghurt", _, _, "Dairy", _) = $0 { true } else { false } }, "\(edits)")
        #expect(shape(try after.list(.id(1))) == ["-: batteries", "Dairy: yoghurt,milk,butter", "Bakery: bread"])
        #expect(try after.list(.id(1)).quantities["milk"] == "2 l")
        // listd's next write keeps one line of the section.
        let reread = ListFileReading(ListDocument(parsing: typed), known: book)
        let written = ListFileWriter.text(for: after, onto: reread)
        #expect(written.split(separator: "\n").filter { $0.lowercased() == "## dairy" }.count == 1, "\(written)")
        #expect(ListFileReading(ListDocument(parsing: written), known: after).edits(from: after).isEmpty, "\(written)")
    }

    @Test(arguments: [
        ("milk (2 l)", "milk", "2 l"),
        ("milk (organic)", "milk", "organic"),
        ("batteries \\(4)", "batteries (4)", nil),
        ("batteries \\(4) (2)", "batteries (4)", "2"),
        ("(4)", "(4)", nil),
        ("flour (1½ kg)", "flour", "1½ kg"),
        ("a \\\\(4)", "a \\(4)", nil),
        // Issue 35, case 6: an amount with parentheses of its own.
        ("eggs (12 (large))", "eggs", "12 (large)"),
        ("tape (2 (3)", "tape (2", "3"),
    ] as [(String, String, String?)])
    func anAmountIsATrailingParenthesis(_ written: String, _ text: String, _ quantity: String?) {
        let read = ItemAmount.split(written)
        #expect(read.text == text)
        #expect(read.quantity == quantity)
        let again = ItemAmount.split(ItemAmount.join(read.text, read.quantity))
        #expect(again.text == text && again.quantity == quantity, "written back as \(ItemAmount.join(read.text, read.quantity))")
    }

    /// Every text and amount listd accepts is written so that it reads back the same; an amount
    /// that could not be (its parentheses unpaired) is refused.
    @Test func everyAcceptedAmountRoundTrips() {
        let alphabet = Array("ab1 2()\\½")
        var state: UInt64 = 35
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func word() -> String { String((0..<next(9)).map { _ in alphabet[next(alphabet.count)] }) }
        var checked = 0
        for _ in 0..<20_000 {
            guard case .success(let text) = ListText.validated(word()) else { continue }
            var amount: String?
            if next(3) != 0 {
                guard case .success(let accepted) = ListText.validatedQuantity(word()) else { continue }
                amount = accepted
            }
            let written = ItemAmount.join(text, amount)
            let read = ItemAmount.split(written)
            #expect(read.text == text && read.quantity == amount, "“\(text)” (\(amount ?? "none")) written as \(written)")
            checked += 1
        }
        #expect(checked > 1_000)
        #expect(ListText.validatedQuantity("12 (large") == .failure(.unbalancedParentheses))
        #expect(ListText.validatedQuantity("12 (large)") == .success("12 (large)"))
    }

    @Test func anAmountTypedChangedOrDeletedIsOneQuantityChange() throws {
        let (book, _) = firstStart(groceries)
        let (edits, after) = try save(
            groceries.replacing("- [ ] milk (2 l)", with: "- [ ] milk (1 l)").replacing("- [x] butter", with: "- [x] butter (250 g)")
                .replacing("batteries (4)", with: "batteries"),
            over: book
        )
        #expect(edits == [
            .setQuantity("batteries", on: .id(1), quantity: nil),
            .setQuantity("milk", on: .id(1), quantity: "1 l"),
            .setQuantity("butter", on: .id(1), quantity: "250 g"),
        ])
        #expect(try after.list(.id(1)).quantities == ["milk": "1 l", "butter": "250 g"])
    }

    @Test func aRetypedSectionHeadingIsOneRename() throws {
        let (book, _) = firstStart(groceries)
        let (edits, after) = try save(groceries.replacing("## Bakery", with: "## Bread & cakes"), over: book)
        #expect(edits == [.renameSection("Bakery", on: .id(1), to: "Bread & cakes")])
        #expect(shape(try after.list(.id(1))) == ["-: batteries", "Dairy: milk,butter", "Bread & cakes: bread"])
    }

    @Test func aLineMovedToAnotherSectionIsOneMove() throws {
        let (book, _) = firstStart(groceries)
        // butter cut from Dairy and pasted under Bakery, after bread.
        let moved = groceries.replacing("- [x] butter\n", with: "").replacing("- [ ] bread\n", with: "- [ ] bread\n- [x] butter\n")
        let (edits, after) = try save(moved, over: book)
        #expect(edits.count == 1, "\(edits)")
        #expect(shape(try after.list(.id(1))) == ["-: batteries", "Dairy: milk", "Bakery: bread,butter"])
        // A heading moved up one line: the item it passes is moved, nothing else.
        let (current, _) = firstStart(moved)
        let (second, last) = try save(moved.replacing("- [ ] milk (2 l)\n## Bakery\n", with: "## Bakery\n- [ ] milk (2 l)\n"), over: current)
        #expect(second.count == 1, "\(second)")
        #expect(shape(try last.list(.id(1))) == ["-: batteries", "Dairy: ", "Bakery: milk,bread,butter"])
    }

    @Test func aHeadingTypedOrDeletedIsASectionAddedOrRemovedKeepingTheItems() throws {
        let (book, _) = firstStart(groceries)
        let (added, withFrozen) = try save(groceries.replacing("- [ ] bread\n", with: "- [ ] bread\n## Frozen\n- [ ] peas\n"), over: book)
        #expect(added.count == 2, "the section, then the new item in it: \(added)")
        #expect(shape(try withFrozen.list(.id(1))) == ["-: batteries", "Dairy: milk,butter", "Bakery: bread", "Frozen: peas"])
        // A heading typed above items that were there takes them, in one change.
        let (typed, sectioned) = try save(groceries.replacing("- [ ] batteries (4)\n", with: "## Hardware\n- [ ] batteries (4)\n"), over: book)
        #expect(typed == [.restoreSection("Hardware", on: .id(1), before: "Dairy", items: ["batteries"])])
        #expect(shape(try sectioned.list(.id(1))) == ["-: ", "Hardware: batteries", "Dairy: milk,butter", "Bakery: bread"])
        // A heading deleted: its items join the part above.
        let (removed, merged) = try save(groceries.replacing("## Bakery\n", with: ""), over: book)
        #expect(removed == [.removeSection("Bakery", on: .id(1))])
        #expect(shape(try merged.list(.id(1))) == ["-: batteries", "Dairy: milk,butter,bread"])
    }

    @Test func listdWritesSectionsAndAmountsAndKeepsThePersonsLines() throws {
        let (book, reading) = firstStart(groceries)
        #expect(ListFileWriter.text(for: book, onto: reading) == groceries, "unchanged lists: the same bytes")
        var edited = book
        _ = try edited.apply(.moveItemInto("butter", on: .id(1), section: "Bakery", before: nil), at: t0, origin: .file)
        _ = try edited.apply(.addItem("cheese", to: .id(1), section: "Cheese", quantity: "200 g"), at: t0, origin: .file)
        _ = try edited.apply(.renameSection("Dairy", on: .id(1), to: "Milk"), at: t0, origin: .file)
        _ = try edited.apply(.addItem("batteries (AA)", to: .id(1), section: ""), at: t0, origin: .file)
        _ = try edited.apply(.addItem("tape (2)", to: .id(1), section: ""), at: t0, origin: .file)
        let text = ListFileWriter.text(for: edited, onto: reading)
        #expect(text == """
            # Groceries <!-- listd id=1 rev=5 -->
            - [ ] batteries (4)
            - [ ] batteries \\(AA)
            - [ ] tape \\(2)
            ## Milk
            - [ ] milk (2 l)
            ## Bakery
            - [ ] bread
            - [x] butter
            ## Cheese
            - [ ] cheese (200 g)

            """)
        // Read back: the same lists.
        let again = ListFileReading(ListDocument(parsing: text), known: edited)
        #expect(again.edits(from: edited).isEmpty)
    }

    @Test func aFileFromBeforeAmountsLoadsEveryItemWithItsText() throws {
        // An earlier listd kept the item "batteries (4)" and wrote it so: it keeps its text (no
        // edit), and is written escaped from then on; a new item typed so has an amount.
        let old = "# Groceries <!-- listd id=1 -->\n- [ ] batteries (4)\n- [ ] milk\n"
        let book = ListBook(
            lists: [ShoppingList(id: 1, name: "Groceries", edited: t0, revision: 2, items: ["batteries (4)", "milk"])],
            revision: 2,
            nextID: 2
        )
        let reading = ListFileReading(ListDocument(parsing: old), known: book)
        #expect(reading.edits(from: book).isEmpty)
        var edited = book
        _ = try edited.apply(.checkItem("batteries (4)", on: .id(1)), at: t0, origin: .file)
        #expect(ListFileWriter.text(for: edited, onto: reading) == "# Groceries <!-- listd id=1 rev=3 -->\n- [x] batteries \\(4)\n- [ ] milk\n")
        let (edits, _) = try save(old + "- [ ] tape (2)\n", over: book)
        #expect(edits == [.addItem("tape", to: .id(1), at: 2, section: nil, quantity: "2")])
    }
}

/// A heading not taken whose section is still tied to its list (a new list's heading the save
/// did not make, over a list that exists): the `##` lines under it are marked, and the list is
/// written with its sections all the same (the save model found the list written without them).
@Test func aListUnderAHeadingNotTakenKeepsItsSections() throws {
    let (book, _) = firstStart("# Pharmacy <!-- listd id=3 -->\n## Snacks\n- [ ] wine\n- [x] salt\n")
    var reading = ListFileReading(ListDocument(parsing: "# Garden\n## Snacks\n- [ ] wine\n- [ ] salt\n"), known: book)
    reading.sections[0].id = 3
    let rejected = Dictionary(uniqueKeysWithValues: (0..<4).map { ($0, "not taken") })
    let text = ListFileWriter.text(for: book, onto: reading, rejected: rejected)
    let (read, _) = firstStart(text)
    let list = try read.list(.id(3))
    #expect(list.name == "Pharmacy")
    #expect(shape(list) == ["-: ", "Snacks: wine,salt"], "\(text)")
    #expect(list.checked == ["salt"], "\(text)")
}

/// Issue 63, case 1: amounts typed before or after an item in the file, as people write them.
@Suite struct TypedAmountsFileTests {
    private let typed = """
        # Groceries <!-- listd id=1 rev=0 -->
        - [ ] 2 l milk
        - [ ] bread x2
        - [ ] 6 free-range eggs
        - [ ] flour 500 g
        - [ ] rice (a few bags)

        """

    @Test func eachFormIsTheItemWithItsAmountAndTheLinesStayAsTyped() throws {
        let (book, reading) = firstStart(typed)
        #expect(reading.diagnostics == [])
        let list = try book.list(.id(1))
        #expect(Array(list.items) == ["milk", "bread", "free-range eggs", "flour", "rice"])
        #expect(list.quantities == ["milk": "2 l", "bread": "x2", "free-range eggs": "6", "flour": "500 g", "rice": "a few bags"])
        #expect(ListFileWriter.text(for: book, onto: reading) == typed, "the person's lines, unchanged")
        var edited = book
        _ = try edited.apply(.setQuantity("milk", on: .id(1), quantity: "1 l"), at: t0, origin: .file)
        _ = try edited.apply(.setQuantity("bread", on: .id(1), quantity: "a loaf"), at: t0, origin: .file)
        let text = ListFileWriter.text(for: edited, onto: reading)
        #expect(text.contains("- [ ] 1 l milk\n"), "a changed amount keeps the place it was typed in: \(text)")
        #expect(text.contains("- [ ] bread (a loaf)\n"), "a note cannot stand after the item bare: \(text)")
    }

    @Test func anAmountTypedOnAnItemIsTheSameItemNotASecondOne() throws {
        let (book, _) = firstStart(typed)
        let (edits, after) = try save(typed.replacing("- [ ] 2 l milk", with: "- [ ] milk (3 l)"), over: book)
        #expect(edits == [.setQuantity("milk", on: .id(1), quantity: "3 l")])
        #expect(try after.list(.id(1)).items.count == 5)
        let (duplicate, _) = try save(typed + "- [ ] eggs x12\n- [ ] 12 free-range eggs\n", over: book)
        #expect(!"\(duplicate)".contains("free-range"), "the same item typed again is not taken: \(duplicate)")
    }

    /// A list kept from before amounts were read so: `6 eggs` and `milk (organic)` were names,
    /// and the file listd wrote then shows them whole. They stay those items, unchanged.
    @Test func itemsNamedBeforeAmountsWereReadSoStayWhole() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "Groceries", items: ["6 eggs", "milk (organic)", "milk"]), at: t0, origin: .file)
        let old = """
            # Groceries <!-- listd id=1 rev=1 -->
            - [ ] 6 eggs
            - [ ] milk (organic)
            - [ ] milk

            """
        let reading = ListFileReading(ListDocument(parsing: old), known: book)
        #expect(reading.diagnostics == [])
        #expect(reading.edits(from: book).isEmpty)
        #expect(ListFileWriter.text(for: book, onto: reading) == old)
        let (ticked, after) = try save(old.replacing("- [ ] 6 eggs", with: "- [x] 6 eggs"), over: book)
        #expect(ticked == [.checkItem("6 eggs", on: .id(1))])
        #expect(try after.list(.id(1)).items.count == 3)
    }
}
