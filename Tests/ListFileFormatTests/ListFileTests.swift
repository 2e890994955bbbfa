import ListFileFormat
import ListModel
import Testing

private let t0 = Timestamp(millisecondsSinceEpoch: 1_795_330_023_123)
private let me = ChangeOrigin.client(pid: 1, uid: 1, name: nil)

@Suite struct ListFileTests {
    @Test func rendersReadableMarkdownWithMetadataInComments() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "Groceries", items: ["milk", "eggs"]), at: t0, origin: me)
        _ = try book.apply(.createList(name: "Hardware", items: []), at: t0, origin: me)
        #expect(
            ListFile.render(book) == """
                <!-- listd revision=2 next-id=3 -->

                # Groceries <!-- listd id=1 revision=1 edited=2026-11-22T06:47:03.123Z -->
                - milk
                - eggs

                # Hardware <!-- listd id=2 revision=2 edited=2026-11-22T06:47:03.123Z -->

                """
        )
    }

    @Test func roundTripKeepsIDsRevisionsStampsAndOrder() throws {
        var book = ListBook()
        _ = try book.apply(.createList(name: "B-list", items: ["# not a heading", "- dash", "<!-- listd x -->"]), at: t0, origin: me)
        _ = try book.apply(.createList(name: "A <!-- listd id=7 -->", items: []), at: t0, origin: me)
        _ = try book.apply(.deleteList(.id(1)), at: t0, origin: me)
        _ = try book.apply(.createList(name: "Café ☕️", items: ["x"]), at: t0, origin: me)
        let parsed = ListFile.parse(ListFile.render(book), at: .epoch)
        #expect(parsed.diagnostics.isEmpty)
        #expect(parsed.book == book)
        #expect(parsed.book.nextID == 4)
    }

    @Test func handTypedListsGetFreshIDsAndTheLoadTime() {
        let parsed = ListFile.parse(
            """
            Some notes a person wrote.

            # Groceries
            - milk
            * eggs
            + bread

            # Hardware <!-- listd id=4 revision=2 edited=2026-01-01T00:00:00Z -->
              - nails
            """,
            at: t0
        )
        #expect(parsed.diagnostics.isEmpty)
        #expect(parsed.book.lists.map(\.name) == ["Groceries", "Hardware"])
        #expect(parsed.book.lists.map(\.id) == [5, 4])
        #expect(parsed.book.lists[0].items == ["milk", "eggs", "bread"])
        #expect(parsed.book.lists[0].edited == t0)
        #expect(parsed.book.lists[1].items == ["nails"])
        #expect(parsed.book.nextID == 6)
    }

    @Test func linesThatBreakRulesAreReportedWithTheirNumbers() {
        let parsed = ListFile.parse(
            """
            - stray
            # Groceries
            - milk
            - Milk
            -
            # groceries
            # \(String(repeating: "n", count: 1001))
            """,
            at: t0
        )
        #expect(parsed.diagnostics.map(\.line) == [1, 4, 5, 6, 7])
        #expect(parsed.diagnostics.map(\.reason) == ["itemOutsideList", "itemExists", "invalidItem", "listExists", "invalidName"])
        #expect(parsed.diagnostics[1].message == "line 4: “milk” is already on Groceries.")
        #expect(parsed.book.lists.count == 1)
        #expect(parsed.book.lists[0].items == ["milk"])
    }

    @Test func duplicateIDsInMetadataDoNotMergeLists() {
        let parsed = ListFile.parse(
            """
            # A <!-- listd id=1 -->
            # B <!-- listd id=1 -->
            """,
            at: t0
        )
        #expect(Set(parsed.book.lists.map(\.id)).count == 2)
    }

    @Test func windowsLineEndingsAreRead() {
        let parsed = ListFile.parse("# A\r\n- milk\r\n", at: t0)
        #expect(parsed.book.lists.first?.items == ["milk"])
        #expect(parsed.book.lists.first?.name == "A")
    }
}
