// Which text a copy of the list file was made from: its lines against a text's, by hash and,
// between texts as far apart, by how much of the lines differ.
import ListModel

/// A text's lines as byte ranges, each with its hash: compared without making a string of each.
/// listd's own notes (`<!-- listd: not taken: … -->`) are not among them: they are not the
/// person's, and a text listd wrote before a restart is stood in for by the lists written anew,
/// without the notes the file had (a copy of it, and every save from it, still shows them).
struct TextLines {
    let bytes: [UInt8]
    var ranges: [Range<Int>] = []
    var hashes: [Int] = []

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var ranges: [Range<Int>] = []
        var hashes: [Int] = []
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            for index in 0...buffer.count where index == buffer.count || buffer[index] == UInt8(ascii: "\n") {
                defer { start = index + 1 }
                guard !Self.isNote(buffer[start..<index]) else { continue }
                ranges.append(start..<index)
                var hasher = Hasher()
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[start..<index])))
                hashes.append(hasher.finalize())
            }
        }
        self.ranges = ranges
        self.hashes = hashes
    }

    func line(_ index: Int) -> ArraySlice<UInt8> { bytes[ranges[index]] }

    /// A line that is one of listd's notes, however indented.
    static func isNote(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let marker = Array("<!-- listd:".utf8)
        guard let first = line.firstIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { return false }
        return line[first...].starts(with: marker)
    }
}

/// How far a copy's text is from a text it may have been made from: first how many lines differ
/// (a line of one and the other's line of the same item, edited in place — ticked, given an
/// amount —, count once); between texts as far apart, the characters of those lines (a pair
/// costs what was changed in it, by their common start and end: `- [ ] milk` is nearer
/// `- [x] milk` than `- milk`; any other line all of itself). Counts by line hash, not an
/// alignment: linear.
struct TextDistance: Comparable {
    var lines: Int
    var characters: Int

    static func < (a: TextDistance, b: TextDistance) -> Bool {
        (a.lines, a.characters) < (b.lines, b.characters)
    }

    static func between(_ copy: TextLines, _ text: TextLines) -> TextDistance {
        var counts: [Int: Int] = [:]
        counts.reserveCapacity(text.hashes.count)
        for hash in text.hashes { counts[hash, default: 0] += 1 }
        var onlyInCopy: [Int] = []
        for (index, hash) in copy.hashes.enumerated() {
            if let count = counts[hash], count > 0 { counts[hash] = count - 1 } else { onlyInCopy.append(index) }
        }
        // The text's own lines the copy lacks, by the item they show.
        var onlyInText: [String: [ArraySlice<UInt8>]] = [:]
        var unmatched = onlyInCopy.count
        for (index, hash) in text.hashes.enumerated() {
            if let count = counts[hash], count > 0 {
                counts[hash] = count - 1
                onlyInText[itemKey(text.line(index)), default: []].append(text.line(index))
                unmatched += 1
            }
        }
        var characters = 0
        for index in onlyInCopy {
            let line = copy.line(index)
            let key = itemKey(line)
            if var same = onlyInText[key], !same.isEmpty {
                characters += changed(Array(line), Array(same.removeFirst()))
                onlyInText[key] = same
                unmatched -= 1  // one line edited in place
            } else {
                characters += line.count + 1
            }
        }
        for rest in onlyInText.values { characters += rest.reduce(0) { $0 + $1.count + 1 } }
        return TextDistance(lines: unmatched, characters: characters)
    }

    /// The item a line shows (its text without bullet, box or amount, folded), or the line.
    static func itemKey(_ bytes: ArraySlice<UInt8>) -> String {
        let line = String(decoding: bytes, as: UTF8.self)
        guard case .item(let item) = ListDocument(parsing: line).lines.first else { return line }
        return ListText.key(ItemAmount.split(item.text).text)
    }

    /// The bytes of the longer line outside the start and end both lines share.
    static func changed(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        return max(a.count, b.count) - prefix - suffix
    }
}
