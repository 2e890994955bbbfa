import Foundation
import ListModel
import Testing

@testable import ListCore
@testable import ListDaemon

/// The copy of the shared lists a machine keeps to start from while the server is down.
@Suite struct SharedCopyTests {
    private func record(_ revision: Int, _ item: String) -> ChangeRecord {
        ChangeRecord(
            revision: revision,
            time: Timestamp(millisecondsSinceEpoch: 5),
            origin: .file,
            operation: revision == 1
                ? .create(id: 1, name: "Groceries", items: [], checked: [], sections: [], quantities: [:])
                : .add(id: 1, item: item, at: 0)
        )
    }

    private func temporaryCopy() throws -> SharedCopy {
        let directory = try ScratchDirectories.make("copy")
        return SharedCopy(path: SharedCopy.path(besideListFile: directory + "/lists.md"))
    }

    private func lists(_ records: [ChangeRecord], digest: String? = nil, revision: Int? = nil) -> SharedCopy.Contents {
        .init(
            server: "listd@kitchen:5432/lists",
            lists: .init(instance: "abc", records: records, fileDigest: digest, fileRevision: revision)
        )
    }

    @Test func aCopyFollowsTheChangesAndReadsBackAsItWasLeft() throws {
        let copy = try temporaryCopy()
        #expect(copy.path.hasSuffix("/.lists.md.listd-shared"))
        #expect(try copy.read() == nil)
        try copy.replace(with: lists([record(1, ""), record(2, "milk")], digest: "d2", revision: 2))
        // A fetch that repeats what the copy holds adds only what follows; a note is kept.
        #expect(copy.follow([record(2, "milk"), record(3, "eggs")], note: .fileShows(digest: "d3", revision: 3)) == nil)
        let again = SharedCopy(path: copy.path)
        #expect(try again.read() == lists([record(1, ""), record(2, "milk"), record(3, "eggs")], digest: "d3", revision: 3))
        // What the reopened copy follows goes after what it read.
        #expect(again.follow([record(4, "tea")]) == nil)
        #expect(try SharedCopy(path: copy.path).read()?.lists.records.map(\.revision) == [1, 2, 3, 4])
    }

    @Test func aChangeThatDoesNotFollowStopsTheCopyWhereItIs() throws {
        let copy = try temporaryCopy()
        try copy.replace(with: lists([record(1, "")]))
        #expect(copy.follow([record(3, "eggs")]) == "it holds up to change #1, and #3 came next")
        #expect(copy.follow([record(2, "milk")]) == nil, "said once; the copy stays as it was")
        #expect(try SharedCopy(path: copy.path).read()?.lists.records.map(\.revision) == [1])
    }

    @Test func aTornLastLineIsLeftOutAndDamageBeforeOthersIsRefused() throws {
        let copy = try temporaryCopy()
        try copy.replace(with: lists([record(1, ""), record(2, "milk")]))
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: copy.path)))
        let torn = Array(whole.dropLast(5))
        #expect(try SharedCopy.contents(of: torn).lists.records.map(\.revision) == [1])
        let lines = whole.split(separator: UInt8(ascii: "\n")).map(Array.init)
        let damaged = lines[0] + [10] + Array("{\"r\":".utf8) + [10] + lines[2] + [10]
        #expect(throws: SharedCopy.Unusable.Why(text: "is damaged on line 2")) { try SharedCopy.contents(of: damaged) }
        let gap = lines[0] + [10] + lines[2] + [10]
        #expect(throws: SharedCopy.Unusable.Why(text: "holds change #2 on line 2, which does not follow the one before")) {
            try SharedCopy.contents(of: gap)
        }
        #expect(throws: SharedCopy.Unusable.Why(text: "does not begin with the copy's header line")) {
            try SharedCopy.contents(of: lines[1] + [10])
        }
    }

    /// A power cut in the middle of a follow's write (the copy is not flushed) leaves a torn last
    /// line; the next start reads the copy without it, and what it follows then must start a
    /// line of its own — appended after the torn bytes, it made a damaged line, and the copy was
    /// refused at the start after.
    @Test func whatFollowsATornLineStartsALineOfItsOwn() throws {
        let copy = try temporaryCopy()
        try copy.replace(with: lists([record(1, "")]))
        #expect(copy.follow([record(2, "milk")]) == nil)
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: copy.path)))
        try Data(whole.dropLast(7)).write(to: URL(fileURLWithPath: copy.path))
        let restarted = SharedCopy(path: copy.path)
        #expect(try restarted.read()?.lists.records.map(\.revision) == [1])
        #expect(restarted.follow([record(2, "milk"), record(3, "eggs")]) == nil)
        #expect(try SharedCopy(path: copy.path).read()?.lists.records.map(\.revision) == [1, 2, 3])
    }
}
