/// A JSON-RPC 2.0 error object: the standard protocol errors and listd's denials alike.
public struct RPCError: Error, Hashable, Sendable, Codable {
    /// The error code: JSON-RPC's (-32700 … -32000) or a denial's (1001 …).
    public var code: Int
    /// One sentence for a person.
    public var message: String
    /// What else it says: a denial's `reason`, an invalid param's `param`, … (docs/listd.openrpc.json).
    public var data: JSONValue?

    /// An error object.
    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// `data.reason`, the stable word of a denial.
    public var reason: String? { data?["reason"]?.stringValue }

    /// JSON-RPC 2.0's own error codes, written here only: listd, listd-web's control socket and
    /// the page's vetting answer with them, and a delegate's answer is read by them.
    package enum Code {
        package static let parseError = -32700
        package static let invalidRequest = -32600
        package static let methodNotFound = -32601
        package static let invalidParams = -32602
        package static let internalError = -32603
    }

    package static func parseError(_ detail: String) -> RPCError {
        RPCError(code: Code.parseError, message: "Parse error: \(detail)")
    }

    package static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(code: Code.invalidRequest, message: "Invalid request: \(detail)")
    }

    /// A batch over listd's limit, refused whole (nothing of it was done): `data.maximumBatch`
    /// says how many it takes, so that a client can send it again in batches that size.
    package static func batchTooLarge(_ count: Int, maximum: Int) -> RPCError {
        RPCError(
            code: Code.invalidRequest,
            message: "Invalid request: a batch of \(count) messages; at most \(maximum) are taken at once.",
            data: .object(["reason": .string("batchTooLarge"), "maximumBatch": .integer(Int64(maximum))])
        )
    }

    /// `data.maximumBatch` of a batch refused as too large.
    public var maximumBatch: Int? {
        guard reason == "batchTooLarge", let maximum = data?["maximumBatch"]?.integerValue, maximum >= 1 else { return nil }
        return Int(maximum)
    }

    /// `server`: what it is not a method of (“is not a listd method”, “is not available to a page”).
    package static func methodNotFound(_ method: String, _ server: String = "is not a listd method") -> RPCError {
        RPCError(code: Code.methodNotFound, message: "Method not found: “\(method)” \(server).")
    }

    /// - Parameter param: the parameter at fault, as `data.param`, for a program to point at.
    package static func invalidParams(_ detail: String, param: String? = nil) -> RPCError {
        RPCError(
            code: Code.invalidParams,
            message: "Invalid params: \(detail)",
            data: param.map { .object(["param": .string($0)]) }
        )
    }

    package static func internalError(_ detail: String) -> RPCError {
        RPCError(code: Code.internalError, message: "Internal error: \(detail)")
    }

    /// listd is at its limit of connections (an implementation-defined server error), or at the
    /// point where the rest are kept for its own user and root (`keptForOwner`).
    package static func tooManyConnections(_ limit: Int, keptForOwner reserve: Int = 0) -> RPCError {
        let kept = reserve > 0 ? ", and keeps the last \(reserve) for its own user and root" : ""
        var data: [String: JSONValue] = ["reason": .string("tooManyConnections"), "limit": .integer(Int64(limit))]
        if reserve > 0 { data["keptForOwner"] = .integer(Int64(reserve)) }
        return RPCError(
            code: -32000,
            message: "listd serves at most \(limit) connections at once\(kept); this one is closed. Try again later.",
            data: .object(data)
        )
    }

    /// The client's user holds its share of listd's connections already.
    package static func tooManyConnectionsOfUser(uid: UInt32, share: Int, limit: Int) -> RPCError {
        RPCError(
            code: -32000,
            message:
                "uid \(uid) has \(share) connections to listd open already, as many as one user may (of \(limit) in all; listd's own user and root are not limited); this one is closed. Close one of them, or try again later.",
            data: .object([
                "reason": .string("tooManyConnectionsOfUser"), "uid": .integer(Int64(uid)), "limit": .integer(Int64(share)),
            ])
        )
    }

    /// The client sent nothing for `milliseconds`, and never said `hello`, subscribed or became
    /// a delegate: its connection is let go.
    package static func idle(milliseconds: Int) -> RPCError {
        RPCError(
            code: -32002,
            message:
                "This connection sent nothing for \(idleTime(milliseconds)) and never said hello, subscribed or became a delegate; it is closed. A client that stays connected says hello.",
            data: .object(["reason": .string("idle"), "ms": .integer(Int64(milliseconds))])
        )
    }

    /// "60 s", or "300 ms" for a time short of whole seconds.
    package static func idleTime(_ milliseconds: Int) -> String {
        milliseconds % 1_000 == 0 ? "\(milliseconds / 1_000) s" : "\(milliseconds) ms"
    }

    /// The client's connection is not served: its user may not use this listd.
    package static func notAllowed(uid: UInt32, detail: String) -> RPCError {
        RPCError(
            code: -32001,
            message: "Not allowed for uid \(uid): \(detail); this connection is closed.",
            data: .object(["reason": .string("notAllowed"), "uid": .integer(Int64(uid))])
        )
    }
}

extension RPCError: CustomStringConvertible {
    public var description: String { message }
}
