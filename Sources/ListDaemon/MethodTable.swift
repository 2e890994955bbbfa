import Foundation
import ListModel
import ListRPC

/// Maps method names to handlers. Each handler decodes its typed params, does its work and
/// encodes its typed result, so the server loop never looks inside a method.
struct MethodTable: Sendable {
    typealias Handler = @Sendable (JSONValue?, RPCRequestID?, inout Session) async -> Result<Data, RPCError>

    private var handlers: [String: Handler] = [:]

    func handler(for method: String) -> Handler? { handlers[method] }

    mutating func register<M: RPCMethod>(
        _ method: M.Type,
        _ body: @escaping @Sendable (M.Params, inout Session) async throws(RPCError) -> M.Result
    ) {
        handlers[M.name] = { params, id, session in
            let decoded: M.Params
            do {
                if case .array? = params {
                    throw RPCError.invalidParams("\(M.name) takes its params by name, as a JSON object.")
                }
                decoded = try RPCEncoding.decode(M.Params.self, from: params)
            } catch let error as RPCError {
                return .failure(error)
            } catch {
                return .failure(.invalidParams("\(M.name): \(describe(error))"))
            }
            do {
                let result = try await body(decoded, &session)
                return .success(try RPCEncoding.result(id: id, result))
            } catch let error as RPCError {
                return .failure(error)
            } catch {
                return .failure(.internalError("\(error)"))
            }
        }
    }
}

/// A decoding error as one sentence naming the offending field.
private func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
        let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
        return keys.isEmpty ? "params" : "“" + keys.joined(separator: ".") + "”"
    }
    switch error {
    case .keyNotFound(let key, let context):
        let parent = context.codingPath.isEmpty ? "" : " in \(path(context))"
        return "“\(key.stringValue)” is missing\(parent)."
    case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
        return "\(path(context)) must be \(typeName(type))."
    case .dataCorrupted(let context):
        return "\(path(context)): \(context.debugDescription)"
    @unknown default:
        return "\(error)"
    }
}

private func typeName(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Int.Type, is Int64.Type: "an integer"
    case is [String].Type, is [Any].Type: "an array"
    default: "a \(type)"
    }
}
