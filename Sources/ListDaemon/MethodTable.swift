import Foundation
import ListModel
import ListRPC
import NIOCore

/// Maps method names to handlers. Each handler decodes its typed params, does its work and
/// encodes its typed result, so the server never looks inside a method.
///
/// A method that neither waits nor blocks (a read, a subscription) is answered right where its
/// line was read, on the connection's event loop. An edit is started there too and answered by
/// whichever thread decides it (its reply is handed to the connection's outbox): no task and no
/// thread hop of its own. A batch that holds an edit runs as a task, its messages in order.
struct MethodTable: Sendable {
    typealias Reply = Result<Data, RPCError>

    enum Handler: Sendable {
        /// Answers at once, on the event loop; may change the session (`hello` names it).
        case immediate(@Sendable (JSONValue?, RPCRequestID?, inout Session) -> Reply)
        /// An edit: started on the event loop, its reply handed to the callback once decided,
        /// on the thread that decided it (no task in between).
        case deciding(@Sendable (JSONValue?, RPCRequestID?, Session, @escaping @Sendable (Reply) -> Void) -> Void)
    }

    private var handlers: [String: Handler] = [:]

    func handler(for method: String) -> Handler? { handlers[method] }

    /// A method answered at once.
    mutating func register<M: RPCMethod>(
        _ method: M.Type,
        _ body: @escaping @Sendable (M.Params, inout Session) throws(RPCError) -> M.Result
    ) {
        handlers[M.name] = .immediate { params, id, session in
            Self.reply(id: id) { () throws(RPCError) in try body(try Self.decode(M.self, params), &session) }
        }
    }

    /// An edit: `body` starts it and hands its result (or why not) to the callback once decided.
    /// Also answerable in a batch (awaited there, like any method that waits).
    mutating func registerDeciding<M: RPCMethod>(
        _ method: M.Type,
        _ body:
            @escaping @Sendable (M.Params, Session, @escaping @Sendable (Result<M.Result, RPCError>) -> Void) -> Void
    ) {
        handlers[M.name] = .deciding { params, id, session, reply in
            let decoded: M.Params
            do throws(RPCError) {
                decoded = try Self.decode(M.self, params)
            } catch {
                return reply(.failure(error))
            }
            body(decoded, session) { outcome in
                switch outcome {
                case .success(let result): reply(Self.reply(id: id) { () throws(RPCError) in result })
                case .failure(let error): reply(.failure(error))
                }
            }
        }
    }

    private static func decode<M: RPCMethod>(_ method: M.Type, _ params: JSONValue?) throws(RPCError) -> M.Params {
        if case .array? = params {
            throw .invalidParams("\(M.name) takes its params by name, as a JSON object.")
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
            return .success(try RPCEncoding.result(id: id, try body()))
        } catch let error as RPCError {
            return .failure(error)
        } catch {
            return .failure(.internalError("\(error)"))
        }
    }
}

extension MethodTable {
    typealias Message = Result<RPCMessage, RPCLine.InvalidMessage>

    /// True when nothing in `line` waits: it can be answered where it was read.
    func answersImmediately(_ line: RPCLine) -> Bool {
        switch line {
        case .empty: true
        case .single(let message): !awaits(message)
        case .batch(let messages): !messages.contains(where: awaits)
        }
    }

    private func awaits(_ message: Message) -> Bool {
        guard case .success(.request(let request)) = message else { return false }
        switch handler(for: request.method) {
        case .deciding?: return true
        case .immediate?, nil: return false
        }
    }

    /// Starts `line` when it is one edit (a `deciding` method): `then` gets its reply line (nil for
    /// a notification) once decided, on the thread that decided it. False, and nothing done, for
    /// any other line (`respond` takes it, as a task).
    func decide(_ line: RPCLine, session: Session, then: @escaping @Sendable (ByteBuffer?) -> Void) -> Bool {
        guard case .single(.success(.request(let request))) = line,
            case .deciding(let handler)? = handler(for: request.method)
        else { return false }
        handler(request.params, request.id, session) { reply in
            then(request.id.map { id in replyLine(Self.encode(reply, id: id)) })
        }
        return true
    }

