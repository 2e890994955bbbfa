// What delegates are asked and what they answer, in the model's words: the questions, the
// proposal each carries, a delegate's answer and denial, what a timeout counts as, what a clear
// kept and the change a denial stopped. The core decides with these and the protocol sends them
// as they are (ListRPC's delegate methods and notifications), so the core needs no wire module.

/// The questions listd asks delegates before it applies an edit.
public enum DelegateQuestion: String, Codable, Sendable, CaseIterable, Hashable {
    /// A list is to be created (`createList`, or a deleted one brought back by `undo`).
    case shouldCreate
    /// A list is to be renamed.
    case shouldRename
    /// A list is to be deleted.
    case shouldDelete
    /// An item is to be added (also each item an undone clear puts back).
    case shouldAdd
    /// An item's text is to be replaced.
    case shouldReplace
    /// An item is to be taken off (also each item of a `clearChecked`).
    case shouldRemove
    /// An item is to be ticked off.
    case shouldCheck
    /// An item is to be unticked.
    case shouldUncheck
    /// An item is to move into another section or place.
    case shouldMove
    /// An item's amount is to be set or cleared.
    case shouldSetQuantity
    /// A section is to be added, renamed or removed.
    case shouldEditSection

    /// The question an edit raises; none for a move (a line moved in the list file), which adds,
    /// removes and changes nothing, nor for an edit of several items (`clearChecked`, and the
    /// edits that undo one), which is asked item by item (`ListEdit.parts`).
    package init?(_ edit: ListEdit) {
        switch edit {
        case .createList, .restoreList: self = .shouldCreate
        case .renameList: self = .shouldRename
        case .deleteList: self = .shouldDelete
        case .addItem: self = .shouldAdd
        case .replaceItem: self = .shouldReplace
        case .removeItem: self = .shouldRemove
        case .checkItem: self = .shouldCheck
        case .uncheckItem: self = .shouldUncheck
        case .moveItemInto, .moveItem, .restoreItem: self = .shouldMove
        case .setQuantity: self = .shouldSetQuantity
        case .addSection, .renameSection, .removeSection, .restoreSection: self = .shouldEditSection
        case .clearChecked, .restoreItems, .removeItems: return nil
        }
    }
}

extension DelegateQuestion {
    /// A question listd does not ask is named, with the ones it does (read by people).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let question = DelegateQuestion(rawValue: name) else {
            let known = DelegateQuestion.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "unknown question “\(name)”; known: \(known)"
            )
        }
        self = question
    }
}

/// What a delegate that does not answer in time counts as.
public enum TimeoutVerdict: String, Codable, Sendable, Hashable {
    /// No answer in time lets the edit through.
    case allow
    /// No answer in time refuses the edit.
    case deny

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let word = try container.decode(String.self)
        guard let verdict = TimeoutVerdict(rawValue: word) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "“\(word)” is neither “allow” nor “deny”"
            )
        }
        self = verdict
    }
}

/// The params of a question (a request from listd to a delegate): one type for both forms, so
/// the brief form carries every field the default one does, the list aside
/// (`DelegateQuestionParams`: the list whole; `BriefQuestionParams`: its summary).
public struct QuestionParams<ListForm: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The list as it is now; absent for `shouldCreate`.
    public var list: ListForm?
    /// `shouldCreate`, `shouldRename`: the proposed name.
    public var name: String?
    /// `shouldAdd`, `shouldReplace`, `shouldRemove`: the item.
    public var item: String?
    /// `shouldReplace`: the new text; `shouldCreate`: absent (items are in `items`).
    public var with: String?
    /// `shouldCreate`: the items the list would start with.
    public var items: [String]?
    /// `shouldEditSection`: `add`, `rename` or `remove`.
    public var op: String?
    /// `shouldEditSection`: the section; `shouldAdd`, `shouldMove`: the one the item goes into
    /// ("" for none; absent from `shouldAdd` when the add does not say).
    public var section: String?
    /// `shouldEditSection` `rename`: the new name.
    public var to: String?
    /// `shouldAdd`, `shouldSetQuantity`: the amount (absent: none).
    public var quantity: String?
    /// Who proposes the change: a client (pid, uid, `hello` name) or a person's save of the list file.
    public var origin: ChangeOrigin
    /// The daemon-wide revision the proposal was checked against.
    public var revision: Revision

    /// A question's params; the rest (`op`, `section`, `to`, `quantity`) are set after.
    public init(
        list: ListForm?,
        name: String?,
        item: String?,
        with: String?,
        items: [String]?,
        origin: ChangeOrigin,
        revision: Revision
    ) {
        self.list = list
        self.name = name
        self.item = item
        self.with = with
        self.items = items
        self.origin = origin
        self.revision = revision
    }

    /// The same question with the list in another form (every other field as it is).
    public func withList<Other>(_ transform: (ListForm) -> Other) -> QuestionParams<Other> {
        var other = QuestionParams<Other>(
            list: list.map(transform),
            name: name,
            item: item,
            with: with,
            items: items,
            origin: origin,
            revision: revision
        )
        other.op = op
        other.section = section
        other.to = to
        other.quantity = quantity
        return other
    }
}

