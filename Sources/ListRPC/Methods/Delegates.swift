import ListModel

/// The questions listd asks delegates before it applies an edit.
public enum DelegateQuestion: String, Codable, Sendable, CaseIterable, Hashable {
    case shouldCreate, shouldRename, shouldDelete, shouldAdd, shouldReplace, shouldRemove, shouldCheck, shouldUncheck
    case shouldMove, shouldSetQuantity, shouldEditSection

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
    case allow, deny

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

/// Become a delegate: listd asks this connection before applying matching edits.
public enum RegisterDelegate: RPCMethod {
    public static let name = "registerDelegate"

    public struct Params: Codable, Sendable, Hashable {
        public var name: String
        /// Only these questions; all when absent.
        public var questions: [DelegateQuestion]?
        /// Only edits of these lists (creates match by the new name); all when absent.
        public var lists: [ListReference]?
        /// How long listd waits for an answer: default 2000, at most 30000.
        public var timeoutMs: Int?
        public var onTimeout: TimeoutVerdict?

        public init(
            name: String,
            questions: [DelegateQuestion]? = nil,
            lists: [ListReference]? = nil,
            timeoutMs: Int? = nil,
            onTimeout: TimeoutVerdict? = nil
        ) {
            self.name = name
            self.questions = questions
            self.lists = lists
            self.timeoutMs = timeoutMs
            self.onTimeout = onTimeout
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var name: String
        public var questions: [DelegateQuestion]
        public var timeoutMs: Int
        public var onTimeout: TimeoutVerdict

        public init(name: String, questions: [DelegateQuestion], timeoutMs: Int, onTimeout: TimeoutVerdict) {
            self.name = name
            self.questions = questions
            self.timeoutMs = timeoutMs
            self.onTimeout = onTimeout
        }
    }
}

public enum UnregisterDelegate: RPCMethod {
    public static let name = "unregisterDelegate"
    public typealias Params = NoParams
    public typealias Result = EmptyResult
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
    public var origin: ChangeOrigin
    /// The daemon-wide revision the proposal was checked against.
    public var revision: Revision

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
    public var item: String
    public var denials: [DelegateDenial]
    public var timedOut: [String]

    public init(item: String, denials: [DelegateDenial], timedOut: [String]) {
        self.item = item
        self.denials = denials
        self.timedOut = timedOut
    }

    /// “milk” stays: Budget: not today.
    public var message: String {
        let reasons = denials.map { "\($0.delegate): \($0.reason)" } + timedOut.map { "\($0): no answer in time" }
        return "“\(item)” stays: \(reasons.joined(separator: "; "))."
    }
}

/// A delegate's answer.
public struct DelegateAnswer: Codable, Sendable, Hashable {
    public var allow: Bool
    public var reason: String?

    public init(allow: Bool, reason: String? = nil) {
        self.allow = allow
        self.reason = reason
    }
}

/// One delegate's refusal, as the denied client and `didDenyChange` subscribers see it.
public struct DelegateDenial: Codable, Sendable, Hashable {
    public var delegate: String
    public var reason: String

    public init(delegate: String, reason: String) {
        self.delegate = delegate
        self.reason = reason
    }
}

/// The notification a delegate receives when listd stops consulting it.
public struct DelegateDroppedParams: Codable, Sendable, Hashable {
    public static let method = "didStopConsultingDelegate"
    public var name: String
    public var reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }
}

/// `didDenyChange` (subscribers opt in): what was proposed, by whom, and every reason.
public struct DeniedChangeParams: Codable, Sendable, Hashable {
    public var question: DelegateQuestion
    public var proposal: DelegateQuestionParams
    public var denials: [DelegateDenial]
    public var timedOut: [String]

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
