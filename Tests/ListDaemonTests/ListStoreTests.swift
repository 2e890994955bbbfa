import Foundation
@testable import ListDaemon
import ListModel
import Logging
import Testing

@Suite struct ListStoreTests {
    /// A store on a fresh file, its loop running for the duration of `body`.
    private func withStore(_ body: (ListStore) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "store-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try ListStore(filePath: directory + "/lists.md", logger: Logger(label: "test"))
        let loop = Task { try await store.run() }
        defer { loop.cancel() }
        try await body(store)
    }

    private static let person = ChangeOrigin.client(pid: 1, uid: 1, name: "test")

    @Test func anEditDelegatesWereNotAskedAboutIsNeverAppliedAsAChange() async throws {
        try await withStore { store in
            // Sent unvetted because "Groceries" did not exist when it was looked at; it does now.
            _ = try await store.edit(.createList(name: "Groceries", items: []), origin: Self.person).get()
            let outcome = await store.edit(.addItem("milk", to: .name("Groceries"), at: nil), origin: Self.person, vetted: false)
            guard case .failure(.needsVetting) = outcome else {
                Issue.record("applied without being vetted: \(outcome)")
                return
            }
            #expect(try store.list(.name("Groceries")).items == [])

            // One that is denied, or changes nothing, goes through as usual.
            let duplicate = await store.edit(.createList(name: "groceries", items: []), origin: Self.person, vetted: false)
            guard case .failure(.denied(.listExists)) = duplicate else {
                Issue.record("expected listExists: \(duplicate)")
                return
            }
            let unchanged = await store.edit(.renameList(.name("Groceries"), to: "Groceries"), origin: Self.person, vetted: false)
            #expect((try? unchanged.get())?.name == "Groceries")
        }
    }
}