    /// The reply line to `line`, or nil when none is due; only for a line that
    /// `answersImmediately`.
    func respondNow(to line: RPCLine, session: inout Session) -> ByteBuffer? {
        switch line {
        case .empty:
            return nil
        case .single(let message):
            return respondNow(to: message, session: &session).map(replyLine)
        case .batch(let messages):
            let replies = messages.compactMap { respondNow(to: $0, session: &session) }
            // A batch of notifications gets no reply at all, as JSON-RPC says.
            return replies.isEmpty ? nil : replyLine(RPCEncoding.batch(replies))
        }
    }

    /// The reply line to `line`, or nil when none is due; messages are handled in order.
    func respond(to line: RPCLine, session: inout Session) async -> ByteBuffer? {
        switch line {
        case .empty:
            return nil
        case .single(let message):
            return await respond(to: message, session: &session).map(replyLine)
        case .batch(let messages):
            var replies: [Data] = []
            for message in messages {
                if let reply = await respond(to: message, session: &session) { replies.append(reply) }
            }
            return replies.isEmpty ? nil : replyLine(RPCEncoding.batch(replies))
        }
    }

    private func respond(to message: Message, session: inout Session) async -> Data? {
        guard case .success(.request(let request)) = message else { return respondNow(to: message, session: &session) }
        let reply: Reply
        switch handler(for: request.method) {
        case .deciding(let handler)?:
            let session = session
            reply = await withCheckedContinuation { continuation in
                handler(request.params, request.id, session) { continuation.resume(returning: $0) }
            }
        case .immediate?, nil:
            return respondNow(to: message, session: &session)
        }
        return request.id.map { id in Self.encode(reply, id: id) }
    }

    /// The reply to one message, or nil when none is due (a notification or a response).
    private func respondNow(to message: Message, session: inout Session) -> Data? {
        switch message {
        case .failure(let invalid):
            return RPCEncoding.error(id: invalid.id, invalid.error)
        case .success(.response):
            return nil  // answers were taken as they were read
        case .success(.request(let request)):
            let reply: Reply
            switch handler(for: request.method) {
            case nil: reply = .failure(.methodNotFound(request.method))
            case .immediate(let handler)?: reply = handler(request.params, request.id, &session)
            case .deciding?: reply = .failure(.internalError("\(request.method) cannot be answered at once."))
            }
            return request.id.map { id in Self.encode(reply, id: id) }
        }
    }

    private static func encode(_ reply: Reply, id: RPCRequestID) -> Data {
        switch reply {
        case .success(let data): data
        case .failure(let error): RPCEncoding.error(id: id, error)
        }
    }
}

/// A message plus its terminating newline, ready for the wire.
func replyLine(_ data: Data) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(data.count + 1)
    buffer.writeBytes(data)
    buffer.writeInteger(UInt8(ascii: "\n"))
    return buffer
}

/// A params decoding error as one sentence in plain words, naming the parameter at fault (also
/// as `data.param`) and what it must be: never a Swift type's name.
private func invalidParams(_ method: String, _ error: any Error) -> RPCError {
    guard let error = error as? DecodingError else { return .invalidParams("\(method): \(error)") }
    func path(_ context: DecodingError.Context) -> [String] {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
    }
    func expected(_ param: String) -> String {
        ParamExpectation.table[param] ?? "of another kind (see docs/protocol.md)"
    }
    switch error {
    case .keyNotFound(let key, let context):
        let keys = path(context)
        let param = keys.first ?? key.stringValue
        return .invalidParams("\(method) needs “\(key.stringValue)”: \(expected(key.stringValue)).", param: param)
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        let keys = path(context)
        guard let param = keys.first else {
            return .invalidParams("\(method) takes its params by name, as a JSON object.")
        }
        return .invalidParams("\(param) must be \(expected(param)).", param: param)
    case .dataCorrupted(let context):
        let keys = path(context)
        guard let param = keys.first else { return .invalidParams("\(method): \(context.debugDescription)") }
        return .invalidParams("\(param): \(context.debugDescription).", param: param)
    @unknown default:
        return .invalidParams("\(method): \(error)")
    }
}

/// What each parameter of listd's methods must be, in words.
private enum ParamExpectation {
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
        "since": "an integer (a revision)",
        "instance": "a string (the instance from hello or subscribe)",
        "allow": "true or false",
        "reason": "a string",
    ]
}
