import ListModel

/// The numeric JSON-RPC error code of every deny reason. Codes are stable; reasons only ever get
/// added. Application codes sit outside the -32768…-32000 range JSON-RPC reserves.
package enum DenialCode {
    /// Each reason word's code.
    package static let byReason: [String: Int] = [
        "itemExists": 1001,
        "itemNotFound": 1002,
        "listExists": 1003,
        "listNotFound": 1004,
        "invalidName": 1005,
        "invalidItem": 1006,
        "conflict": 1007,
        "fileInvalid": 1008,
        "deniedByDelegate": 1009,
        "historyCompacted": 1010,
        "instanceChanged": 1011,
        "changeNotFound": 1012,
        "sectionExists": 1013,
        "sectionNotFound": 1014,
        "invalidSection": 1015,
        "invalidQuantity": 1016,
        "changedMeanwhile": 1017,
        "notPermitted": 1018,
        "nothingToUndo": 1019,
        "storageFailed": 1100,
        "unavailable": 1101,
        "busy": 1102,
        "outcomeUnknown": 1103,
        "replyTooLarge": 1104,
    ]

    /// The code of `reason` (1000 for a word not in the table).
    package static func code(for reason: String) -> Int { byReason[reason] ?? 1000 }
}

extension RPCError {
    /// The deny a client receives for a rule the edit broke.
    public init(_ error: ListError) {
        var data: [String: JSONValue] = ["reason": .string(error.reason)]
        var inner = error
        if case .undoBlocked(_, let blocking) = error { inner = blocking }
        switch inner {
        case .conflict(_, _, let actual): data["revision"] = .integer(Int64(actual))
        case .itemExists(let item, _, _, let quantity, _):
            // What a client needs to offer the change the sentence suggests (the amount instead).
            data["item"] = .string(item)
            if let quantity { data["quantity"] = .string(quantity) }
        case .historyCompacted(_, let oldest?): data["oldestKept"] = .integer(Int64(oldest))
        case .changeNotFound(_, let newest): data["revision"] = .integer(Int64(newest))
        default: break
        }
        self.init(code: DenialCode.code(for: error.reason), message: error.message, data: .object(data))
    }

    /// The edit was valid but could not be made durable, so it was not applied.
    package static func storageFailed(_ detail: String) -> RPCError {
        RPCError(
            code: DenialCode.code(for: "storageFailed"),
            message: "The change was not saved: \(detail)",
            data: .object(["reason": .string("storageFailed")])
        )
    }

    /// The shared lists' server cannot be reached (`listd --share`): nothing was applied; reads
    /// go on from the lists as last seen. `detail` names the server and what failed.
    package static func unavailable(_ detail: String) -> RPCError {
        RPCError(
            code: DenialCode.code(for: "unavailable"),
            message: "The change was not made: \(detail). Try again once it is back.",
            data: .object(["reason": .string("unavailable")])
        )
    }

    /// The change was sent to the shared lists' server, which did not say whether it made it:
    /// it may be on the lists or not. `detail` says why listd stopped waiting; the lists show it
    /// once the server is back (a subscriber hears it then, if it was made).
    package static func outcomeUnknown(_ detail: String) -> RPCError {
        RPCError(
            code: DenialCode.code(for: "outcomeUnknown"),
            message: "Whether the change was made is not known: \(detail). The lists show it once the server is back.",
            data: .object(["reason": .string("outcomeUnknown")])
        )
    }

    /// Too many requests too fast (listd-web's limit on a device's pages): nothing was done; send
    /// it again after `retryAfterMs`.
    package static func busy(retryAfterMs: Int) -> RPCError {
        RPCError(
            code: DenialCode.code(for: "busy"),
            message: "Too many requests from this device; try again in \(retryAfterMs) ms.",
            data: .object(["reason": .string("busy"), "retryAfterMs": .integer(Int64(retryAfterMs))])
        )
    }

    /// listd-web only: listd's reply to this request is longer than listd-web relays to a page;
    /// nothing else of the connection is affected (ask for less: a history's `limit`).
    package static func replyTooLarge(bytes: Int, limit: Int) -> RPCError {
        RPCError(
            code: DenialCode.code(for: "replyTooLarge"),
            message:
                "The reply is \(sizeText(bytes)), more than the \(sizeText(limit)) listd-web passes to a page: a list or its history too large for this page. Ask for less (a shorter history).",
            data: .object(["reason": .string("replyTooLarge"), "bytes": .integer(Int64(bytes)), "limit": .integer(Int64(limit))])
        )
    }

    /// "64 MiB", "300 KiB", "512 bytes".
    static func sizeText(_ bytes: Int) -> String {
        if bytes >= 1 << 20 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// Edits wait while the list file cannot be read, so that the person's file is never
    /// overwritten with listd's older copy.
    package static func fileInvalid(path: String, line: Int, byteOffset: Int) -> RPCError {
        RPCError(
            code: DenialCode.code(for: "fileInvalid"),
            message: "Line \(line) of the list file \(path) is not UTF-8 text; fix it, then try again.",
            data: .object([
                "reason": .string("fileInvalid"), "line": .integer(Int64(line)),
                "byteOffset": .integer(Int64(byteOffset)),
            ])
        )
    }

    /// One or more delegates refused the edit: every refusal is listed, with the delegates that
    /// did not answer in time.
    package static func deniedByDelegate(_ denials: [DelegateDenial], timedOut: [String]) -> RPCError {
        let data: JSONValue = .object([
            "reason": .string("deniedByDelegate"),
            "denials": .array(
                denials.map { .object(["delegate": .string($0.delegate), "reason": .string($0.reason)]) }
            ),
            "timedOut": .array(timedOut.map { .string($0) }),
        ])
        return RPCError(
            code: DenialCode.code(for: "deniedByDelegate"),
            message: DelegateDenial.sentence(denials, timedOut: timedOut),
            data: data
        )
    }

    /// `subscribe {since}` cannot replay what the client missed: resync from a snapshot.
    package static func historyCompacted(
        since: Revision,
        revision: Revision,
        oldestKept: Revision?,
        instance: String
    ) -> RPCError {
        let why =
            since > revision
            ? "revision \(since) is ahead of listd's current revision \(revision) (is this another listd's state?)"
            : "the changes after revision \(since) are no longer all kept\(oldestKept.map { " (the oldest kept is \($0))" } ?? "")"
        var data: [String: JSONValue] = [
            "reason": .string("historyCompacted"), "revision": .integer(Int64(revision)), "instance": .string(instance),
        ]
        if let oldestKept { data["oldestKept"] = .integer(Int64(oldestKept)) }
        return RPCError(
            code: DenialCode.code(for: "historyCompacted"),
            message: "Cannot resume: \(why). Fetch the lists again (getLists or subscribe without since).",
            data: .object(data)
        )
    }

    /// `subscribe {since, instance}` named another state than the one listd serves.
    package static func instanceChanged(expected: String, instance: String, revision: Revision) -> RPCError {
        RPCError(
            code: DenialCode.code(for: "instanceChanged"),
            message:
                "Cannot resume: listd now serves another state (instance \(instance), not \(expected)); its revisions are not the ones you saw. Fetch the lists again.",
            data: .object([
                "reason": .string("instanceChanged"), "revision": .integer(Int64(revision)),
                "instance": .string(instance),
            ])
        )
    }

    /// True for a listd denial (an application error with a reason word) rather than a protocol error.
    public var isDenial: Bool { code >= 1000 && reason != nil }
}
