// Which change a person's "undo" means (`ChangeHistory.latestToUndo`), without a daemon: the
// latest not undone that is not itself an undo, by the author asked for.
import ListModel
import Testing

@Suite struct UndoChoiceTests {
    static let phoneA = ChangeOrigin.client(pid: 10, uid: 1000, name: "Phone A")
    static let phoneB = ChangeOrigin.client(pid: 10, uid: 1000, name: "Phone B")

    /// A history of ticks (what they tick does not matter here: only who, and what undoes what).
    static func history(_ changes: [(ChangeOrigin, undoes: Revision?)]) -> ChangeHistory {
        var history = ChangeHistory(base: ListBook(), limit: 100)
        for (index, change) in changes.enumerated() {
            let record = ChangeRecord(
                revision: index + 1,
                time: Timestamp(millisecondsSinceEpoch: 0),
                origin: change.0,
                operation: .check(id: 1, at: 0),
                undoes: change.undoes
            )
            try? history.append(record)
        }
        return history
    }

    @Test func repeatedUndoStepsBackPastUndoneChanges() {
        // 1 A, 2 A, 3 undo of 2: the next undo means 1, then nothing.
        var history = Self.history([(Self.phoneA, nil), (Self.phoneA, nil), (Self.phoneA, 2)])
        #expect(history.latestToUndo() == 1)
        history = Self.history([(Self.phoneA, nil), (Self.phoneA, nil), (Self.phoneA, 2), (Self.phoneA, 1)])
        #expect(history.latestToUndo() == nil, "everything undone")
    }

    @Test func anUndoneUndoCountsForNothing() {
        // 1 A, 2 undoes 1, 3 undoes 2 (done again): 1 stands, and is what an undo means.
        let history = Self.history([(Self.phoneA, nil), (Self.phoneA, 1), (Self.phoneA, 2)])
        #expect(history.latestToUndo() == 1)
    }

    @Test func mineSkipsAnotherAuthorsLaterChanges() {
        // 1 A, 2 B, 3 B: A's undo means 1; anyone's means 3.
        let history = Self.history([(Self.phoneA, nil), (Self.phoneB, nil), (Self.phoneB, nil)])
        #expect(history.latestToUndo { Self.phoneA.isSameAuthor(as: $0) } == 1)
        #expect(history.latestToUndo() == 3)
        // B undid A's change: A has nothing left to undo.
        let undoneByB = Self.history([(Self.phoneA, nil), (Self.phoneB, 1)])
        #expect(undoneByB.latestToUndo { Self.phoneA.isSameAuthor(as: $0) } == nil)
    }

    @Test func anAuthorIsItsUserAndNameAcrossRestarts() {
        let restarted = ChangeOrigin.client(pid: 99, uid: 1000, name: "Phone A")
        #expect(Self.phoneA.isSameAuthor(as: restarted), "listd-web restarted: the same phone")
        #expect(!Self.phoneA.isSameAuthor(as: .client(pid: 10, uid: 1001, name: "Phone A")), "another user")
        #expect(!Self.phoneA.isSameAuthor(as: .file), "a save of the file is no client's")
        let unnamed = ChangeOrigin.client(pid: 7, uid: 1000, name: nil)
        #expect(unnamed.isSameAuthor(as: unnamed))
        #expect(!unnamed.isSameAuthor(as: .client(pid: 8, uid: 1000, name: nil)), "unnamed: the same process only")
    }
}
