import ListModel

/// Ticks an item off: it stays on the list, in `checked`.
public enum CheckItem: RPCMethod {
    public static let name = "checkItem"
    public typealias Params = ListItemParams
    public typealias Result = ShoppingList
}

/// Unticks an item: it is needed again.
public enum UncheckItem: RPCMethod {
    public static let name = "uncheckItem"
    public typealias Params = ListItemParams
    public typealias Result = ShoppingList
}

/// Takes every checked item off a list as one change; an item a delegate refuses stays.
public enum ClearChecked: RPCMethod {
    public static let name = "clearChecked"

    public struct Params: Codable, Sendable, Hashable {
        /// The list, by name or id.
        public var list: ListReference
        /// Only if the list is still at this revision (else `conflict`).
        public var ifRevision: Revision?
        /// The ticked items the client showed (its own ticks not yet confirmed among them): only
        /// those are cleared, if still ticked. Absent: every ticked item — or, with `basedOn`,
        /// those ticked at that revision and still.
        public var items: [String]?

        /// Each as the protocol names it (docs/protocol.md).
        public init(list: ListReference, ifRevision: Revision? = nil, items: [String]? = nil) {
            self.list = list
            self.ifRevision = ifRevision
            self.items = items
        }
    }

    /// The list after the clear (its fields, as every edit's reply: a summary on a brief
    /// connection), the items the clear took off, and the checked items that stayed on it
    /// because delegates refused, each with why.
    public struct Result: Sendable, Hashable {
        /// The list after the clear.
        public var list: ShoppingList
        /// The items this clear took off, in list order (none when nothing was checked).
        public var cleared: [String]
        /// The ticked items that stayed because delegates refused, each with why.
        public var kept: [KeptItem]
        /// Written as a brief connection's confirms are: the list's summary only.
        public var brief: Bool

        /// Each as the protocol names it (docs/protocol.md).
        public init(list: ShoppingList, cleared: [String], kept: [KeptItem], brief: Bool = false) {
            self.list = list
            self.cleared = cleared
            self.kept = kept
            self.brief = brief
        }
    }
}

extension ClearChecked.Result: Codable {
    private enum CodingKeys: String, CodingKey {
        case cleared, kept
    }

    public init(from decoder: any Decoder) throws {
        list = try ShoppingList(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cleared = try container.decode([String].self, forKey: .cleared)
        kept = try container.decode([KeptItem].self, forKey: .kept)
        brief = false
    }

    public func encode(to encoder: any Encoder) throws {
        if brief { try ListSummary(list).encode(to: encoder) } else { try list.encode(to: encoder) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cleared, forKey: .cleared)
        try container.encode(kept, forKey: .kept)
    }
}

extension ClearChecked.Result: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        if brief { ListSummary(list).writeJSONFields(into: &bytes) } else { list.writeJSONFields(into: &bytes) }
        bytes.write(#","cleared":["#)
        for (index, item) in cleared.enumerated() {
            if index > 0 { bytes.writeByte(UInt8(ascii: ",")) }
            bytes.writeQuoted(item)
        }
        bytes.write(#"],"kept":"#)
        // Rarely any: what delegates refused, each with their reasons.
        let kept = (try? JSONWriter.encode(kept)) ?? Array("[]".utf8)
        kept.withUnsafeBytes { bytes.writeRaw($0) }
        bytes.writeByte(UInt8(ascii: "}"))
    }
}
