// Which lists a save (or an edit made on older lists) is read against: the lists its author saw.
import ListModel

/// A text of the list file that was on disk: one listd wrote, or a save of a person's it took
/// in. A save that shows the lists is not written back (an editor with the file open is not told
/// it changed), so its text stays on disk with the `rev=` it was made from: a copy read then, or
/// the same person saving again from their buffer, is made from it, not from that revision.
/// Kept in memory only: after a restart a save is read against the revision its headings name.
public struct FileVersion: Sendable {
    /// The `rev=` its headings carry (nil: none do).
    public var revision: Revision?
    /// The lists its text shows.
    public var book: ListBook
    /// Its bytes: which text a copy came from is told by its lines, their spelling included.
    public var text: [UInt8]
    /// A person's save (else listd wrote it).
    public var isSave: Bool
    /// The revision of the lists right after it was written or taken in: the history after it
    /// is what a copy made from it did not see.
    public var through: Revision

    public init(revision: Revision?, book: ListBook, text: [UInt8] = [], isSave: Bool = true, through: Revision? = nil) {
        self.revision = revision
        self.book = book
        self.text = text
        self.isSave = isSave
        self.through = through ?? book.revision
    }
}

/// What a save is read against: the lists the person's editor read.
///
/// - A save whose headings name a revision the history keeps (`rev=`, on disk, across restarts)
///   is read against the lists at that revision, rebuilt from the history — or, when its text is
///   closer to a save taken in from that revision (the same person saving again from one buffer,
///   or someone who read the file while it showed that save), against that save. Another
///   person's save is never the base of a copy read before it: that copy differs from it by both
///   people's edits, from the revision by its own only.
/// - A save with no usable revision (its notes stripped by a tool, a backup older than the
///   history, another machine's file) is matched by content to the kept lists closest to it,
///   and whatever it shows that was taken off or renamed within the history is not brought back
///   (`since`).
/// - When no kept lists are close, it is read against the newest, and only what cannot undo
///   anything is taken from it.
public struct SaveBase: Sendable {
    public enum Kind: Sendable, Equatable {
        /// The lists at the revision its headings name, or the person's own save from it.
        case revision
        /// The kept lists closest to it by content, at `revision`.
        case closest(revision: Revision)
        /// Nothing kept is close: the newest lists; additions and ticks only.
        case unrelated
    }

    public var book: ListBook
    public var kind: Kind
    /// What the history did since the base (all of it, for a base found by content, which may
    /// predate what the copy shows): what the save must not bring back or undo.
    public var since: ChangesSince

    public init(book: ListBook, kind: Kind, since: ChangesSince = ChangesSince()) {
        self.book = book
        self.kind = kind
        self.since = since
    }

    /// False: nothing kept is close to the copy (`unrelated`).
    public var known: Bool { kind != .unrelated }

    /// How many lines a copy may differ from the closest kept lists and still be read against
    /// them: a quarter of its lines, at least three.
    static func isClose(_ distance: Int, lines: Int) -> Bool { distance <= max(3, lines / 4) }

    /// The base of `reading` (see the type's comment). `history`: the kept changes (nil when
    /// there are none to read, as in tests of the file alone); `versions`: the texts of the file
    /// listd wrote and the saves it took in, that a copy may have been made from; `newest`: the
    /// lists the file last showed.
    /// `text`: the copy's bytes (what `reading` was read from).
    public static func base(
        for reading: ListFileReading,
        text: [UInt8]? = nil,
        history: ChangeHistory?,
        versions: [FileVersion],
        newest: ListBook
    ) -> SaveBase {
        if let revision = reading.shownRevision {
            let atRevision: ListBook? =
                if revision == newest.revision { newest } else if let history { (try? history.book(at: revision)) ?? nil } else { nil }
            if let atRevision {
                let copy = text ?? Array(reading.document.lines.map(\.raw).joined(separator: "\n").utf8)
                let (book, through) = madeFrom(copy, atRevision, revision: revision, versions: versions)
                let since = history.map { ChangesSince($0, from: through) } ?? ChangesSince()
                return SaveBase(book: book, kind: .revision, since: since)
            }
            // Without a history, the saves filed under its revision are all there is to go by.
            if history == nil, let own = versions.last(where: { $0.revision == revision }) {
                return SaveBase(book: own.book, kind: .revision)
            }
        }
        return closest(to: reading, history: history, versions: versions, newest: newest)
    }

