// The errors every listd client reports, whatever its I/O: a deny, a protocol error, no listd.
import ListModel
import ListRPC

/// listd's refusal of an edit: why, as a value to switch over, and a sentence for a person.
///
/// ```swift
/// do { _ = try await client.addItem("milk", to: "Groceries") }
/// catch .denied(let denial) where denial.reason == .itemExists { /* it is there */ }
/// ```
public struct ListDenial: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why (`data.reason`): `.itemExists`, `.listNotFound`, `.conflict`, … (docs/protocol.md,
    /// *Denials*).
    public var reason: DenialReason
    /// One sentence for a person (“milk” is already on Groceries.).
    public var message: String
    /// The error's code (1001 for `itemExists`, …).
    public var code: Int
    /// What else listd said: for `conflict`, the current `revision`; for `deniedByDelegate`, the
    /// `denials` and `timedOut`; see the contract's errors (docs/listd.openrpc.json).
    public var data: JSONValue?

    public var description: String { message }

    /// For `.conflict`, `.changeNotFound`, `.historyCompacted`, `.instanceChanged`: listd's
    /// revision now (`data.revision`), to fetch or retry from.
    public var revision: Revision? { data?["revision"]?.integerValue.map(Revision.init) }

    /// For `.itemExists`: the item as the list has it (`data.item`).
    public var existingItem: String? { data?["item"]?.stringValue }

    /// For `.deniedByDelegate`: every delegate that refused, with its reason (`data.denials`).
    public var delegateDenials: [DelegateDenial] {
        guard case .array(let denials)? = data?["denials"] else { return [] }
        return denials.compactMap { denial in
            guard let delegate = denial["delegate"]?.stringValue, let reason = denial["reason"]?.stringValue else { return nil }
            return DelegateDenial(delegate: delegate, reason: reason)
        }
    }

    /// For `.deniedByDelegate`: the delegates that did not answer in time (`data.timedOut`).
    public var timedOutDelegates: [String] {
        guard case .array(let names)? = data?["timedOut"] else { return [] }
        return names.compactMap(\.stringValue)
    }

    package init?(_ error: RPCError) {
        guard error.isDenial, let reason = error.reason else { return nil }
        self.reason = DenialReason(rawValue: reason)
        self.message = error.message
        self.code = error.code
        self.data = error.data
    }
}

/// Why a call did not return a result.
public enum ListClientError: Error, Sendable, CustomStringConvertible {
    /// listd denied the request.
    case denied(ListDenial)
    /// listd answered with a protocol error (bad params, unknown method, …).
    case protocolError(RPCError)
    /// No listd answers at the socket path.
    case cannotConnect(socketPath: String, detail: String)
    /// The connection ended before the reply arrived.
    case connectionClosed
    /// listd's reply could not be read as the expected type.
    case invalidReply(String)

    public var description: String {
        switch self {
        case .denied(let denial): denial.message
        case .protocolError(let error): error.message
        case .cannotConnect(let path, let detail): "cannot reach listd at \(path): \(detail)"
        case .connectionClosed: "the connection to listd closed before it replied"
        case .invalidReply(let detail): "listd sent a reply that could not be read: \(detail)"
        }
    }

    package init(_ error: RPCError) {
        if let denial = ListDenial(error) {
            self = .denied(denial)
        } else {
            self = .protocolError(error)
        }
    }
}

/// A reply's result as `T`, or the error it carries as a `ListClientError`.
package func decodeReply<T: Decodable>(
    _ type: T.Type,
    _ reply: Result<JSONValue, RPCError>
) throws(ListClientError) -> T {
    switch reply {
    case .failure(let error):
        throw ListClientError(error)
    case .success(let value):
        do {
            return try RPCEncoding.decode(T.self, from: value)
        } catch {
            throw .invalidReply("\(error)")
        }
    }
}
