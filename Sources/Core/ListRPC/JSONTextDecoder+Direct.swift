// The params most edits bring (`addItem`, and `removeItem`/`checkItem`/`uncheckItem`), read from
// their text by hand, past Codable's generic containers. A reader takes only what is exactly as
// its type wants it; anything else (a wrong type, a missing field) is left to `JSONTextDecoder`,
// which decides it as ever, with its error. FuzzChecks and JSONTextDecoderTests hold the two to
// the same answers.
import ListModel

/// A type read from JSON text by hand; nil leaves the text to `Decodable`.
protocol JSONTextDirectlyReadable: SendableMetatype {
    init?(directly text: JSONText)
}

extension JSONText {
    /// Calls `body` with each member's key and its value when that is not a container (nil
    /// then), in the order written (so the last of a repeated key counts); false when the text is
    /// not an object or `body` refused a member.
    fileprivate func readMembers(_ body: (String, JSONValue?) -> Bool) -> Bool {
        guard isObject else { return false }
        return members.allSatisfy { body($0.key, $0.value.scalar) }
    }
}

extension ListReference {
    /// A list named as `ListReference.init(from:)` takes it: an integer is an id, a string a name.
    fileprivate init?(scalar: JSONValue?) {
        switch scalar {
        case .integer(let id)?: self = .id(Int(id))
        case .string(let name)?: self = .name(name)
        default: return nil
        }
    }
}

/// An optional field's value: `.some(nil)` for null, nil when it is of another kind.
private func optionalString(_ scalar: JSONValue?) -> String?? {
    switch scalar {
    case .null?: .some(nil)
    case .string(let string)?: .some(string)
    default: nil
    }
}

private func optionalInteger(_ scalar: JSONValue?) -> Int?? {
    switch scalar {
    case .null?: .some(nil)
    case .integer(let integer)?: .some(Int(integer))
    default: nil
    }
}

/// What every item edit names — `list`, `item`, `ifRevision` — read from `text`, with `other`
/// taking any other member (false: not as its type wants it); nil when one is missing or not as
/// wanted.
private func itemEdit(
    _ text: JSONText,
    other: (String, JSONValue?) -> Bool = { _, _ in true }
) -> (list: ListReference, item: String, ifRevision: Revision?)? {
    var list: ListReference?
    var item: String?
    var ifRevision: Revision?
    let read = text.readMembers { key, scalar in
        switch key {
        case "list": list = ListReference(scalar: scalar); return list != nil
        case "item":
            guard case .string(let string)? = scalar else { return false }
            item = string
        case "ifRevision":
            guard let said = optionalInteger(scalar) else { return false }
            ifRevision = said
        default: return other(key, scalar)
        }
        return true
    }
    guard read, let list, let item else { return nil }
    return (list, item, ifRevision)
}

extension AddItemParams: JSONTextDirectlyReadable {
    init?(directly text: JSONText) {
        var (section, quantity): (String?, String?) = (nil, nil)
        var ifAbsent: Bool?
        let named = itemEdit(text) { key, scalar in
            switch key {
            case "section":
                guard let said = optionalString(scalar) else { return false }
                section = said
            case "quantity":
                guard let said = optionalString(scalar) else { return false }
                quantity = said
            case "ifAbsent":
                switch scalar {
                case .null?: ifAbsent = nil
                case .bool(let said)?: ifAbsent = said
                default: return false
                }
            default: break
            }
            return true
        }
        guard let named else { return nil }
        self.init(list: named.list, item: named.item, section: section, quantity: quantity, ifRevision: named.ifRevision, ifAbsent: ifAbsent)
    }
}

extension ListItemParams: JSONTextDirectlyReadable {
    init?(directly text: JSONText) {
        guard let named = itemEdit(text) else { return nil }
        self.init(list: named.list, item: named.item, ifRevision: named.ifRevision)
    }
}
