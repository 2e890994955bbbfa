import ListCore
import ListModel
import ListRPC
import ListRPCTransport
import NIOCore

/// Maps method names to handlers. Each handler decodes its typed params, does its work and
/// encodes its typed result, so the server never looks inside a method.
///
/// Every request takes one path: started, then completed with a callback. A read is answered
/// where its line was read, from the core's committed lists (every connection is served on the
/// owner's loop, so a client that has its confirm reads its change); everything else
/// (edits, subscriptions, delegates, `hello`) runs on the owner's loop and hands its reply to the
/// callback there: at once, or once an edit is decided. A batch is handled the same way, its
/// messages in order, and answered by one line.
struct MethodTable: Sendable {
    /// A reply written where it is sent from, without its newline (a batch joins them first).
    typealias Reply = Result<ByteBuffer, RPCError>
    typealias Message = Result<RPCMessage, RPCLine.InvalidMessage>

    enum Handler: Sendable {
        /// Answered where the line is read, from the core's committed lists.
        case read(@Sendable (JSONText?, RPCRequestID?) -> Reply)
        /// Runs on the owner's loop; its reply goes to the callback (on that loop) once due.
        case owned(@Sendable (JSONText?, RPCRequestID?, Session, @escaping (Reply) -> Void) -> Void)
    }

    private var handlers: [String: Handler] = [:]

    func handler(for method: String) -> Handler? { handlers[method] }

    /// A read, answered where the line is read.
    mutating func registerRead<M: RPCMethod>(
        _ method: M.Type,
        _ body: @escaping @Sendable (M.Params) throws(RPCError) -> M.Result
    ) {
        handlers[M.name] = .read { params, id in
            Self.reply(id: id) { () throws(RPCError) in try body(try Self.decode(M.self, params)) }
        }
    }

    /// A method answered at once, on the owner's loop, for a client that holds `rights` (every
    /// such method names what it needs: none for one that changes nothing, so a new method
    /// cannot forget; edits are held to the client's rights where they are decided).
    mutating func register<M: RPCMethod>(
        _ method: M.Type,
        requires rights: ClientRights,
        _ body: @escaping @Sendable (M.Params, Session) throws(RPCError) -> M.Result
    ) {
        handlers[M.name] = .owned { params, id, session, reply in
            guard session.rights.contains(rights) else {
                return reply(.failure(RPCError(ListError.notPermitted(needed: rights, held: session.rights))))
            }
            reply(Self.reply(id: id) { () throws(RPCError) in try body(try Self.decode(M.self, params), session) })
        }
    }

    /// An edit: `body` starts it on the owner's loop, for the session, with what the edit says
    /// besides its params (`editId`, `basedOn`), and hands its result (or why not) to the
    /// callback once decided.
    mutating func registerDeciding<M: RPCMethod>(
        _ method: M.Type,
        _ body: @escaping @Sendable (M.Params, Session, EditProvenance, @escaping (Result<M.Result, RPCError>) -> Void) -> Void
    ) {
        registerDecided(method, replying: M.Result.self, body)
    }

    /// An edit whose reply is the list it left (`EditReply`: whole, or its summary on a brief
    /// connection, with what the request did now), started as `registerDeciding`'s are.
    mutating func registerEdit<M: RPCMethod>(
        _ method: M.Type,
        _ body: @escaping @Sendable (M.Params, Session, EditProvenance, @escaping (Result<EditReply, RPCError>) -> Void) -> Void
    ) where M.Result == ShoppingList {
        registerDecided(method, replying: EditReply.self, body)
    }

    /// An edit of `method` whose reply is an `R`.
    private mutating func registerDecided<M: RPCMethod, R: Encodable & Sendable>(
        _ method: M.Type,
        replying _: R.Type,
        _ body: @escaping @Sendable (M.Params, Session, EditProvenance, @escaping (Result<R, RPCError>) -> Void) -> Void
    ) {
        handlers[M.name] = .owned { params, id, session, reply in
            let decoded: M.Params
            let provenance: EditProvenance
            do throws(RPCError) {
                decoded = try Self.decode(M.self, params)
                provenance = try EditProvenance(params: params)
            } catch {
                return reply(.failure(error))
            }
            body(decoded, session, provenance) { outcome in
                reply(outcome.flatMap { result in Self.reply(id: id) { () throws(RPCError) in result } })
            }
        }
    }

    private static func decode<M: RPCMethod>(_ method: M.Type, _ params: JSONText?) throws(RPCError) -> M.Params {
        if params?.isArray == true {
            throw .invalidParams("\(M.name) takes its params by name, as a JSON object.", param: "params")
        }
        do {
            return try RPCEncoding.decode(M.Params.self, from: params)
        } catch let error as RPCError {
            throw error
        } catch {
            throw invalidParams(M.name, error)
        }
    }

    private static func reply<R: Encodable>(id: RPCRequestID?, _ body: () throws(RPCError) -> R) -> Reply {
        do {
            return .success(try RPCOutgoing.result(id: id, try body()))
        } catch let error as RPCError {
            return .failure(error)
        } catch {
            return .failure(.internalError("\(error)"))
        }
    }
}

extension MethodTable {
    /// True when nothing in `line` needs the owner: it is answered where it was read.
    func isAnsweredWhereRead(_ line: RPCLine) -> Bool {
        switch line {
        case .empty: true
        case .single(let message): !needsOwner(message)
        case .batch(let messages): !messages.contains(where: needsOwner)
        }
    }

