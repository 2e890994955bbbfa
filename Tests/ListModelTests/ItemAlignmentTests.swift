import ListModel
import Testing

@Suite struct ItemAlignmentTests {
    /// Applies the steps to `old` and returns the result, checking they are in position order.
    private func replay(_ old: [String], _ new: [String]) -> [String] {
        var result: [String] = []
        for step in ItemAlignment.align(old: old, new: new) {
            switch step {
            case .keep(_, let newIndex), .replace(_, let newIndex), .insert(let newIndex):
                #expect(newIndex == result.count)
                result.append(new[newIndex])
            case .remove:
                break
            }
        }
        return result
    }

    @Test func unchangedListsAreAllKeeps() {
        #expect(
            ItemAlignment.align(old: ["a", "b"], new: ["a", "b"]) == [
                .keep(oldIndex: 0, newIndex: 0), .keep(oldIndex: 1, newIndex: 1),
            ]
        )
    }

    @Test func anEditInPlaceIsAReplace() {
        #expect(
            ItemAlignment.align(old: ["milk", "eggs", "jam"], new: ["milk", "duck eggs", "jam"]) == [
                .keep(oldIndex: 0, newIndex: 0), .replace(oldIndex: 1, newIndex: 1), .keep(oldIndex: 2, newIndex: 2),
            ]
        )
    }

    @Test func aChangeOfCaseIsAKeep() {
        #expect(ItemAlignment.align(old: ["milk"], new: ["Milk "]) == [.keep(oldIndex: 0, newIndex: 0)])
    }

    @Test func insertsAndRemovesKeepTheirPositions() {
        #expect(
            ItemAlignment.align(old: ["a", "c"], new: ["a", "b", "c", "d"]) == [
                .keep(oldIndex: 0, newIndex: 0), .insert(newIndex: 1), .keep(oldIndex: 1, newIndex: 2),
                .insert(newIndex: 3),
            ]
        )
        #expect(
            ItemAlignment.align(old: ["a", "b", "c"], new: ["c"]) == [
                .remove(oldIndex: 0), .remove(oldIndex: 1), .keep(oldIndex: 2, newIndex: 0),
            ]
        )
    }

    @Test(arguments: [
        (["a", "b", "c"], ["c", "b", "a"]),
        (["x", "y"], ["Y", "z", "x"]),
        ([], ["a", "b"]),
        (["a", "b"], []),
        (["1", "2", "3", "4", "5"], ["1", "9", "3", "8", "7", "5"]),
    ])
    func replayingTheStepsGivesTheNewList(old: [String], new: [String]) {
        #expect(replay(old, new) == new)
    }
}

@Suite struct PositionAndOrderTests {
    @Test func addAtAPositionInserts() throws {
        var book = ListBook()
        let origin: ChangeOrigin = .file
        _ = try book.apply(.createList(name: "A", items: ["a", "c"]), at: .epoch, origin: origin)
        _ = try book.apply(.addItem("b", to: .id(1), at: 1), at: .epoch, origin: origin)
        _ = try book.apply(.addItem("z", to: .id(1), at: 99), at: .epoch, origin: origin)
        #expect(try book.list(.id(1)).items == ["a", "b", "c", "z"])
    }

    @Test func reorderFollowsTheGivenIDsWithoutARevision() throws {
        var book = ListBook()
        for name in ["A", "B", "C"] {
            _ = try book.apply(.createList(name: name, items: []), at: .epoch, origin: .file)
        }
        book.reorder(by: [3, 1])
        #expect(book.lists.map(\.name) == ["C", "A", "B"])
        #expect(book.revision == 3)
    }
}

/// Issue 26, item 1: lines a person moved are moves of the same items, the fewest of them.
@Suite struct ItemMoveTests {
    @Test func aLineMovedUpIsOneMoveAndTheRestIsAlignedAsBefore() {
        let (moves, reordered) = ItemAlignment.moves(old: ["milk", "eggs", "bread"], new: ["Bread", "milk", "eggs", "jam"])
        #expect(moves == [ItemAlignment.Move(oldIndex: 2, newIndex: 0, after: nil)])
        #expect(reordered == ["bread", "milk", "eggs"])
        #expect(
            ItemAlignment.align(old: reordered, new: ["Bread", "milk", "eggs", "jam"]) == [
                .keep(oldIndex: 0, newIndex: 0), .keep(oldIndex: 1, newIndex: 1), .keep(oldIndex: 2, newIndex: 2),
                .insert(newIndex: 3),
            ]
        )
    }

    @Test func everyOrderIsReachedByMovesThatLeaveTheRemovedItemsInPlace() {
        let old = ["a", "b", "c", "d", "e"]
        for new in [["e", "d", "c", "b", "a"], ["b", "x", "a", "e"], ["c", "a", "b"], ["a", "b", "c", "d", "e"]] {
            let (moves, reordered) = ItemAlignment.moves(old: old, new: new)
            #expect(reordered.filter(new.contains) == new.filter(old.contains), "\(new)")
            // Made one by one as ListBook makes them, they give the same order.
            var items = old
            for move in moves {
                let from = items.firstIndex(of: old[move.oldIndex])!
                ItemAlignment.move(&items, from: from, toFollow: move.after.flatMap { items.firstIndex(of: old[$0]) })
            }
            #expect(items == reordered)
        }
        #expect(ItemAlignment.moves(old: old, new: ["e", "d", "c", "b", "a"]).moves.count == 4)
    }
}