/// A question as a default delegate is asked it: with the list whole.
public typealias DelegateQuestionParams = QuestionParams<ShoppingList>

/// An item an edit of several items left where it was because delegates refused (a
/// `clearChecked` keeps it on the list): who refused and why, and who did not answer in time.
public struct KeptItem: Codable, Sendable, Hashable {
    /// The item that stayed.
    public var item: String
    /// The delegates that refused, each with its reason.
    public var denials: [DelegateDenial]
    /// The delegates that did not answer in time and whose `onTimeout` is `deny`.
    public var timedOut: [String]

    /// An item kept, with why.
    public init(item: String, denials: [DelegateDenial], timedOut: [String]) {
        self.item = item
        self.denials = denials
        self.timedOut = timedOut
    }

    /// “milk” stays: Budget: not today.
    public var message: String {
        "“\(item)” stays: \(DelegateDenial.reasons(denials, timedOut: timedOut).joined(separator: "; "))."
    }
}

/// A delegate's answer.
public struct DelegateAnswer: Codable, Sendable, Hashable {
    /// Whether the edit may go on.
    public var allow: Bool
    /// Why not, in words: shown to whoever made the edit (“no sweets”).
    public var reason: String?

    /// An answer: allow, or refuse with a reason.
    public init(allow: Bool, reason: String? = nil) {
        self.allow = allow
        self.reason = reason
    }
}

/// One delegate's refusal, as the denied client and `didDenyChange` subscribers see it.
public struct DelegateDenial: Codable, Sendable, Hashable {
    /// The delegate's name.
    public var delegate: String
    /// Its reason, as it gave it.
    public var reason: String

    /// One delegate's refusal.
    public init(delegate: String, reason: String) {
        self.delegate = delegate
        self.reason = reason
    }

    /// Each delegate's reason, then each one that did not answer in time, as people read them
    /// ("budget: over the limit", "pantry: no answer in time").
    public static func reasons(_ denials: [DelegateDenial], timedOut: [String]) -> [String] {
        denials.map { "\($0.delegate): \($0.reason)" } + timedOut.map { "\($0): no answer in time" }
    }

    /// The sentence a change the delegates stopped is denied with, wherever it is told (the
    /// client's error, the note under a save's line).
    public static func sentence(_ denials: [DelegateDenial], timedOut: [String]) -> String {
        let parts = reasons(denials, timedOut: timedOut)
        return "Denied by \(parts.count == 1 ? "a delegate" : "delegates"): \(parts.joined(separator: "; "))."
    }
}

/// `didDenyChange` (subscribers opt in): what was proposed, by whom, and every reason.
public struct DeniedChangeParams: Codable, Sendable, Hashable {
    /// The question the edit raised.
    public var question: DelegateQuestion
    /// The proposed change, as the delegates were asked it.
    public var proposal: DelegateQuestionParams
    /// Every delegate that refused, with its reason.
    public var denials: [DelegateDenial]
    /// The delegates that did not answer in time.
    public var timedOut: [String]

    /// The notification's params.
    public init(
        question: DelegateQuestion,
        proposal: DelegateQuestionParams,
        denials: [DelegateDenial],
        timedOut: [String]
    ) {
        self.question = question
        self.proposal = proposal
        self.denials = denials
        self.timedOut = timedOut
    }
}