    /// Which text of revision `revision` the copy was made from: the one listd wrote (its lists,
    /// `atRevision`, from the history) or a save taken in from it that stayed on disk, whichever
    /// its lines are closest to (`TextDistance`: the spelling of a line tells where it came from —
    /// `- [ ] milk` was made from `- [x] milk`, not from `- milk`). A tie goes to listd's text
    /// (a copy read before another person's save is never read against it), then to the later
    /// save. Without listd's text to compare with, the revision.
    /// Returns the lists of that text and the revision whose changes it shows. The last
    /// `savesCompared` saves of the revision are compared (one person saving again and again
    /// supersedes their earlier saves; each comparison reads the whole text).
    static func madeFrom(
        _ copy: [UInt8],
        _ atRevision: ListBook,
        revision: Revision,
        versions: [FileVersion]
    ) -> (book: ListBook, through: Revision) {
        let candidates = versions.filter { $0.revision == revision }
        let saves = candidates.filter(\.isSave).suffix(savesCompared)
        guard !saves.isEmpty else { return (atRevision, revision) }
        // listd's text of that revision, or a save that showed exactly its lists (taken in at a
        // start, say): the text a copy of the revision itself was read from.
        guard let written = candidates.last(where: { !$0.isSave }) ?? candidates.first(where: { Self.showSameLists($0.book, atRevision) }),
            !written.text.isEmpty, saves.allSatisfy({ !$0.text.isEmpty })
        else {
            // Without listd's text of that revision to compare with (a restart forgot it), the
            // revision: read against it, another's save is never undone (what it did is already
            // done); only the person's own undoing of their last save goes unseen.
            return (atRevision, revision)
        }
        let lines = TextLines(copy)
        var best = (book: atRevision, through: revision, distance: TextDistance.between(lines, TextLines(written.text)), isSave: false)
        for save in saves {
            let distance = TextDistance.between(lines, TextLines(save.text))
            if distance < best.distance || (distance == best.distance && best.isSave) {
                best = (save.book, save.through, distance, true)
            }
        }
        return (best.book, best.through)
    }

    static let savesCompared = 4

    /// Whether two books show the same lists: names, items, ticks, amounts and sections (not the
    /// revisions and times they carry).
    static func showSameLists(_ a: ListBook, _ b: ListBook) -> Bool {
        a.lists.count == b.lists.count
            && zip(a.lists, b.lists).allSatisfy { one, other in
                one.id == other.id && one.name == other.name && one.items == other.items && one.checked == other.checked
                    && one.quantities == other.quantities && one.sections == other.sections
            }
    }

    /// A copy with no usable revision: the kept lists closest to it by content.
    static func closest(to reading: ListFileReading, history: ChangeHistory?, versions: [FileVersion], newest: ListBook) -> SaveBase {
        let lines = reading.sections.reduce(0) { $0 + $1.items.count + 1 }
        var best = (book: newest, distance: distance(reading, newest))
        func consider(_ book: ListBook) {
            let distance = distance(reading, book)
            if distance < best.distance { best = (book, distance) }
        }
        for version in versions { consider(version.book) }
        var since = ChangesSince()
        if let history {
            // Coarse: the base and every checkpoint; then every revision around the closest.
            consider(history.base)
            for checkpoint in history.checkpoints { consider(checkpoint) }
            // Every revision around the closest, when it is near enough to be worth it (a paste of
            // thousands of lines is close to none).
            if best.distance <= 2 * max(3, lines / 4) {
                let around = best.book.revision
                let from = max(history.base.revision, around - ChangeHistory.checkpointSpacing)
                let to = around + ChangeHistory.checkpointSpacing
                try? history.forEachRevision(from: from) { book, _, _ in
                    consider(book)
                    return book.revision < to
                }
            }
            since = ChangesSince(history)
        }
        guard isClose(best.distance, lines: lines) else {
            return SaveBase(book: newest, kind: .unrelated, since: since)
        }
        return SaveBase(book: best.book, kind: .closest(revision: best.book.revision), since: since)
    }

    /// How many lines `reading` differs from `book` in: items one has and the other has not,
    /// ticks that differ, headings renamed, whole lists one has and the other has not.
    static func distance(_ reading: ListFileReading, _ book: ListBook) -> Int {
        var distance = 0
        var seen: Set<ListID> = []
        for section in reading.sections {
            guard let id = section.id, let list = try? book.list(.id(id)) else {
                distance += section.items.count + 1
                continue
            }
            seen.insert(id)
            var common = 0
            // One set per list: a lookup per line in the list itself scans its items' hashes.
            let items = Set(list.items)
            for item in section.items {
                if items.contains(item.text) {
                    common += 1
                    if list.isChecked(item.text) != item.checked { distance += 1 }
                } else {
                    distance += 1
                }
            }
            distance += list.items.count - common
            if list.name != section.name { distance += 1 }
        }
        for list in book.lists where !seen.contains(list.id) { distance += list.items.count + 1 }
        return distance
    }
}

/// What the kept history did after a save's base — items and lists taken off or renamed, ticks
/// changed, sections renamed — with who
/// did it and when: the diff3 "theirs" side, change by change, not only the net difference (an
/// item added and taken off again since is not on either side, yet a copy that shows it must not
/// bring it back; a tick made and taken back since is a change of the tick).
public struct ChangesSince: Sendable {
    public struct Change: Sendable, Hashable {
        /// The text as it was on the list.
        public var text: String
        /// What it became, when it was renamed (nil: taken off).
        public var renamedTo: String?
        public var origin: ChangeOrigin
        public var time: Timestamp
    }

