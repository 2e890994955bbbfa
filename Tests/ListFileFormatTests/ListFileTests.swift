import ListModel
import Testing

@testable import ListFileFormat

private let t0 = Timestamp(millisecondsSinceEpoch: 1_795_330_023_123)

/// Reads `text` as a first start would and returns the book with its reading.
private func firstStart(_ text: String) -> (ListBook, ListFileReading) {
    var reading = ListFileReading(ListDocument(parsing: text), known: nil)
    let book = reading.book(at: t0)
    return (book, reading)
}

/// Applies a person's save to `book` the way listd does, returning the edits and the new book.
private func save(_ text: String, over book: ListBook) throws -> ([ListEdit], ListBook, ListFileReading) {
    var reading = ListFileReading(ListDocument(parsing: text), known: book)
    var book = book
    var edits: [ListEdit] = []
    for fileEdit in reading.edits(from: book) {
        let change = try book.apply(fileEdit.edit, at: t0, origin: .file)
        if let section = fileEdit.section, case .createList = fileEdit.edit {
            reading.sections[section].id = change?.list.id
        }
        edits.append(fileEdit.edit)
    }
    return (edits, book, reading)
}

@Suite struct ListDocumentTests {
    @Test(arguments: [
        "",
        "# A\n- x\n",
        "# A\n- x",
        "notes\n\n# A <!-- listd id=3 -->\n  * x\n+ y\n\n<!-- mine -->\n",
    ])
    func textRoundTripsExactly(_ text: String) {
        #expect(ListDocument(parsing: text).text == text)
    }

    /// listd's note on a line it did not take stays a note, whatever the person wrote in it:
    /// "revision=3" in it once made it read as a legacy header, dropped at the next write.
    /// The earlier format's header is read only as the file's first line: further down, a line
    /// like it is the person's (and stays, when listd's note on a heading above it leaves it
    /// before the first heading).
    @Test func onlyTheFirstLineIsTheEarlierFormatsHeader() {
        let header = "<!-- listd revision=3 next-id=4 -->"
        #expect(
            ListDocument(parsing: header + "\n# A\n").lines.first == .legacyHeader(["revision": "3", "next-id": "4"])
        )
        #expect(ListDocument(parsing: "notes\n" + header + "\n# A\n").lines[1] == .text(header))
    }

    @Test func aNoteOnALineNotTakenIsNotReadAsFields() {
        let note =
            "<!-- listd: not taken: An item before the first # heading is on no list. You wrote: - x revision=3 -->"
        let document = ListDocument(parsing: note + "\n# A <!-- listd id=1 -->\n")
        #expect(document.lines.first == .text(note))
        #expect(document.text == note + "\n# A <!-- listd id=1 -->\n")
    }

    @Test func windowsLineEndingsAreRead() {
        let (book, _) = firstStart("# A\r\n- milk\r\n")
        #expect(book.lists.first?.name == "A")
        #expect(book.lists.first?.items == ["milk"])
    }
}

@Suite struct FirstStartTests {
    @Test func handTypedListsGetFreshIDsAndTheLoadTime() {
        let (book, reading) = firstStart(
            """
            Some notes a person wrote.

            # Groceries
            - milk
            * eggs
            + bread

            # Hardware <!-- listd id=4 -->
              - nails
            """
        )
        #expect(reading.diagnostics.isEmpty)
        #expect(book.lists.map(\.name) == ["Groceries", "Hardware"])
        #expect(book.lists.map(\.id) == [5, 4])
        #expect(book.lists[0].items == ["milk", "eggs", "bread"])
        #expect(book.lists[0].edited == t0)
        #expect(book.nextID == 6)
    }

    @Test func aFileFromTheEarlierFormatKeepsItsNumbers() {
        let (book, _) = firstStart(
            """
            <!-- listd revision=12 next-id=9 -->

            # Groceries <!-- listd id=1 revision=9 edited=2026-11-22T06:47:03.123Z -->
            - milk
            """
        )
        #expect(book.revision == 12)
        #expect(book.nextID == 9)
        #expect(book.lists[0].revision == 9)
        #expect(book.lists[0].edited == t0)
    }

