import Testing

@testable import ListModel

/// The alignment's longest common subsequence: by longest increasing run when no key repeats
/// (issue 27: a 10,000-line save was a 10,000 × 10,000 table), by the table otherwise.
@Suite struct CommonSubsequenceTests {
    /// Whether `pairs` is a common subsequence of `a` and `b`: equal keys, both sides increasing.
    private func isCommonSubsequence(_ pairs: [(Int, Int)], _ a: [String], _ b: [String]) -> Bool {
        zip(pairs, pairs.dropFirst()).allSatisfy { $0.0 < $1.0 && $0.1 < $1.1 } && pairs.allSatisfy { a[$0.0] == b[$0.1] }
    }

    @Test func withUniqueKeysItIsAsLongAsTheTablesAndValid() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let size = Int.random(in: 0...30, using: &generator)
            let a = (0..<size).map { "k\($0)" }
            // new: some of old, shuffled a little, and some new keys.
            var b = a.filter { _ in Bool.random(using: &generator) }
            for _ in 0..<Int.random(in: 0...4, using: &generator) where b.count > 1 {
                b.swapAt(Int.random(in: 0..<b.count, using: &generator), Int.random(in: 0..<b.count, using: &generator))
            }
            b.insert(contentsOf: (0..<Int.random(in: 0...3, using: &generator)).map { "n\(round)-\($0)" }, at: 0)
            let fast = ItemAlignment.longestCommonSubsequence(a, b)
            let table = ItemAlignment.tabulatedCommonSubsequence(a, b)
            #expect(isCommonSubsequence(fast, a, b), "\(a) → \(b)")
            #expect(fast.count == table.count, "\(a) → \(b)")
        }
    }

    @Test func repeatedKeysGoToTheTable() {
        let a = ["x", "y", "x"]
        let b = ["x", "x"]
        #expect(ItemAlignment.longestCommonSubsequence(a, b).map { [$0.0, $0.1] } == [[0, 0], [2, 1]])
    }

    /// 10,000 items with every tenth moved to the end and a hundred new ones: aligned exactly
    /// (the table would need 10⁸ cells for it).
    @Test func aTenThousandLineSaveIsAligned() {
        let old = (0..<10_000).map { "item \($0)" }
        var new = old.enumerated().filter { $0.offset % 10 != 0 }.map(\.element)
        new += old.enumerated().filter { $0.offset % 10 == 0 }.map(\.element)
        new.insert(contentsOf: (0..<100).map { "new \($0)" }, at: 5_000)
        let (moves, reordered) = ItemAlignment.moves(old: old, new: new)
        #expect(moves.count == 1_000)
        #expect(reordered == new.filter { $0.hasPrefix("item") })
        let steps = ItemAlignment.align(old: reordered, new: new)
        #expect(steps.filter { if case .insert = $0 { true } else { false } }.count == 100)
        #expect(steps.count == new.count)
    }
}
