// A list's items, in order, kept in chunks that copies of the list share: an edit copies the chunk
// it changes and the table of chunks, not every item. Every change keeps the list as it made it
// (for its notification and its reply), so with one array the next edit of a 10,000-item list
// copied all 10,000 items (issue 38); here it copies about a hundred and fifty references and one
// chunk of at most 127 items. Each item's hash is kept beside it, so finding the item a removal
// names compares integers, not every string before it.

/// The items of a list, in order: a random-access, mutable collection of strings whose copies
/// share storage until one of them changes.
public struct ItemList: Sendable {
    /// A run of items, shared by copies of the list until one of them changes it (then that copy
    /// takes a chunk of its own: `uniqueChunk`). Each item's hash is kept beside it, so that
    /// finding an item compares integers, and strings only where the hashes match.
    final class Chunk: @unchecked Sendable {
        // Changed only while uniquely referenced (copy on write), so never while shared.
        private(set) var items: [String]
        /// `items[i]`'s hash, for each `i` (`shortHash`).
        private var hashes: [Int32]

        init(_ items: [String]) {
            self.items = items
            hashes = items.map(Self.shortHash)
        }

        init(copying other: Chunk) {
            items = other.items
            hashes = other.hashes
        }

        var count: Int { items.count }

        func insert(_ item: String, at offset: Int) {
            items.insert(item, at: offset)
            hashes.insert(Self.shortHash(item), at: offset)
        }

        func remove(at offset: Int) -> String {
            hashes.remove(at: offset)
            return items.remove(at: offset)
        }

        func replace(at offset: Int, with item: String) {
            items[offset] = item
            hashes[offset] = Self.shortHash(item)
        }

        func append(_ other: Chunk) {
            items += other.items
            hashes += other.hashes
        }

        /// Takes the items from `offset` on out of this chunk, into a new one.
        func split(at offset: Int) -> Chunk {
            let tail = Chunk(copying: self)
            tail.items.removeSubrange(..<offset)
            tail.hashes.removeSubrange(..<offset)
            items.removeSubrange(offset...)
            hashes.removeSubrange(offset...)
            return tail
        }

        /// An item's hash as kept: its low 32 bits, so that a scan compares eight in one step
        /// (two hashes alike by chance only cost a comparison of the strings).
        static func shortHash(_ item: String) -> Int32 {
            Int32(truncatingIfNeeded: item.hashValue)
        }

        /// Where `item` (whose hash is `hash`, `shortHash`) first is in this chunk: its hashes
        /// compared eight at a time. A removal from a long list scans every chunk before its
        /// item's; one full hash at a time, that scan was most of what an edit of a 10,000-item
        /// list cost more than one of a 10-item list.
        func firstOffset(of item: String, hash: Int32) -> Int? {
            hashes.withUnsafeBufferPointer { hashes in
                let wanted = SIMD8(repeating: hash)
                var offset = 0
                while offset + 8 <= hashes.count {
                    let eight = UnsafeRawPointer(hashes.baseAddress! + offset).loadUnaligned(as: SIMD8<Int32>.self)
                    if any(eight .== wanted), let found = match(item, hash, in: hashes, offset..<offset + 8) {
                        return found
                    }
                    offset += 8
                }
                return match(item, hash, in: hashes, offset..<hashes.count)
            }
        }

        /// The first offset in `range` with `item`'s hash and `item` itself.
        private func match(_ item: String, _ hash: Int32, in hashes: UnsafeBufferPointer<Int32>, _ range: Range<Int>) -> Int? {
            range.first { hashes[$0] == hash && items[$0] == item }
        }
    }

    /// Items a chunk is made with; one that grows to twice this is split in two.
    static let chunkSize = 64

    private(set) var chunks: [Chunk]
    /// The index of each chunk's first item: `starts[k]` is where `chunks[k]` begins.
    private var starts: [Int]
    public private(set) var count: Int

    public init() {
        chunks = []
        starts = []
        count = 0
    }

    public init(_ items: some Sequence<String>) {
        self.init(Array(items))
    }

    /// The items of an array: the one a list read from text is made from. Not generic, so that
    /// making it from another module looks nothing up at run time (a generic one asked the runtime
    /// for the array's iterator, scanning every conformance in a one-shot client's binary).
    public init(_ items: [String]) {
        self.init()
        var run: [String] = []
        run.reserveCapacity(Self.chunkSize)
        for item in items {
            run.append(item)
            if run.count == Self.chunkSize {
                appendChunk(run)
                run.removeAll(keepingCapacity: true)
            }
        }
        if !run.isEmpty { appendChunk(run) }
    }

    private mutating func appendChunk(_ items: [String]) {
        starts.append(count)
        chunks.append(Chunk(items))
        count += items.count
    }

