// Which changes a subscriber asked to hear (`subscribe {origin, steps}`): automation's "tell me
// when my partner adds something" decided here, not by each client after the fact.
import ListModel

/// A subscription's filter on the changes it is told: by who made them, and by what they did.
/// Announcements that are no change (`didDenyChange`, `didRejectFileEdit`, …) are not filtered.
package struct ChangeFilter: Sendable, Equatable {
    package typealias Origin = OriginFilter

    package var origin: Origin
    /// The subscriber's own author (`ChangeOrigin.isSameAuthor`: the same user and `hello`
    /// name, or the same process for a client that gave none).
    package var author: ChangeOrigin
    /// Only changes with a step of one of these kinds; nil: any change.
    package var steps: Set<ListChange.Step.Kind>?

    package init(origin: Origin = .any, author: ChangeOrigin, steps: Set<ListChange.Step.Kind>? = nil) {
        self.origin = origin
        self.author = author
        self.steps = steps
    }

    /// Whether it lets every change through (the subscriber is served from shared lines).
    package var passesEverything: Bool { origin == .any && steps == nil }

    /// Whether a change made by `origin` with these `steps` is told.
    package func admits(origin changeOrigin: ChangeOrigin, steps changeSteps: [ListChange.Step]) -> Bool {
        switch origin {
        case .any: break
        case .mine: guard author.isSameAuthor(as: changeOrigin) else { return false }
        case .others: guard !author.isSameAuthor(as: changeOrigin) else { return false }
        }
        guard let steps else { return true }
        return changeSteps.contains { steps.contains($0.kind) }
    }

    /// The filter `subscribe` asks for, or the parameter at fault with what it must be.
    package static func asked(origin: String?, steps: [String]?, author: ChangeOrigin) -> Result<ChangeFilter, InvalidFilter> {
        var filter = ChangeFilter(author: author)
        if let origin {
            guard let said = Origin(rawValue: origin) else {
                return .failure(InvalidFilter(param: "origin", message: "“\(origin)” is not an origin; say any, mine or others."))
            }
            filter.origin = said
        }
        if let steps {
            var kinds: Set<ListChange.Step.Kind> = []
            for name in steps {
                guard let kind = ListChange.Step.Kind(rawValue: name) else {
                    let known = ListChange.Step.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                    return .failure(InvalidFilter(param: "steps", message: "“\(name)” is not a step kind; they are \(known)."))
                }
                kinds.insert(kind)
            }
            filter.steps = kinds
        }
        return .success(filter)
    }

    /// A filter param that is not one.
    package struct InvalidFilter: Error, Sendable, Equatable {
        package var param: String
        package var message: String
    }
}