    @Test func linesThatBreakRulesAreReportedWithTheirNumbers() {
        let (book, reading) = firstStart(
            """
            - stray
            # Groceries
            - milk
            - Milk
            -
            # groceries
            - under a rejected heading
            # \(String(repeating: "n", count: 1001))
            """
        )
        #expect(reading.diagnostics.map(\.line) == [1, 4, 5, 6, 7, 8])
        #expect(
            reading.diagnostics.map(\.reason) == [
                "itemOutsideList", "itemExists", "invalidItem", "listExists", "listRejected", "invalidName",
            ]
        )
        #expect(reading.diagnostics[1].message == "line 4: “milk” is already on Groceries.")
        #expect(book.lists.count == 1)
        #expect(book.lists[0].items == ["milk"])
    }

    /// Issue 35, case 2: identity beats position. A `# Groceries` typed above the heading that
    /// carries Groceries' id is the duplicate; the real list keeps its items.
    @Test func aHeadingTypedAboveTheListWithItsIDIsTheDuplicate() {
        let (book, _) = firstStart("# Groceries <!-- listd id=1 rev=0 -->\n- milk\n- eggs\n")
        let text = "# groceries\n- bread\n\n# Groceries <!-- listd id=1 rev=0 -->\n- milk\n- eggs\n"
        let reading = ListFileReading(ListDocument(parsing: text), known: book)
        #expect(reading.diagnostics.map(\.reason) == ["listExists", "listRejected"])
        #expect(reading.diagnostics.map(\.line) == [1, 2])
        #expect(reading.sections.map(\.id) == [1])
        #expect(reading.sections.first?.items.map(\.text) == ["milk", "eggs"])
        #expect(reading.edits(from: book).isEmpty, "nothing removed, nothing replaced")
        let written = ListFileWriter.text(for: book, onto: reading, rejected: reading.rejectedLines)
        #expect(written.hasPrefix("<!-- listd: not taken: There is already a list called “Groceries”. You wrote: # groceries -->"), "\(written)")
        #expect(written.contains("You wrote: - bread -->"))
        #expect(written.hasSuffix("# Groceries <!-- listd id=1 rev=0 -->\n- milk\n- eggs\n"), "\(written)")
    }

    @Test func duplicateIDsInCommentsDoNotMergeLists() {
        let (book, _) = firstStart("# A <!-- listd id=1 -->\n# B <!-- listd id=1 -->\n")
        #expect(Set(book.lists.map(\.id)).count == 2)
    }
}

