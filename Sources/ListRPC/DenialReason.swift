// A denial's reason as a type a client switches over: the stable words of docs/protocol.md's
// Denials table, and any word a newer listd adds kept as it came.

/// Why listd denied an edit (`data.reason`), as a value to switch over; a reason this client
/// does not know yet (listd only ever adds reasons) is `other` with its word.
public enum DenialReason: Hashable, Sendable, CaseIterable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    case itemExists
    case itemNotFound
    case listExists
    case listNotFound
    case invalidName
    case invalidItem
    case conflict
    case fileInvalid
    case deniedByDelegate
    case historyCompacted
    case instanceChanged
    case changeNotFound
    case sectionExists
    case sectionNotFound
    case invalidSection
    case invalidQuantity
    case changedMeanwhile
    case notPermitted
    case nothingToUndo
    case storageFailed
    case unavailable
    case busy
    case outcomeUnknown
    case replyTooLarge
    /// A reason word this client does not know.
    case other(String)

    public static let allCases: [DenialReason] = [
        .itemExists, .itemNotFound, .listExists, .listNotFound, .invalidName, .invalidItem, .conflict, .fileInvalid, .deniedByDelegate, .historyCompacted, .instanceChanged, .changeNotFound, .sectionExists, .sectionNotFound, .invalidSection, .invalidQuantity, .changedMeanwhile, .notPermitted, .nothingToUndo, .storageFailed, .unavailable, .busy, .outcomeUnknown, .replyTooLarge,
    ]

    public init(rawValue: String) {
        self = Self.allCases.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The word as listd sends it.
    public var rawValue: String {
        switch self {
        case .itemExists: "itemExists"
        case .itemNotFound: "itemNotFound"
        case .listExists: "listExists"
        case .listNotFound: "listNotFound"
        case .invalidName: "invalidName"
        case .invalidItem: "invalidItem"
        case .conflict: "conflict"
        case .fileInvalid: "fileInvalid"
        case .deniedByDelegate: "deniedByDelegate"
        case .historyCompacted: "historyCompacted"
        case .instanceChanged: "instanceChanged"
        case .changeNotFound: "changeNotFound"
        case .sectionExists: "sectionExists"
        case .sectionNotFound: "sectionNotFound"
        case .invalidSection: "invalidSection"
        case .invalidQuantity: "invalidQuantity"
        case .changedMeanwhile: "changedMeanwhile"
        case .notPermitted: "notPermitted"
        case .nothingToUndo: "nothingToUndo"
        case .storageFailed: "storageFailed"
        case .unavailable: "unavailable"
        case .busy: "busy"
        case .outcomeUnknown: "outcomeUnknown"
        case .replyTooLarge: "replyTooLarge"
        case .other(let word): word
        }
    }

    /// The error code listd sends with it (`DenialCode`).
    public var code: Int { DenialCode.code(for: rawValue) }

    public var description: String { rawValue }
}
