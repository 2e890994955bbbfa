/// Why an edit is denied. Each case has a stable reason word (the protocol's `data.reason`) and
/// a human sentence.
public indirect enum ListError: Error, Hashable, Sendable {
    /// `section`: the section it is in; `quantity`: the amount the edit gave (the sentence says how
    /// to set it instead); `has`: the amount the item has.
    case itemExists(item: String, list: String, section: String? = nil, quantity: String? = nil, has: String? = nil)
    /// The item is not on the list.
    case itemNotFound(item: String, list: String)
    /// `renaming`: the list a rename was refused for (its name stays).
    case listExists(name: String, renaming: String? = nil)
    /// No list has that name or id.
    case listNotFound(ListReference)
    /// A list name that breaks a text rule.
    case invalidName(String, ListText.Violation)
    /// An item that breaks a text rule.
    case invalidItem(String, ListText.Violation)
    /// Another section of the list has that name.
    case sectionExists(section: String, list: String)
    /// The list has no such section.
    case sectionNotFound(section: String, list: String)
    /// A section name that breaks a text rule.
    case invalidSection(String, ListText.Violation)
    /// An amount that breaks a rule.
    case invalidQuantity(String, ListText.Violation)
    /// The list changed since the revision the client based its edit on.
    case conflict(list: String, expected: Revision, actual: Revision)
    /// `undo` of a change listd no longer keeps (`oldestKept` is nil when it keeps none).
    case historyCompacted(revision: Revision, oldestKept: Revision?)
    /// `undo` of a revision no change has (yet).
    case changeNotFound(revision: Revision, newest: Revision)
    /// `undo` without a revision, when no kept change is left to undo (`yours`: of the changes
    /// the client's own author made).
    case nothingToUndo(yours: Bool)
    /// The inverse of change `revision` does not apply to the lists as they are now; `error`
    /// says what is in the way (its reason word is the reply's).
    case undoBlocked(revision: Revision, error: ListError)
    /// An edit made on older lists (`basedOn`: an offline phone's queue) of an item someone else
    /// changed or removed since: what they did stands; `why` says what.
    case changedMeanwhile(why: String)
    /// The client declared it would not make such changes (`hello {rights}`): `needed` is the
    /// right it lacks, `held` what it kept.
    case notPermitted(needed: ClientRights, held: ClientRights)

    /// Stable word clients can branch on.
    public var reason: String {
        switch self {
        case .itemExists: "itemExists"
        case .itemNotFound: "itemNotFound"
        case .listExists: "listExists"
        case .listNotFound: "listNotFound"
        case .invalidName: "invalidName"
        case .invalidItem: "invalidItem"
        case .sectionExists: "sectionExists"
        case .sectionNotFound: "sectionNotFound"
        case .invalidSection: "invalidSection"
        case .invalidQuantity: "invalidQuantity"
        case .conflict: "conflict"
        case .historyCompacted: "historyCompacted"
        case .changeNotFound: "changeNotFound"
        case .nothingToUndo: "nothingToUndo"
        case .undoBlocked(_, let error): error.reason
        case .changedMeanwhile: "changedMeanwhile"
        case .notPermitted: "notPermitted"
        }
    }

    /// One sentence for a person.
    public var message: String {
        switch self {
        case .itemExists(let item, let list, let section, let quantity, let has):
            "“\(item)”\(has.map { " (\($0))" } ?? "") is already on \(list)\(section.map { ", under \($0)" } ?? "")."
                + (quantity.map { " To buy \($0), change its amount instead." }
                    ?? (has != nil ? " To buy more, change its amount." : ""))
        case .itemNotFound(let item, let list):
            "“\(item)” is not on \(list)."
        case .listExists(let name, nil):
            "There is already a list called “\(name)”."
        case .listExists(let name, let renaming?):
            "There is already a list called “\(name)”, so \(renaming) keeps its name."
        case .listNotFound(let reference):
            switch reference {
            case .id(let id): "There is no list with id \(id)."
            case .name(let name): "There is no list called “\(ListText.trimmed(name))”."
            }
        case .invalidName(let text, let violation):
            "“\(abbreviated(text))” is not a valid list name: \(violation.explanation)."
        case .invalidItem(let text, let violation):
            "“\(abbreviated(text))” is not a valid item: \(violation.explanation)."
        case .sectionExists(let section, let list):
            "\(list) already has a section called “\(section)”."
        case .sectionNotFound(let section, let list):
            "\(list) has no section called “\(abbreviated(ListText.trimmed(section)))”."
        case .invalidSection(let text, let violation):
            "“\(abbreviated(text))” is not a valid section name: \(violation.explanation)."
        case .invalidQuantity(let text, let violation):
            "“\(abbreviated(text))” is not a valid amount: \(violation.explanation)."
        case .conflict(let list, let expected, let actual):
            "\(list) has changed since revision \(expected) (it is at revision \(actual)); reload it and try again."
        case .historyCompacted(let revision, let oldest?):
            "Change #\(revision) is older than the changes listd keeps (the oldest is #\(oldest)), so it cannot be undone."
        case .historyCompacted(let revision, nil):
            "Change #\(revision) is older than the changes listd keeps (it keeps none now), so it cannot be undone."
        case .changeNotFound(let revision, let newest):
            "There is no change #\(revision) (the latest is #\(newest))."
        case .nothingToUndo(yours: true):
            "Nothing of yours to undo: every change you made that listd keeps is undone already."
        case .nothingToUndo(yours: false):
            "Nothing to undo: every change listd keeps is undone already."
        case .undoBlocked(let revision, let error):
            "Change #\(revision) cannot be undone: \(error.message)"
        case .changedMeanwhile(let why):
            why
        case .notPermitted(let needed, let held):
            "This client may not \(needed.changeWord)"
                + (held.isEmpty ? ": it may only read the lists." : " (it may \(held.changeWords.joined(separator: " and ")) only).")
        }
    }
}

extension ListError: CustomStringConvertible {
    public var description: String { message }
}

/// Keeps denial messages one readable line even for a 100 kB item.
private func abbreviated(_ text: String) -> String {
    let printable = String(
        String.UnicodeScalarView(
            text.unicodeScalars.map { scalar in
                switch scalar.properties.generalCategory {
                case .control, .lineSeparator, .paragraphSeparator: "\u{FFFD}"
                default: scalar
                }
            }
        )
    )
    return printable.count > 60 ? printable.prefix(57) + "…" : printable
}