@Suite struct ListFileWriterTests {
    @Test func aNewFileIsPlainMarkdownWithIDsInComments() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "Groceries", items: ["milk", "eggs"]), at: t0, origin: .file)
        _ = try book.apply(.createList(name: "Hardware", items: []), at: t0, origin: .file)
        #expect(
            ListFileWriter.text(for: book, onto: nil) == """
                # Groceries <!-- listd id=1 rev=2 -->
                - [ ] milk
                - [ ] eggs

                # Hardware <!-- listd id=2 rev=2 -->

                """
        )
    }

    /// Issue 59: listd names itself in its notes (`of=`). A heading whose note another listd
    /// wrote (a file copied from another machine) is read as one without a note: its id and
    /// revision are that listd's. One without `of=` (an older listd's) is this listd's.
    @Test func anotherListdsNotesAreReadAsNoNotesAndOurOwnAreWrittenWithOurTag() throws {
        let text = """
            # Groceries <!-- listd id=1 rev=7 of=0badc0de -->
            - [ ] milk
            # Pantry <!-- listd id=2 rev=7 of=5eed1e55 -->
            # Hardware <!-- listd id=3 rev=7 -->

            """
        let document = ListDocument(parsing: text, notesOf: "5eed1e55")
        let headings = document.lines.compactMap { line -> ListDocument.Heading? in
            if case .heading(let heading) = line { heading } else { nil }
        }
        #expect(headings.map { ListText.trimmed($0.name) } == ["Groceries", "Pantry", "Hardware"])
        #expect(headings.map(\.id) == [nil, 2, 3])
        #expect(headings.map(\.revision) == [nil, 7, 7])
        #expect(document.text == text, "the person's lines are kept as they are")
        #expect(document.noteTag == "5eed1e55")
        // Without a tag of its own, every note is taken (an older listd, and tests).
        #expect(ListDocument(parsing: text).lines.compactMap { line -> ListID? in
            if case .heading(let heading) = line { heading.id } else { nil }
        } == [1, 2, 3])

        var book = ListBook()
        _ = try book.apply(.createList(name: "Groceries", items: ["milk"]), at: t0, origin: .file)
        let written = ListFileWriter.text(for: book, onto: nil, tag: "5eed1e55")
        #expect(written.hasPrefix("# Groceries <!-- listd id=1 rev=1 of=5eed1e55 -->\n"), "\(written)")
        // Written again onto itself, the heading is kept; onto another listd's, it is replaced.
        let own = ListFileReading(ListDocument(parsing: written, notesOf: "5eed1e55"), known: book)
        #expect(ListFileWriter.text(for: book, onto: own, tag: "5eed1e55") == written)
        let foreign = written.replacing("of=5eed1e55", with: "of=0badc0de")
        var reading = ListFileReading(ListDocument(parsing: foreign, notesOf: "5eed1e55"), known: book)
        #expect(reading.sections.first?.id == 1, "tied by its name, as a heading without a note is")
        reading.sections[0].id = 1
        #expect(ListFileWriter.text(for: book, onto: reading, tag: "5eed1e55") == written)
        #expect(ListDocument.noteTag(ofInstance: "5EED1E55-0000-4000-8000-000000000000".lowercased()) == "5eed1e55")
    }

    @Test func anUnchangedBookWritesTheFileBackByteForByte() {
        let text = """
            My lists. Edit freely.

            #   Groceries   <!-- listd id=1 rev=0 -->
              * milk  
            * eggs
            <!-- my own comment -->

            # Hardware <!-- listd id=2 rev=0 -->
            - nails
            """
        var (book, reading) = firstStart(text)
        #expect(ListFileWriter.text(for: book, onto: reading) == text)
        // Reading it again against the book changes nothing either.
        reading = ListFileReading(ListDocument(parsing: text), known: book)
        #expect(reading.edits(from: book).isEmpty)
        book.reorder(by: [])
        #expect(ListFileWriter.text(for: book, onto: reading) == text)
    }

    @Test func socketEditsTouchOnlyTheirLinesAndKeepNotes() throws {
        let text = """
            Notes at the top.

            # Groceries <!-- listd id=1 -->
            * milk
            (buy the big one)
            * eggs

            # Hardware <!-- listd id=2 -->
            - nails
            Notes at the end.

            """
        var (book, reading) = firstStart(text)
        _ = try book.apply(.addItem("bread", to: .id(1)), at: t0, origin: .file)
        _ = try book.apply(.replaceItem("milk", with: "oat milk", on: .id(1)), at: t0, origin: .file)
        _ = try book.apply(.renameList(.id(2), to: "Tools"), at: t0, origin: .file)
        _ = try book.apply(.removeItem("nails", from: .id(2)), at: t0, origin: .file)
        _ = try book.apply(.createList(name: "Party", items: ["cake"]), at: t0, origin: .file)
        #expect(
            ListFileWriter.text(for: book, onto: reading) == """
                Notes at the top.

                # Groceries <!-- listd id=1 rev=5 -->
                * [ ] oat milk
                (buy the big one)
                * eggs
                * [ ] bread

                # Tools <!-- listd id=2 rev=5 -->
                Notes at the end.

                # Party <!-- listd id=3 rev=5 -->
                - [ ] cake

                """
        )
        _ = try book.apply(.deleteList(.id(1)), at: t0, origin: .file)
        reading = ListFileReading(ListDocument(parsing: ListFileWriter.text(for: book, onto: reading)), known: book)
        #expect(
            ListFileWriter.text(for: book, onto: reading).hasPrefix("Notes at the top.\n\n(buy the big one)\n\n# Tools")
        )
    }

    @Test func rejectedLinesBecomeCommentsThatKeepWhatWasTyped() throws {
        let (book, reading) = firstStart("# Groceries\n- milk\n  * MILK\n- eggs\n")
        #expect(
            ListFileWriter.text(for: book, onto: reading, rejected: reading.rejectedLines) == """
                # Groceries <!-- listd id=1 rev=0 -->
                - milk
                <!-- listd: not taken: “milk” is already on Groceries. You wrote:   * MILK -->
                - eggs

                """
        )
        #expect(
            ListFileWriter.annotation("why", "- a --> b <!-- c")
                == "<!-- listd: not taken: why You wrote: - a -- > b <! -- c -->"
        )
        // The annotation is then a note like any other.
        let again = ListFileReading(
            ListDocument(parsing: ListFileWriter.text(for: book, onto: reading, rejected: reading.rejectedLines)),
            known: book
        )
        #expect(again.diagnostics.isEmpty)
        #expect(again.edits(from: book).isEmpty)
    }
}

