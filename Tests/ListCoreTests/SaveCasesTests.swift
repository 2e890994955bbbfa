import Foundation
import ListFileFormat
import ListModel
import ListRPC
import Testing

@testable import ListCore

/// Issue 59's numbered cases, the core alone, driven as the owner drives it
/// (`SaveFromOlderCopyTests`' helpers): each was found by the property test of the real listd
/// (Tests/SaveModel) or a household trial, and each failed here before its fix.
@Suite struct SaveCasesTests {
    typealias Helpers = SaveFromOlderCopyTests

    /// Case 1: a new list with a section appended to the file is created with its section and
    /// item — it recursed without end (the section's edit broke a rule while its list did not
    /// exist yet, then passed once the list was made, and the save was started again).
    @Test func aNewListWithASectionIsCreatedWithIt() throws {
        var (core, read) = Helpers.core(["rice"], historyLimit: 1_000)
        let (heard, _) = Helpers.save(read + "\n# Party\n## Drinks\n- [ ] beer\n", &core)
        #expect(heard.isEmpty, "\(heard)")
        let party = try core.durable.list(.name("Party"))
        #expect(Array(party.items) == ["beer"])
        #expect(party.sections.map(\.name) == ["Drinks"])
        #expect(party.sectionName(party.section(ofItemAt: 0)) == "Drinks")
    }
}