    /// Items taken off or renamed, per list, by item key.
    public private(set) var removedItems: [ListID: [String: Change]] = [:]
    /// Lists deleted or renamed, by name key.
    public private(set) var removedLists: [String: Change] = [:]
    /// Ticks and unticks, per list, by item key: the last one.
    public private(set) var ticks: [ListID: [String: (checked: Bool, change: Change)]] = [:]
    /// Sections renamed, per list, by the old name's key: the new name (a section's identity
    /// through its renames: an add under `## Dairy` goes to what Dairy is called now).
    public private(set) var sectionRenames: [ListID: [String: String]] = [:]
    /// Read from a history (else nothing is known of what happened since the base).
    public private(set) var isKnown = false

    public init() {}

    /// Walks `history` from `revision` on (the base's; nil: all of it) once.
    /// What is on the lists again (put back, added again) is the merge's to see, on the lists as
    /// they are when the save is taken in (`SaveMerge.now`).
    public init(_ history: ChangeHistory, from revision: Revision? = nil) {
        isKnown = true
        try? history.forEachRevision(from: revision) { _, record, change in
            guard let record, let change else { return true }
            let made = { (text: String, renamedTo: String?) in
                Change(text: text, renamedTo: renamedTo, origin: record.origin, time: record.time)
            }
            let id = change.list.id
            switch change.kind {
            case .deleted:
                removedLists[ListText.key(change.list.name)] = made(change.list.name, nil)
            case .renamed:
                for case .rename(let from, let to) in change.steps { removedLists[ListText.key(from)] = made(from, to) }
            case .created, .updated:
                for step in change.steps {
                    switch step {
                    case .remove(let item): removedItems[id, default: [:]][ListText.key(item)] = made(item, nil)
                    case .replace(let item, let with) where ListText.key(item) != ListText.key(with):
                        removedItems[id, default: [:]][ListText.key(item)] = made(item, with)
                    case .renameSection(let from, let to): sectionRenames[id, default: [:]][ListText.key(from)] = to
                    case .check(let item): ticks[id, default: [:]][ListText.key(item)] = (true, made(item, nil))
                    case .uncheck(let item): ticks[id, default: [:]][ListText.key(item)] = (false, made(item, nil))
                    default: break
                    }
                }
            }
            return true
        }
    }

    public var isEmpty: Bool { removedItems.isEmpty && removedLists.isEmpty && ticks.isEmpty && sectionRenames.isEmpty }

    /// What the section `name` of list `id` is called now, through every rename since the base;
    /// nil when it was not renamed.
    public func sectionName(_ name: String, on id: ListID) -> String? {
        var current = name
        var seen: Set<String> = []
        while let next = sectionRenames[id]?[ListText.key(current)], seen.insert(ListText.key(current)).inserted { current = next }
        return current == name ? nil : current
    }

    /// What `item` on list `id` is called now when the history renamed it since the base (through
    /// every rename since), with the last rename; nil when it was not renamed.
    public func renamed(_ item: String, on id: ListID) -> (now: String, change: Change)? {
        var name = item
        var last: Change?
        var seen: Set<String> = []
        while let change = removedItems[id]?[ListText.key(name)], let next = change.renamedTo, seen.insert(ListText.key(name)).inserted {
            name = next
            last = change
        }
        return last.map { (name, $0) }
    }

    /// The removal of `item` from list `id` since the base, when it is one.
    public func removal(of item: String, on id: ListID) -> Change? { removedItems[id]?[ListText.key(item)] }

    /// The deletion or rename of the list named `name` since the base, when it is one.
    public func removal(ofList name: String) -> Change? { removedLists[ListText.key(name)] }

    /// The last tick or untick of `item` on list `id` since the base, when there was one.
    public func tick(of item: String, on id: ListID) -> (checked: Bool, change: Change)? { ticks[id]?[ListText.key(item)] }
}

extension ChangesSince.Change {
    /// Who made it and when, as a sentence goes on: "by listctl on 2026-11-27 at 10:02 UTC".
    public var byWhomAndWhen: String {
        let who: String =
            switch origin {
            case .client(let pid, _, let name): name ?? "a client (pid \(pid))"
            case .file(nil): "an edit of the list file"
            case .file(let host?): "an edit of the list file on \(host)"
            }
        let stamp = time.rfc3339
        let day = stamp.prefix(10)
        let minute = stamp.dropFirst(11).prefix(5)
        return "by \(who) on \(day) at \(minute) UTC"
    }
}

/// A text's lines as byte ranges, each with its hash: compared without making a string of each.
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
                ranges.append(start..<index)
                var hasher = Hasher()
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[start..<index])))
                hashes.append(hasher.finalize())
                start = index + 1
            }
        }
        self.ranges = ranges
        self.hashes = hashes
    }

    func line(_ index: Int) -> ArraySlice<UInt8> { bytes[ranges[index]] }
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
