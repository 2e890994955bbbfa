// A denial's reason as a type a client switches over: the stable words of docs/protocol.md's
// Denials table, and any word a newer listd adds kept as it came.

/// Why listd denied an edit (`data.reason`), as a value to switch over; a reason this client
/// does not know yet (listd only ever adds reasons) is `other` with its word.
public enum DenialReason: Hashable, Sendable, CaseIterable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The item (or a replacement's text) is on the list already.
    case itemExists
    /// The item is not on the list.
    case itemNotFound
    /// Another list has that name.
    case listExists
    /// No list has that name or id.
    case listNotFound
    /// The list name breaks a text rule (empty, several lines, too long).
    case invalidName
    /// The item breaks a text rule.
    case invalidItem
    /// The list changed since `ifRevision`; `data.revision` is where it is now.
    case conflict
    /// The list file is not UTF-8 text: edits wait until a person fixes it.
    case fileInvalid
    /// Delegates (a household's rules) refused it.
    case deniedByDelegate
    /// The changes since that revision are no longer all kept: fetch the lists again.
    case historyCompacted
    /// listd serves another state than the revision came from.
    case instanceChanged
    /// `undo` of a revision no change has.
    case changeNotFound
    /// Another section of the list has that name.
    case sectionExists
    /// The list has no such section.
    case sectionNotFound
    /// The section name breaks a text rule.
    case invalidSection
    /// The amount is not one listd can write back to the list file.
    case invalidQuantity
    /// An edit made on older lists, of what someone changed or removed since.
    case changedMeanwhile
    /// The connection's rights (`hello {rights}`) do not cover it.
    case notPermitted
    /// `undo` found no change left to undo.
    case nothingToUndo
    /// The edit could not be saved; nothing changed.
    case storageFailed
    /// The shared lists' server cannot be reached now; nothing changed.
    case unavailable
    /// listd-web only: the device sent requests too fast; send it again later.
    case busy
    /// The shared store did not say whether it made the change.
    case outcomeUnknown
    /// listd-web only: the reply is longer than a page is passed.
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