    /// The chunk that holds `index` (for `index == count`, the last one), and where in it.
    private func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        precondition(index >= 0 && index <= count, "index \(index) out of 0...\(count)")
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return (low, index - starts[low])
    }

    /// Chunk `k`, copied first if another list shares it.
    private mutating func uniqueChunk(_ k: Int) -> Chunk {
        if !isKnownUniquelyReferenced(&chunks[k]) {
            chunks[k] = Chunk(copying: chunks[k])
        }
        return chunks[k]
    }

    private mutating func shiftStarts(after k: Int, by delta: Int) {
        var next = k + 1
        while next < starts.count {
            starts[next] += delta
            next += 1
        }
    }

    public mutating func insert(_ item: String, at index: Int) {
        guard !chunks.isEmpty else {
            precondition(index == 0, "index \(index) out of 0...0")
            appendChunk([item])
            return
        }
        let (k, offset) = locate(index)
        let chunk = uniqueChunk(k)
        chunk.insert(item, at: offset)
        count += 1
        shiftStarts(after: k, by: 1)
        if chunk.count >= 2 * Self.chunkSize {
            // Split in two, so that a chunk stays small to copy.
            let half = chunk.count / 2
            chunks.insert(chunk.split(at: half), at: k + 1)
            starts.insert(starts[k] + half, at: k + 1)
        }
    }

    public mutating func append(_ item: String) {
        insert(item, at: count)
    }

    @discardableResult
    public mutating func remove(at index: Int) -> String {
        precondition(index >= 0 && index < count, "index \(index) out of 0..<\(count)")
        let (k, offset) = locate(index)
        let chunk = uniqueChunk(k)
        let removed = chunk.remove(at: offset)
        count -= 1
        shiftStarts(after: k, by: -1)
        if chunk.count == 0 {
            chunks.remove(at: k)
            starts.remove(at: k)
        } else if chunk.count < Self.chunkSize / 4 {
            mergeWithNeighbour(k)
        }
        return removed
    }

    /// Joins a chunk that removals left small with the one after it (or before it, at the end)
    /// when both fit in one chunk that need not split: without it, inserts and removals could
    /// leave a chunk per item, and a copy would cost a reference per item again.
    private mutating func mergeWithNeighbour(_ k: Int) {
        guard chunks.count > 1 else { return }
        let left = k + 1 < chunks.count ? k : k - 1
        guard chunks[left].count + chunks[left + 1].count < 2 * Self.chunkSize else { return }
        let right = chunks[left + 1]
        uniqueChunk(left).append(right)
        chunks.remove(at: left + 1)
        starts.remove(at: left + 1)
    }

    /// The first index whose item satisfies `predicate`, chunk by chunk.
    public func firstIndex(where predicate: (String) throws -> Bool) rethrows -> Int? {
        for (k, chunk) in chunks.enumerated() {
            if let offset = try chunk.items.firstIndex(where: predicate) { return starts[k] + offset }
        }
        return nil
    }

    /// The index of the first item equal to `item`: a scan of the items' hashes (a long list's
    /// removal finds its item without comparing every string before it).
    public func firstIndex(of item: String) -> Int? {
        let hash = Chunk.shortHash(item)
        for (k, chunk) in chunks.enumerated() {
            if let offset = chunk.firstOffset(of: item, hash: hash) { return starts[k] + offset }
        }
        return nil
    }

    /// Whether `item`, exactly as written, is one of the items (a hash lookup per chunk, not a scan).
    public func contains(_ item: String) -> Bool {
        firstIndex(of: item) != nil
    }
}

extension ItemList: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> String {
        get {
            precondition(position >= 0 && position < count, "index \(position) out of 0..<\(count)")
            let (k, offset) = locate(position)
            return chunks[k].items[offset]
        }
        set {
            precondition(position >= 0 && position < count, "index \(position) out of 0..<\(count)")
            let (k, offset) = locate(position)
            uniqueChunk(k).replace(at: offset, with: newValue)
        }
    }

    public struct Iterator: IteratorProtocol {
        private let chunks: [Chunk]
        private var nextChunk = 0
        private var current: [String] = []
        private var offset = 0

        fileprivate init(_ chunks: [Chunk]) {
            self.chunks = chunks
        }

        public mutating func next() -> String? {
            if offset < current.count {
                defer { offset += 1 }
                return current[offset]
            }
            // Chunks are never empty.
            guard nextChunk < chunks.count else { return nil }
            current = chunks[nextChunk].items
            nextChunk += 1
            offset = 1
            return current[0]
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(chunks)
    }

    public mutating func replaceSubrange(_ subrange: Range<Int>, with newItems: some Collection<String>) {
        precondition(subrange.lowerBound >= 0 && subrange.upperBound <= count, "range \(subrange) out of 0..<\(count)")
        // One item in, one out: the edits a list gets one at a time, in place.
        if subrange.isEmpty, newItems.count == 1 {
            insert(newItems.first!, at: subrange.lowerBound)
        } else if subrange.count == 1, newItems.isEmpty {
            remove(at: subrange.lowerBound)
        } else if !subrange.isEmpty || !newItems.isEmpty {
            // Anything larger (a clear, a paste) rebuilds the chunks.
            var all = Array(self)
            all.replaceSubrange(subrange, with: newItems)
            self = ItemList(all)
        }
    }
}

extension ItemList: Hashable {
    public static func == (lhs: ItemList, rhs: ItemList) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Copies that share every chunk are equal without a look at their items.
        if lhs.chunks.count == rhs.chunks.count, zip(lhs.chunks, rhs.chunks).allSatisfy({ $0 === $1 }) {
            return true
        }
        return lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for item in self { hasher.combine(item) }
    }
}

extension ItemList: ExpressibleByArrayLiteral {
    public init(arrayLiteral items: String...) {
        self.init(items)
    }
}

extension ItemList: Codable {
    /// A JSON array of strings, as `[String]` is.
    public init(from decoder: any Decoder) throws {
        self.init(try [String](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for item in self { try container.encode(item) }
    }
}

extension ItemList: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { Array(self).description }
    public var debugDescription: String { Array(self).debugDescription }
}
