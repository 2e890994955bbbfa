// What a confirmed edit answers: the list it left — whole, or its summary on a brief connection —
// and, when this request changed nothing now, why: it resent an edit applied before (with that
// change's revision), or what it asks for already held.
import ListModel

/// A confirmed edit's reply: the protocol's `List` (or `ListSummary` on a brief connection), and
/// after its fields `resent` and `appliedRevision` (a resend of an `editId` listd applied before:
/// the revision of the change it made then) or `unchanged` (it changed nothing: its effect held
/// already, e.g. `addItem {ifAbsent: true}` of an item on the list). A fresh change has neither:
/// its revision is the list's.
package struct EditReply: Sendable, Hashable {
    package var list: ShoppingList
    package var brief: Bool
    /// What this request did now.
    package var effect: Effect

    package enum Effect: Sendable, Hashable {
        /// It made a change: the list's revision is its.
        case applied
        /// It changed nothing: what it asked for held already.
        case unchanged
        /// It resent an edit applied before, as the change of this revision; nothing was done now.
        case resent(appliedRevision: Revision)
    }

    package init(list: ShoppingList, brief: Bool, effect: Effect) {
        self.list = list
        self.brief = brief
        self.effect = effect
    }
}

extension EditReply: Encodable {
    private enum CodingKeys: String, CodingKey {
        case resent, appliedRevision, unchanged
    }

    package func encode(to encoder: any Encoder) throws {
        if brief { try ListSummary(list).encode(to: encoder) } else { try list.encode(to: encoder) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch effect {
        case .applied: break
        case .unchanged: try container.encode(true, forKey: .unchanged)
        case .resent(let revision):
            try container.encode(true, forKey: .resent)
            try container.encode(revision, forKey: .appliedRevision)
        }
    }
}

extension EditReply: JSONDirectlyWritable {
    func writeJSON(into bytes: inout [UInt8]) {
        // The list's object without its closing brace, then what this request did.
        if brief { ListSummary(list).writeJSONFields(into: &bytes) } else { list.writeJSONFields(into: &bytes) }
        switch effect {
        case .applied: break
        case .unchanged: bytes.write(#","unchanged":true"#)
        case .resent(let revision):
            bytes.write(#","resent":true,"appliedRevision":"#)
            bytes.writeDecimal(revision)
        }
        bytes.writeByte(UInt8(ascii: "}"))
    }
}

/// What a client reads of an edit's reply besides the list: whether the request changed
/// anything now (see `EditReply`).
public struct EditEffect: Decodable, Sendable, Hashable {
    /// The request resent an edit applied before; nothing was done now.
    public var resent: Bool
    /// For a resend: the revision of the change the edit made when first applied.
    public var appliedRevision: Revision?
    /// The request changed nothing: what it asked for held already.
    public var unchanged: Bool

    private enum CodingKeys: String, CodingKey {
        case resent, appliedRevision, unchanged
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resent = try container.decodeIfPresent(Bool.self, forKey: .resent) ?? false
        appliedRevision = try container.decodeIfPresent(Revision.self, forKey: .appliedRevision)
        unchanged = try container.decodeIfPresent(Bool.self, forKey: .unchanged) ?? false
    }
}
