// Which values are written and read by hand, found by their type alone. Asking whether a value
// conforms to a protocol (`as? any JSONDirectlyWritable`) makes the Swift runtime scan every
// conformance record in the binary, the first time for each type: a one-shot client such as
// listctl paid three such scans on every run, about a tenth of its instructions. Comparing the
// value's type with this short table is a pointer comparison.
import ListModel

/// The table of the types `JSONWriter` writes and `JSONValueDecoder` and `JSONTextDecoder` read by
/// hand. A type that conforms but is missing here goes through Codable: the same text, the slow
/// way (JSONReaderWriterTests fail on it: every type they compare must be found here).
enum DirectJSON {
    static let writable: [any JSONDirectlyWritable.Type] = [
        ShoppingList.self, ChangeOrigin.self, ListChange.Step.self, ListChangeParams.self, RPCRequestID.self,
        ListReference.self, Hello.Params.self, GetList.Params.self, AddItemParams.self, ListItemParams.self,
        ListSummary.self, BriefStep.self, BriefChangeParams.self, EditReply.self, ClearChecked.Result.self,
    ]

    static let readable: [any JSONDirectlyReadable.Type] = [ShoppingList.self, ListSummary.self]

    /// The params read by hand from their text (`JSONTextDecoder`: every edit's).
    static let textReadable: [any JSONTextDirectlyReadable.Type] = [AddItemParams.self, ListItemParams.self]

    /// `value` as a type that writes itself, when its type is in the table.
    static func writer<T>(for value: T) -> (any JSONDirectlyWritable)? {
        guard let type = writable.first(where: { ObjectIdentifier($0) == ObjectIdentifier(T.self) }) else { return nil }
        // The type is T itself: this cast compares two type pointers.
        func opened<W: JSONDirectlyWritable>(_: W.Type) -> any JSONDirectlyWritable { value as! W }
        return opened(type)
    }

    /// A `T` read by hand from `value`: nil when T is not in the table, or when `value` is not
    /// exactly as listd writes it (then Codable decides, with its error).
    static func read<T>(_: T.Type, from value: JSONValue) -> T? {
        guard let type = readable.first(where: { ObjectIdentifier($0) == ObjectIdentifier(T.self) }) else { return nil }
        func opened<R: JSONDirectlyReadable>(_: R.Type) -> T? { R(directly: value) as! T? }
        return opened(type)
    }

    /// A `T` read by hand from `text`, as `read(_:from:)` from a value.
    static func read<T>(_: T.Type, fromText text: JSONText) -> T? {
        guard let type = textReadable.first(where: { ObjectIdentifier($0) == ObjectIdentifier(T.self) }) else { return nil }
        func opened<R: JSONTextDirectlyReadable>(_: R.Type) -> T? { R(directly: text) as! T? }
        return opened(type)
    }
}
