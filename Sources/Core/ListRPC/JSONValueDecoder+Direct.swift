// The replies a one-shot client reads most (a list, a list's summary), read from their JSON value
// past Codable's generic containers: a short-lived process pays for every generic type it touches
// the first time, more than for its reply. A reader takes only what is exactly as listd writes it;
// anything else (a missing field, a fraction for an integer) is left to `JSONValueDecoder`, which
// decides it as ever, with its error. JSONValueDecoderTests compare the two.
import ListModel

/// A type read from a `JSONValue` by hand; nil leaves the value to `Decodable`.
protocol JSONDirectlyReadable: SendableMetatype {
    init?(directly value: JSONValue)
}

extension JSONValue {
    fileprivate var int: Int? {
        if case .integer(let value) = self { Int(exactly: value) } else { nil }
    }

    fileprivate var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    fileprivate var strings: [String]? {
        guard case .array(let values) = self else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
            guard case .string(let string) = value else { return nil }
            strings.append(string)
        }
        return strings
    }

    fileprivate var timestamp: Timestamp? {
        string.flatMap(Timestamp.init(rfc3339:))
    }
}

extension ShoppingList: JSONDirectlyReadable {
    init?(directly value: JSONValue) {
        guard case .object(let fields) = value,
            let id = fields["id"]?.int,
            let name = fields["name"]?.string,
            let edited = fields["edited"]?.timestamp,
            let revision = fields["revision"]?.int,
            let items = fields["items"]?.strings
        else { return nil }
        self.init(id: id, name: name, edited: edited, revision: revision, items: items)
        // What `init(from:)` makes of the rest: checks of items on the list, sections holding the
        // list's last items in order, amounts of items on the list.
        switch fields["checked"] {
        case nil, .null?: break
        case let checked?:
            guard let checked = checked.strings else { return nil }
            self.checked = .init(checked).intersection(items)
        }
        switch fields["sections"] {
        case nil, .null?: break
        case .array(let entries)?:
            var sectioned: [String] = []
            for entry in entries {
                guard case .object(let section) = entry, let name = section["name"]?.string,
                    let sectionItems = section["items"]?.strings
                else { return nil }
                sections.append(ListSection(name, count: sectionItems.count))
                sectioned += sectionItems
            }
            guard sectioned.count <= items.count, items.suffix(sectioned.count).elementsEqual(sectioned) else { return nil }
        default: return nil
        }
        switch fields["quantities"] {
        case nil, .null?: break
        case .object(let amounts)?:
            guard !amounts.isEmpty else { break }
            let listed = Set(items)
            for (item, amount) in amounts {
                guard let amount = amount.string else { return nil }
                if listed.contains(item) { quantities[item] = amount }
            }
        default: return nil
        }
    }
}

extension ListSummary: JSONDirectlyReadable {
    init?(directly value: JSONValue) {
        guard case .object(let fields) = value,
            let id = fields["id"]?.int,
            let name = fields["name"]?.string,
            let revision = fields["revision"]?.int,
            let edited = fields["edited"]?.timestamp
        else { return nil }
        self.init(id: id, name: name, revision: revision, edited: edited)
    }
}