@Suite struct PersonsSaveTests {
    private func start() throws -> ListBook {
        firstStart("# Groceries <!-- listd id=1 -->\n- milk\n- eggs\n\n# Hardware <!-- listd id=2 -->\n- nails\n").0
    }

    @Test func itemEditsBecomeTheFinestEditsInFileOrder() throws {
        let (edits, book, _) = try save(
            "# Groceries <!-- listd id=1 -->\n- bread\n- milk\n- duck eggs\n\n# Hardware <!-- listd id=2 -->\n",
            over: try start()
        )
        #expect(
            edits == [
                .addItem("bread", to: .id(1), at: 0),
                .replaceItem("eggs", with: "duck eggs", on: .id(1)),
                .removeItem("nails", from: .id(2)),
            ]
        )
        #expect(try book.list(.id(1)).items == ["bread", "milk", "duck eggs"])
    }

    @Test func aChangedHeadingIsARenameOfTheSameList() throws {
        let (edits, book, _) = try save(
            "# Food <!-- listd id=1 -->\n- milk\n- eggs\n\n# Hardware <!-- listd id=2 -->\n- nails\n",
            over: try start()
        )
        #expect(edits == [.renameList(.id(1), to: "Food")])
        #expect(try book.list(.id(1)).name == "Food")
    }

    @Test func aRetypedHeadingWithoutItsCommentIsMatchedByName() throws {
        let (edits, _, reading) = try save(
            "# groceries\n- milk\n- eggs\n\n# Hardware <!-- listd id=2 -->\n- nails\n",
            over: try start()
        )
        #expect(edits == [.renameList(.id(1), to: "groceries")])
        #expect(reading.sections.map(\.id) == [1, 2])
    }

    @Test func newAndRemovedHeadingsAreCreatesAndDeletesInFileOrder() throws {
        let (edits, book, reading) = try save(
            "# Party\n- cake\n\n# Hardware <!-- listd id=2 -->\n- nails\n",
            over: try start()
        )
        #expect(edits == [.createList(name: "Party", items: ["cake"]), .deleteList(.id(1))])
        #expect(book.lists.map(\.name) == ["Hardware", "Party"])
        #expect(reading.sections.map(\.id) == [3, 2])
    }

    @Test func aChangeOfSpellingIsAReplace() throws {
        let (edits, _, _) = try save(
            "# Groceries <!-- listd id=1 -->\n- Milk\n- eggs\n\n# Hardware <!-- listd id=2 -->\n- nails\n",
            over: try start()
        )
        #expect(edits == [.replaceItem("milk", with: "Milk", on: .id(1))])
    }
}

@Suite struct LineSplittingTests {
    /// Lines are split on bytes; Swift's Character-wise split (where "\r\n" is one Character) is
    /// the reference.
    @Test func splittingOnBytesIsTheCharacterWiseSplit() {
        let pieces = [
            "a", "\n", "\r", "\r\n", "é", "e\u{301}", "\u{301}", "🥛", " ", "# H", "- x", "\n\u{301}", "\r\r\n",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            let reference = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
            #expect(ListDocument.lineTexts(of: text) == reference, "\(text.debugDescription)")
        }
    }
}

