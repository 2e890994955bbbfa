// What any edit may say besides its own params: the client's id for it and the revision it was
// made on. One type, read by listd and written by the clients, with its bounds in one place.
import ListModel

/// `editId` (the client's own id for an edit: sent again after a lost reply, it is applied once)
/// and `basedOn` (the revision its lists had when it was made: an offline queue's edit is merged
/// as a save of an old copy is). See docs/protocol.md.
public struct EditProvenance: Sendable, Hashable {
    /// The client's own id for the edit (a UUID, say): sent again, it is applied once.
    public var editId: String?
    /// The revision the lists had when the edit was made (an offline queue's).
    public var basedOn: Revision?

    /// The lengths an `editId` may have, in UTF-8 bytes.
    public static let editIdBytes = 1...200
    /// How each is described when it is wrong.
    public static let editIdExpected = "a string of 1 to 200 bytes (the client's own id for the edit)"
    /// How a wrong `basedOn` is described.
    public static let basedOnExpected = "an integer (the revision the edit was made on)"

    /// What an edit says besides its params.
    public init(editId: String? = nil, basedOn: Revision? = nil) {
        self.editId = editId
        self.basedOn = basedOn
    }

    /// Read from an edit's params (absent, or `null`, is none).
    package init(params: JSONText?) throws(RPCError) {
        // One look at the members (the last of a repeated key counts); most edits say neither.
        var said: (editId: JSONText?, basedOn: JSONText?) = (nil, nil)
        for (key, value) in params?.members ?? [] {
            if key == "editId" { said.editId = value } else if key == "basedOn" { said.basedOn = value }
        }
        switch said.editId.map({ $0.scalar ?? .array([]) }) {
        case nil, .null?: break
        case .string(let id)? where Self.editIdBytes.contains(id.utf8.count): editId = id
        default: throw .invalidParams("editId must be \(Self.editIdExpected).", param: "editId")
        }
        switch said.basedOn.map({ $0.scalar ?? .array([]) }) {
        case nil, .null?: break
        case .integer(let revision)? where revision >= 0: basedOn = Revision(revision)
        default: throw .invalidParams("basedOn must be \(Self.basedOnExpected).", param: "basedOn")
        }
    }

    /// An edit's `params` with these beside them, as one JSON object.
    package func params(_ params: some Encodable) throws -> JSONValue {
        guard case .object(let fields) = try RPCEncoding.value(fromJSON: JSONWriter.encode(params)) else {
            throw RPCError.invalidParams("an edit's params must be an object", param: "params")
        }
        return .object(adding(to: fields))
    }

    /// `fields` (an edit's params) with these beside them.
    package func adding(to fields: [String: JSONValue]) -> [String: JSONValue] {
        var fields = fields
        if let editId { fields["editId"] = .string(editId) }
        if let basedOn { fields["basedOn"] = .integer(Int64(basedOn)) }
        return fields
    }
}
