/// How a request names a list: by its id or by its name (compared like names are).
public enum ListReference: Hashable, Sendable {
    /// By id: it never changes, also not across a rename.
    case id(ListID)
    /// By name, compared without case and surrounding white space.
    case name(String)
}

extension ListReference {
    /// The id a name of ASCII digits reads as, when no list has that name (`ListBook` tries the
    /// name first): how a person types a list's id where a list's name goes.
    public static func id(inName name: String) -> ListID? {
        let text = ListText.trimmed(name)
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return ListID(text)
    }
}

extension ListReference: CustomStringConvertible {
    public var description: String {
        switch self {
        case .id(let id): "#\(id)"
        case .name(let name): "“\(name)”"
        }
    }
}

extension ListReference: Codable {
    /// A JSON number is an id, a JSON string is a name.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let id = try? container.decode(Int.self) {
            self = .id(id)
        } else if let name = try? container.decode(String.self) {
            self = .name(name)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "a list is named by its id (a number) or its name (a string)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .id(let id): try container.encode(id)
        case .name(let name): try container.encode(name)
        }
    }
}

/// `"Groceries"` names a list by its name, `3` by its id, where a `ListReference` is wanted.
extension ListReference: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral name: String) {
        self = .name(name)
    }

    public init(integerLiteral id: ListID) {
        self = .id(id)
    }
}
