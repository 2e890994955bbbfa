// A time limit for the tests' waits: every wait gives up, with a message, instead of hanging.
import Testing

/// `body`'s result; fails with `what` when it takes longer than `seconds`.
func within<T: Sendable>(
    _ seconds: Double,
    _ what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            Issue.record("waited \(seconds) s for \(what)")
            throw CancellationError()
        }
        return result
    }
}
