// ItemList: a list's items behave as an array of strings, and an edit of one copy leaves the
// others' chunks shared (what makes an edit of a 10,000-item list cost what it changes).
@testable import ListModel
import Testing

extension ItemList {
    /// How many chunks hold the items.
    var chunkCount: Int { chunks.count }

    /// How many of this list's chunks `other` shares, not copied.
    func chunksShared(with other: ItemList) -> Int {
        let theirs = Set(other.chunks.map(ObjectIdentifier.init))
        return chunks.count { theirs.contains(ObjectIdentifier($0)) }
    }
}

/// `count` items, "item 0" … .
private func items(_ count: Int) -> [String] {
    (0..<count).map { "item \($0)" }
}

@Test func anItemListReadsAndEditsAsTheArrayItWasMadeFrom() {
    var expected = items(1_000)
    var list = ItemList(expected)
    #expect(Array(list) == expected)
    #expect(list.count == expected.count)
    // Inserts and removals at the front, middle and end, and in place, as an array would do them.
    var generator = SystemRandomNumberGenerator()
    for round in 0..<3_000 {
        switch round % 4 {
        case 0, 1:
            let index = Int.random(in: 0...expected.count, using: &generator)
            expected.insert("new \(round)", at: index)
            list.insert("new \(round)", at: index)
        case 2:
            let index = Int.random(in: 0..<expected.count, using: &generator)
            #expect(list.remove(at: index) == expected.remove(at: index))
        default:
            let index = Int.random(in: 0..<expected.count, using: &generator)
            expected[index] = "replaced \(round)"
            list[index] = "replaced \(round)"
        }
        #expect(list.count == expected.count)
    }
    #expect(Array(list) == expected)
    #expect(list.indices.map { list[$0] } == expected)
    // Found by hash, then by text: every item where it is, whatever edits put it there.
    for (index, item) in expected.enumerated() {
        #expect(list.firstIndex(of: item) == index)
    }
    #expect(list.firstIndex(of: "not there") == nil)
    // As `String` compares: canonically equivalent spellings are the same item.
    list.append("caf\u{E9}")
    #expect(list.firstIndex(of: "cafe\u{301}") == list.count - 1)
    list.removeLast()
    #expect(list == ItemList(expected))
    // A paste (several in at once) and a clear.
    list.replaceSubrange(10..<20, with: ["a", "b"])
    expected.replaceSubrange(10..<20, with: ["a", "b"])
    #expect(Array(list) == expected)
    list.removeAll()
    #expect(list.isEmpty && Array(list) == [])
    list.append("only")
    #expect(Array(list) == ["only"])
}

/// Items are found by the low 32 bits of their hashes first: two different items that share
/// them are told apart by their text, wherever in a chunk's run of eight either stands.
@Test func itemsWhoseShortHashesMatchAreToldApartByTheirText() throws {
    // Two such items, found among enough (a 32-bit clash is likely after ~77,000).
    var seen: [Int32: String] = [:]
    var pair: (String, String)?
    for number in 0..<1_000_000 where pair == nil {
        let item = "thing \(number)"
        let hash = ItemList.Chunk.shortHash(item)
        if let other = seen[hash] { pair = (other, item) } else { seen[hash] = item }
    }
    let (first, second) = try #require(pair)
    #expect(first != second && first.hashValue != second.hashValue)
    for gap in [0, 1, 7, 8, 9, 60] {
        let list = ItemList(items(gap) + [first] + items(3).map { "x\($0)" } + [second] + items(70).map { "y\($0)" })
        #expect(list.firstIndex(of: second) == gap + 4, "gap \(gap)")
        #expect(list.firstIndex(of: first) == gap, "gap \(gap)")
        let without = ItemList(items(gap) + [first] + items(80).map { "y\($0)" })
        #expect(without.firstIndex(of: second) == nil, "gap \(gap)")
    }
}

@Test func removalsDoNotLeaveAChunkPerItem() {
    // Grow the list by inserts in one place (chunks split), then take most items off: the
    // chunks that are left small join their neighbours.
    var list = ItemList()
    for index in 0..<10_000 { list.insert("item \(index)", at: list.count / 2) }
    for index in stride(from: list.count - 1, through: 0, by: -1) where index % 50 != 0 {
        list.remove(at: index)
    }
    #expect(list.count == 200)
    #expect(list.chunkCount <= 200 / (ItemList.chunkSize / 4) + 1)
}

@Test func anEditOfACopyCopiesOneChunkNotTheItems() {
    // Every change keeps the list as it made it, so the next edit edits a copy: it must leave
    // all but the chunk it changes shared with the copy it came from.
    let original = ItemList(items(10_000))
    let chunks = original.chunkCount
    #expect(chunks >= 10_000 / (2 * ItemList.chunkSize))

    var appended = original
    appended.append("milk")
    #expect(appended.chunksShared(with: original) == chunks - 1)
    #expect(original.count == 10_000 && original.last == "item 9999")

    var removed = original
    removed.remove(at: 5_000)
    #expect(removed.chunksShared(with: original) == chunks - 1)
    #expect(original[5_000] == "item 5000" && removed[5_000] == "item 5001")

    var replaced = original
    replaced[0] = "bread"
    #expect(replaced.chunksShared(with: original) == chunks - 1)
    #expect(original[0] == "item 0")

    // A list's copies compare equal without comparing items, and differ when one changed.
    #expect(original == ItemList(items(10_000)))
    #expect(replaced != original)
}

@Test func aShoppingListEditLeavesTheListItCameFromShared() throws {
    var book = ListBook()
    let created = try #require(try book.apply(.createList(name: "Long", items: items(10_000)), at: t1, origin: me))
    let added = try #require(try book.apply(.addItem("milk", to: .id(created.list.id)), at: t1, origin: me))
    #expect(added.list.items.chunksShared(with: created.list.items) == created.list.items.chunkCount - 1)
    let removed = try #require(try book.apply(.removeItem("item 42", from: .id(created.list.id)), at: t1, origin: me))
    #expect(removed.list.items.chunksShared(with: added.list.items) == added.list.items.chunkCount - 1)
    #expect(created.list.items.count == 10_000 && removed.list.items.count == 10_000)
}