@Suite struct QuickItemTests {
    /// Lines decided on their bytes are decided as the Character-wise rules decide them.
    @Test func theByteWiseItemPathAgreesWithTheCharacterWiseRules() {
        // Indentation, something like a bullet, something like a separator, then text: each
        // part now and then non-ASCII or a combining mark.
        let indents = ["", " ", "  ", "\t", " \u{301}", "\u{A0}"]
        let bullets = ["-", "*", "+", "#", "x", "-\u{301}", "é", ""]
        let separators = [" ", "\t", "", " \u{301}", "\u{A0}", "-"]
        let texts = ["", "milk", "\u{301}x", "é", "🥛 oat", " trailing ", "<!-- listd id=1 -->", "- nested"]
        var generator = SystemRandomNumberGenerator()
        var decidedQuickly = 0
        for _ in 0..<20_000 {
            let parts = [indents, bullets, separators, texts].map { $0.randomElement(using: &generator)! }
            let line = Substring(parts.joined())
            guard let quick = ListDocument.quickItem(line) else { continue }
            decidedQuickly += 1
            // The rules without the quick path: what the line would be otherwise.
            #expect(
                quick == ListDocument.classifyCharacterWise(line, firstLine: false),
                "\(line.debugDescription)"
            )
        }
        #expect(decidedQuickly > 1_000)
    }
}

@Suite struct TaskBoxTests {
    @Test func aBoxIsReadAsTheTickAndIsNotPartOfTheText() {
        let (book, _) = firstStart("# Groceries\n- [ ] milk\n- [x] eggs\n  * [X] bread\n- plain\n- [y] odd\n1. [x] tea\n")
        let list = book.lists[0]
        #expect(list.items == ["milk", "eggs", "bread", "plain", "[y] odd", "tea"])
        #expect(list.checkedItems == ["eggs", "bread", "tea"])
        // `- [x] Milk` and `- milk` are the same item: a duplicate.
        let (_, reading) = firstStart("# G\n- [x] Milk\n- milk\n")
        #expect(reading.diagnostics.map(\.reason) == ["itemExists"])
    }

    @Test func tickingOrUntickingABoxIsACheckOrAnUncheckNeverAReplace() throws {
        let (book, _) = firstStart("# Groceries <!-- listd id=1 -->\n- [ ] milk\n- [x] eggs\n- bread\n")
        let (edits, after, _) = try save("# Groceries <!-- listd id=1 -->\n- [x] milk\n- [ ] eggs\n- [X] bread\n", over: book)
        #expect(
            edits == [
                .checkItem("milk", on: .id(1)), .uncheckItem("eggs", on: .id(1)), .checkItem("bread", on: .id(1)),
            ]
        )
        #expect(after.lists[0].checkedItems == ["milk", "bread"])
        // The text and the box in one save: a replace, then a check.
        let (both, _, _) = try save("# Groceries <!-- listd id=1 -->\n- [x] oat milk\n- [x] eggs\n- bread\n", over: book)
        #expect(both == [.replaceItem("milk", with: "oat milk", on: .id(1)), .checkItem("oat milk", on: .id(1))])
        // A new line already ticked: an add, then a check; a new list's ticked lines too.
        let (added, _, _) = try save(
            "# Groceries <!-- listd id=1 -->\n- [ ] milk\n- [x] eggs\n- bread\n- [x] jam\n\n# Party\n- [x] cake\n",
            over: book
        )
        #expect(
            added == [
                .addItem("jam", to: .id(1), at: 3), .checkItem("jam", on: .id(1)),
                .createList(name: "Party", items: ["cake"]), .checkItem("cake", on: .name("Party")),
            ]
        )
    }

    @Test func linesListdDidNotChangeKeepTheirFormAndItsOwnHaveABox() throws {
        let text = "# Groceries <!-- listd id=1 rev=0 -->\n* milk\n- [X]   eggs\n- [ ] bread\n"
        var (book, reading) = firstStart(text)
        #expect(ListFileWriter.text(for: book, onto: reading) == text, "untouched: byte for byte")
        _ = try book.apply(.checkItem("milk", on: .id(1)), at: t0, origin: .file)
        _ = try book.apply(.uncheckItem("eggs", on: .id(1)), at: t0, origin: .file)
        _ = try book.apply(.addItem("tea", to: .id(1)), at: t0, origin: .file)
        _ = try book.apply(.checkItem("tea", on: .id(1)), at: t0, origin: .file)
        let written = ListFileWriter.text(for: book, onto: reading)
        #expect(written == "# Groceries <!-- listd id=1 rev=4 -->\n* [x] milk\n- [ ] eggs\n- [ ] bread\n- [x] tea\n", "a new line takes its neighbour's bullet")
        reading = ListFileReading(ListDocument(parsing: written), known: book)
        #expect(reading.edits(from: book).isEmpty, "what listd wrote reads back as the same ticks")
    }
}
