/// How an old sequence of texts becomes a new one, in the fewest, finest steps: texts that stay
/// (compared by `ListText.key`) are kept, a text changed at the same position is a replace, and
/// the rest are removes and inserts.
///
/// Used both ways: to turn a person's edit of the file into list edits, and to write the lists
/// back into the person's file while touching as few lines as possible.
package enum ItemAlignment {
    package enum Step: Hashable, Sendable {
        /// `old[oldIndex]` stays as `new[newIndex]` (the spelling may differ in case or spacing).
        case keep(oldIndex: Int, newIndex: Int)
        /// `old[oldIndex]` was edited in place into `new[newIndex]`.
        case replace(oldIndex: Int, newIndex: Int)
        case remove(oldIndex: Int)
        case insert(newIndex: Int)
    }

    /// Steps in order of position: walking them reproduces `new` from `old`.
    package static func align(old: some Collection<String>, new: some Collection<String>) -> [Step] {
        let oldKeys = old.map(ListText.key)
        let newKeys = new.map(ListText.key)
        let anchors = longestCommonSubsequence(oldKeys, newKeys)
        var steps: [Step] = []
        var oldIndex = 0
        var newIndex = 0
        for (oldAnchor, newAnchor) in anchors + [(old.count, new.count)] {
            // Between anchors: pair positions as in-place edits, then the surplus.
            let removed = oldAnchor - oldIndex
            let inserted = newAnchor - newIndex
            let paired = min(removed, inserted)
            for offset in 0..<paired {
                steps.append(.replace(oldIndex: oldIndex + offset, newIndex: newIndex + offset))
            }
            for offset in paired..<removed { steps.append(.remove(oldIndex: oldIndex + offset)) }
            for offset in paired..<inserted { steps.append(.insert(newIndex: newIndex + offset)) }
            if oldAnchor < old.count {
                steps.append(.keep(oldIndex: oldAnchor, newIndex: newAnchor))
            }
            oldIndex = oldAnchor + 1
            newIndex = newAnchor + 1
        }
        return steps
    }

    /// An item that changes place: `old[oldIndex]` goes right after `old[after]` (to the top when
    /// nil), as `ItemAlignment.move` does.
    package struct Move: Hashable, Sendable {
        package var oldIndex: Int
        package var newIndex: Int
        package var after: Int?

        package init(oldIndex: Int, newIndex: Int, after: Int?) {
            self.oldIndex = oldIndex
            self.newIndex = newIndex
            self.after = after
        }
    }

    /// The fewest moves that put the items `old` and `new` share (compared by `ListText.key`) in
    /// `new`'s order, and `old` once they are made. A line a person moved is the same item in a
    /// new place — never a removal and an addition, which a rule or a delegate could split and
    /// lose the item by — so a save's moves are made first and `align` then sees only what was
    /// really added, removed or edited.
    ///
    /// `mustMove`: indexes into `old` of items that move whatever their order (a line pasted under
    /// another section): the fewest moves are found among the others.
    package static func moves(old: [String], new: [String], mustMove: Set<Int> = []) -> (moves: [Move], reordered: [String]) {
        var oldIndexByKey: [String: Int] = [:]
        for (index, text) in old.enumerated() where oldIndexByKey[ListText.key(text)] == nil {
            oldIndexByKey[ListText.key(text)] = index
        }
        // The shared items in new's order, each by its index in old and in new.
        var shared: [(old: Int, new: Int)] = []
        var seen: Set<Int> = []
        for (newIndex, text) in new.enumerated() {
            if let oldIndex = oldIndexByKey[ListText.key(text)], seen.insert(oldIndex).inserted {
                shared.append((oldIndex, newIndex))
            }
        }
        // The items that stay put: the longest run of shared items already in old's order.
        let candidates = mustMove.isEmpty ? shared : shared.filter { !mustMove.contains($0.old) }
        let staying = Set(longestIncreasingSubsequence(candidates.map(\.old)).map { candidates[$0].old })
        var moves: [Move] = []
        var reordered = Array(old.indices)
        for (position, item) in shared.enumerated() where !staying.contains(item.old) {
            let after = position > 0 ? shared[position - 1].old : nil
            moves.append(Move(oldIndex: item.old, newIndex: item.new, after: after))
            move(&reordered, from: reordered.firstIndex(of: item.old)!, toFollow: after.flatMap(reordered.firstIndex(of:)))
        }
        return (moves, reordered.map { old[$0] })
    }

    /// Moves `elements[index]` to right after `elements[anchor]` (to the front when nil).
    /// - Returns: where it is now.
    @discardableResult
    package static func move<Elements: RangeReplaceableCollection>(
        _ elements: inout Elements,
        from index: Int,
        toFollow anchor: Int?
    ) -> Int where Elements.Index == Int {
        let element = elements.remove(at: index)
        let destination = anchor.map { $0 < index ? $0 + 1 : $0 } ?? 0
        elements.insert(element, at: destination)
        return destination
    }

    /// Index pairs of one longest common subsequence. When no key repeats on either side (a
    /// list's items never do, nor a save's taken lines) it is the longest increasing run of old
    /// positions in new's order: O(n log n), so a 10,000-line save is not a 10,000 × 10,000
    /// table. Otherwise a quadratic table, after common prefixes and suffixes are matched.
    static func longestCommonSubsequence(_ a: [String], _ b: [String]) -> [(Int, Int)] {
        var positionInA: [String: Int] = [:]
        positionInA.reserveCapacity(a.count)
        var unique = true
        for (index, key) in a.enumerated() where positionInA.updateValue(index, forKey: key) != nil {
            unique = false
        }
        if unique, Set(b).count == b.count {
            let matches = b.indices.compactMap { j in positionInA[b[j]].map { (i: $0, j: j) } }
            return longestIncreasingSubsequence(matches.map(\.i)).map { (matches[$0].i, matches[$0].j) }
        }
        return tabulatedCommonSubsequence(a, b)
    }

    /// Indexes into `values` of one longest strictly increasing subsequence (patience sorting).
    package static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        // tails[k]: index of the smallest last value of an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(index)
            index = previous[index]
        }
        return run.reversed()
    }

    /// The general case (keys that repeat): quadratic in the worst case, but common prefixes and
    /// suffixes (almost everything, for one person's save) are matched first.
    static func tabulatedCommonSubsequence(_ a: [String], _ b: [String]) -> [(Int, Int)] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        let middleA = Array(a[prefix..<(a.count - suffix)])
        let middleB = Array(b[prefix..<(b.count - suffix)])
        var pairs: [(Int, Int)] = (0..<prefix).map { ($0, $0) }
        if !middleA.isEmpty, !middleB.isEmpty {
            let n = middleA.count
            let m = middleB.count
            // lengths[i][j]: LCS length of middleA[i...] and middleB[j...]
            var lengths = [[Int32]](repeating: [Int32](repeating: 0, count: m + 1), count: n + 1)
            for i in stride(from: n - 1, through: 0, by: -1) {
                for j in stride(from: m - 1, through: 0, by: -1) {
                    lengths[i][j] =
                        middleA[i] == middleB[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
                }
            }
            var i = 0
            var j = 0
            while i < n, j < m {
                if middleA[i] == middleB[j] {
                    pairs.append((prefix + i, prefix + j))
                    i += 1
                    j += 1
                } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                    i += 1
                } else {
                    j += 1
                }
            }
        }
        for offset in 0..<suffix {
            pairs.append((a.count - suffix + offset, b.count - suffix + offset))
        }
        return pairs
    }
}