    private func needsOwner(_ message: Message) -> Bool {
        guard case .success(.request(let request)) = message else { return false }
        if case .owned? = handler(for: request.method) { return true }
        return false
    }

    /// Answers `line`, its messages in order; `then` gets the reply line (nil when none is due:
    /// notifications, responses), at once for reads, else on the owner's loop once every message
    /// is answered. Call on the owner's loop unless `isAnsweredWhereRead(line)`.
    func respond(to line: RPCLine, session: Session, then: @escaping (ByteBuffer?) -> Void) {
        switch line {
        case .empty:
            then(nil)
        case .single(let message):
            respond(to: message, session: session, then: then)
        case .batch(let messages):
            respond(to: messages[...], session: session, answered: []) { replies in
                // A batch of notifications gets no reply at all, as JSON-RPC says.
                then(replies.isEmpty ? nil : RPCOutgoing.batch(replies))
            }
        }
    }

    private func respond(
        to messages: ArraySlice<Message>,
        session: Session,
        answered: [ByteBuffer],
        then: @escaping ([ByteBuffer]) -> Void
    ) {
        guard let first = messages.first else { return then(answered) }
        respond(to: first, session: session) { reply in
            respond(
                to: messages.dropFirst(),
                session: session,
                answered: answered + (reply.map { [$0] } ?? []),
                then: then
            )
        }
    }

    /// The reply to one message (nil when none is due: a notification or a response).
    private func respond(to message: Message, session: Session, then: @escaping (ByteBuffer?) -> Void) {
        switch message {
        case .failure(let invalid):
            then(RPCOutgoing.error(id: invalid.id, invalid.error))
        case .success(.response):
            then(nil)  // answers were taken as they were read
        case .success(.request(let request)):
            let reply: (Reply) -> Void = { reply in then(request.id.map { id in Self.encode(reply, id: id) }) }
            switch handler(for: request.method) {
            case nil: reply(.failure(.methodNotFound(request.method)))
            case .read(let handler)?: reply(handler(request.params, request.id))
            case .owned(let handler)?: handler(request.params, request.id, session, reply)
            }
        }
    }

    private static func encode(_ reply: Reply, id: RPCRequestID) -> ByteBuffer {
        switch reply {
        case .success(let line): line
        case .failure(let error): RPCOutgoing.error(id: id, error)
        }
    }
}

/// A params decoding error as one sentence in plain words, naming the parameter at fault (also
/// as `data.param`) and what it must be: never a Swift type's name.
private func invalidParams(_ method: String, _ error: any Error) -> RPCError {
    guard let error = error as? DecodingError else { return .invalidParams("\(method): \(error)", param: "params") }
    func path(_ context: DecodingError.Context) -> [String] {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
    }
    func expected(_ param: String) -> String {
        ParamExpectation.table[param] ?? "as docs/protocol.md says"
    }
    switch error {
    case .keyNotFound(let key, let context):
        let keys = path(context)
        let param = keys.first ?? key.stringValue
        return .invalidParams("\(method) needs “\(key.stringValue)”: \(expected(key.stringValue)).", param: param)
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        let keys = path(context)
        guard let param = keys.first else {
            return .invalidParams("\(method) takes its params by name, as a JSON object.", param: "params")
        }
        return .invalidParams("\(param) must be \(expected(param)).", param: param)
    case .dataCorrupted(let context):
        let keys = path(context)
        guard let param = keys.first else { return .invalidParams("\(method): \(context.debugDescription)", param: "params") }
        return .invalidParams("\(param): \(context.debugDescription).", param: param)
    @unknown default:
        return .invalidParams("\(method): \(error)", param: "params")
    }
}

/// What each parameter of listd's methods must be, in words.
enum ParamExpectation {
    static let table: [String: String] = [
        "list": "a list's name (a string) or id (an integer)",
        "lists": "an array of list names or ids",
        "name": "a string",
        "item": "a string",
        "with": "a string",
        "items": "an array of strings",
        "events": "an array of notification names (\(ListEventName.allCases.map(\.rawValue).joined(separator: ", ")))",
        "questions": "an array of question names (\(DelegateQuestion.allCases.map(\.rawValue).joined(separator: ", ")))",
        "timeoutMs": "an integer (milliseconds)",
        "onTimeout": "“allow” or “deny”",
        "ifRevision": "an integer (a revision)",
        "editId": EditProvenance.editIdExpected,
        "basedOn": EditProvenance.basedOnExpected,
        "since": "an integer (a revision)",
        "instance": "a string (the instance from hello or subscribe)",
        "allow": "true or false",
        "reason": "a string",
        "section": "a string (a section's name; \"\" for none)",
        "before": "a string (an item's or a section's name)",
        "to": "a string (the new name)",
        "quantity": "a string (an amount: “2”, “500 g”), or null for none",
        "quantities": "an object of amounts by item ({\"milk\": \"2 l\"})",
        "revision": "an integer (a revision)",
        "mine": "true or false",
        "limit": "an integer (how many at most)",
        "brief": "true or false",
        "rights": "an array of right names (\(ClientRights.names.map(\.name).joined(separator: ", ")))",
        "ifAbsent": "true or false",
        "origin": "“mine” or “others”",
        "steps": "an array of step kinds",
    ]
}
