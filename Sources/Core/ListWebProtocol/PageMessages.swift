// What a page may send listd through listd-web: one request at a time, of the methods the page
// uses (reading, subscribing, editing items, undo). Everything else — naming the connection,
// becoming a delegate, deleting lists — is refused here, before listd sees it. What a person
// typed as an item is read as listctl and the list file read it (`ItemAmount`).
import ListModel
import ListRPC

package enum PageMessages {
    /// The methods a page may call. `hello` is listd-web's own (it names the device).
    package static let allowedMethods: Set<String> = [
        GetLists.name, GetList.name, GetHistory.name, Subscribe.name, Unsubscribe.name,
        AddItem.name, RemoveItem.name, ReplaceItem.name, CheckItem.name, UncheckItem.name, SetQuantity.name, MoveItem.name,
        ClearChecked.name, Undo.name,
    ]

    package enum Verdict: Equatable, Sendable {
        /// Send this line (ending in `\n`) to listd as it is; `id` is the request's.
        case forward([UInt8], id: RPCRequestID)
        /// Reply this line to the page; listd is not asked.
        case refuse([UInt8])
    }

    /// The id of the reply a line from listd starts with (listd writes `{"jsonrpc":"2.0","id":`
    /// first), read from its first bytes alone; nil for a notification or anything else. A reply
    /// too long to relay is refused for that id.
    package static func replyID(startingLine bytes: some Collection<UInt8>) -> RPCRequestID? {
        let opening = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
        guard bytes.starts(with: opening) else { return nil }
        let rest = Array(bytes.dropFirst(opening.count))
        // The id's token: a string to its closing quote (escapes skipped), else a number.
        var end = 0
        if rest.first == UInt8(ascii: "\"") {
            end = 1
            while end < rest.count, rest[end] != UInt8(ascii: "\"") {
                end += rest[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard end < rest.count else { return nil }
            end += 1
        } else {
            while end < rest.count, rest[end] == UInt8(ascii: "-") || (48...57).contains(rest[end]) { end += 1 }
        }
        guard end > 0, end < rest.count, rest[end] == UInt8(ascii: ",") else { return nil }
        // Read by the protocol's own parser, as the reply it starts.
        let reply = opening + rest[..<end] + Array(#","result":null}"#.utf8)
        guard case .single(.success(.response(let response))) = RPCLine.parse(reply) else { return nil }
        return response.id
    }

    /// Vets one WebSocket text message from a page. The line sent on is the request written
    /// anew, so it is one line whatever white space the page used.
    package static func vet(_ text: String, limits: RPCLine.Limits = .init(maximumDepth: 16, maximumBatch: 1)) -> Verdict {
        switch RPCLine.parse(Array(text.utf8), limits: limits) {
        case .empty:
            return .refuse(RPCEncoding.errorBytes(id: nil, .invalidRequest("an empty message.")))
        case .batch:
            return .refuse(RPCEncoding.errorBytes(id: nil, .invalidRequest("send one request at a time.")))
        case .single(.failure(let invalid)):
            return .refuse(RPCEncoding.errorBytes(id: invalid.id, invalid.error))
        case .single(.success(.response)):
            return .refuse(RPCEncoding.errorBytes(id: nil, .invalidRequest("a page sends requests only.")))
        case .single(.success(.request(let request))):
            guard let id = request.id else {
                return .refuse(RPCEncoding.errorBytes(id: nil, .invalidRequest("every request needs an id.")))
            }
            guard allowedMethods.contains(request.method) else {
                return .refuse(
                    RPCEncoding.errorBytes(
                        id: id,
                        .methodNotFound(request.method, "is not available to a page")
                    )
                )
            }
            let params = typedAmountRead(request.method, request.params?.value ?? .object([:]))
            guard let line = try? RPCEncoding.requestBytes(id: id, method: request.method, params: params) else {
                return .refuse(RPCEncoding.errorBytes(id: id, .invalidParams("the params could not be written again.")))
            }
            return .forward(line + [UInt8(ascii: "\n")], id: id)
        }
    }

    /// An item added as typed on the page, `eggs (12)`, is eggs with the amount 12 — one reading
    /// everywhere (`ItemAmount.split`, as `listctl add` and the list file read it). An amount
    /// the page gave apart (its Amount field) leaves the text as typed, as `listctl add --amount`.
    static func typedAmountRead(_ method: String, _ params: JSONValue) -> JSONValue {
        guard method == AddItem.name, case .object(var fields) = params, case .string(let typed)? = fields["item"],
            fields["quantity"] == nil || fields["quantity"] == .null
        else {
            return params
        }
        let (text, quantity) = ItemAmount.split(typed)
        fields["item"] = .string(text)
        if let quantity { fields["quantity"] = .string(quantity) }
        return .object(fields)
    }
}
