// What a change did, as a person reads it: each step of a small change; past a few, a count of
// each kind with the first items named, so that undoing a 2,000-item clear is one short line.
import ListModel

enum StepsText {
    /// Steps told one by one up to this many.
    static let named = 6

    /// `added “milk”, checked “eggs”`, or `removed 2,000 items (“milk”, “eggs”, “bread” and 1,997
    /// more)`; every step with `verbose`.
    static func text(_ steps: [ListChange.Step], verbose: Bool = false) -> String {
        guard !verbose, steps.count > named else { return steps.map(\.description).joined(separator: ", ") }
        var kinds: [(verb: String, noun: String, steps: [ListChange.Step], names: [String])] = []
        for step in steps {
            let (verb, noun, name) = kind(of: step)
            if let index = kinds.firstIndex(where: { $0.verb == verb && $0.noun == noun }) {
                kinds[index].steps.append(step)
                kinds[index].names.append(name)
            } else {
                kinds.append((verb, noun, [step], [name]))
            }
        }
        return kinds.map { kind in
            let count = kind.names.count
            guard count > 1 else { return kind.steps[0].description }
            let shown = kind.names.prefix(3).joined(separator: ", ")
            let more = count > 3 ? " and \(thousands(count - 3)) more" : ""
            return "\(kind.verb) \(thousands(count)) \(kind.noun)s (\(shown)\(more))"
        }.joined(separator: ", ")
    }

    /// How a step is counted among others of its kind (`removed`, `item`) and named in the count.
    private static func kind(of step: ListChange.Step) -> (verb: String, noun: String, name: String) {
        switch step {
        case .add(let item, _, _): ("added", "item", "“\(item)”")
        case .remove(let item): ("removed", "item", "“\(item)”")
        case .replace(let item, let with): ("replaced", "item", "“\(item)” with “\(with)”")
        case .rename(let from, _): ("renamed", "name", "from \(from)")
        case .move(let item, _, _): ("moved", "item", "“\(item)”")
        case .check(let item): ("checked", "item", "“\(item)”")
        case .uncheck(let item): ("unchecked", "item", "“\(item)”")
        case .addSection(let section): ("added", "section", section)
        case .renameSection(let from, let to): ("renamed", "section", "\(from) to \(to)")
        case .removeSection(let section): ("removed", "section", section)
        case .quantity(let item, _): ("set the amount of", "item", "“\(item)”")
        }
    }

    /// `2,000`.
    static func thousands(_ number: Int) -> String {
        let digits = String(number)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return grouped
    }
}
