// Delegates in Swift: a type that answers listd's questions before an edit is applied, one
// method per question, and how a client registers one.
import ListClientCore
import ListModel
import ListRPC

/// What a program implements to vet edits before listd applies them. Every method allows by
/// default, so a delegate implements only the questions it cares about. Each gets the proposed
/// change (`question.list` as it is now, `question.origin` who proposes it) and answers
/// `DelegateAnswer(allow: false, reason: "…")` to refuse: the reason is shown to whoever made the
/// edit. An answer must come within the registration's `timeoutMs`, else its `onTimeout` counts.
public protocol ListDelegate: Sendable {
    /// A list named `question.name` is to be created with `question.items` (a deleted list
    /// brought back by an undo too).
    func shouldCreate(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.list` is to be renamed `question.name`.
    func shouldRename(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.list` is to be deleted, with all its items.
    func shouldDelete(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.item` is to be added to `question.list` (into `question.section`, with
    /// `question.quantity`, when the edit gives them).
    func shouldAdd(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.item` is to be replaced by `question.with`.
    func shouldReplace(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.item` is to be taken off (also each item of a `clearChecked`).
    func shouldRemove(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.item` is to be ticked off.
    func shouldCheck(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.item` is to be unticked.
    func shouldUncheck(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.item` is to move into `question.section`, before `question.with` (when given).
    func shouldMove(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// `question.item`'s amount is to become `question.quantity` (nil: none).
    func shouldSetQuantity(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// A section added, renamed (to `question.to`) or removed: `question.op` says which,
    /// `question.section` names it.
    func shouldEditSection(_ question: DelegateQuestionParams) async -> DelegateAnswer
}

extension ListDelegate {
    public func shouldCreate(_ question: DelegateQuestionParams) async -> DelegateAnswer { DelegateAnswer(allow: true) }
    public func shouldRename(_ question: DelegateQuestionParams) async -> DelegateAnswer { DelegateAnswer(allow: true) }
    public func shouldDelete(_ question: DelegateQuestionParams) async -> DelegateAnswer { DelegateAnswer(allow: true) }
    public func shouldAdd(_ question: DelegateQuestionParams) async -> DelegateAnswer { DelegateAnswer(allow: true) }
    public func shouldReplace(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        DelegateAnswer(allow: true)
    }
    public func shouldRemove(_ question: DelegateQuestionParams) async -> DelegateAnswer { DelegateAnswer(allow: true) }
    public func shouldCheck(_ question: DelegateQuestionParams) async -> DelegateAnswer { DelegateAnswer(allow: true) }
    public func shouldUncheck(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        DelegateAnswer(allow: true)
    }
    public func shouldMove(_ question: DelegateQuestionParams) async -> DelegateAnswer { DelegateAnswer(allow: true) }
    public func shouldSetQuantity(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        DelegateAnswer(allow: true)
    }
    public func shouldEditSection(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        DelegateAnswer(allow: true)
    }

    func answer(_ question: DelegateQuestion, _ params: DelegateQuestionParams) async -> DelegateAnswer {
        switch question {
        case .shouldCreate: await shouldCreate(params)
        case .shouldRename: await shouldRename(params)
        case .shouldDelete: await shouldDelete(params)
        case .shouldAdd: await shouldAdd(params)
        case .shouldReplace: await shouldReplace(params)
        case .shouldRemove: await shouldRemove(params)
        case .shouldCheck: await shouldCheck(params)
        case .shouldUncheck: await shouldUncheck(params)
        case .shouldMove: await shouldMove(params)
        case .shouldSetQuantity: await shouldSetQuantity(params)
        case .shouldEditSection: await shouldEditSection(params)
        }
    }
}

/// A delegate made of one closure that answers every question it is registered for.
public struct ClosureDelegate: ListDelegate {
    let body: @Sendable (DelegateQuestion, DelegateQuestionParams) async -> DelegateAnswer

    /// A delegate that asks `body` every question, with the question's name.
    public init(_ body: @escaping @Sendable (DelegateQuestion, DelegateQuestionParams) async -> DelegateAnswer) {
        self.body = body
    }

    public func shouldCreate(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldCreate, question)
    }
    public func shouldRename(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldRename, question)
    }
    public func shouldDelete(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldDelete, question)
    }
    public func shouldAdd(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldAdd, question)
    }
    public func shouldReplace(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldReplace, question)
    }
    public func shouldRemove(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldRemove, question)
    }
    public func shouldCheck(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldCheck, question)
    }
    public func shouldUncheck(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldUncheck, question)
    }
    public func shouldMove(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldMove, question)
    }
    public func shouldSetQuantity(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldSetQuantity, question)
    }
    public func shouldEditSection(_ question: DelegateQuestionParams) async -> DelegateAnswer {
        await body(.shouldEditSection, question)
    }
}

extension ListClient {
    /// Registers `delegate`: from now on listd asks it before applying matching edits.
    @discardableResult
    public func registerDelegate(
        _ delegate: some ListDelegate,
        name: String,
        questions: [DelegateQuestion]? = nil,
        lists: [ListReference]? = nil,
        timeoutMs: Int? = nil,
        onTimeout: TimeoutVerdict? = nil
    ) async throws(ListClientError) -> RegisterDelegate.Result {
        setDelegate(delegate)
        return try await call(
            RegisterDelegate.self,
            .init(name: name, questions: questions, lists: lists, timeoutMs: timeoutMs, onTimeout: onTimeout)
        )
    }

    /// Registers a closure as the delegate.
    @discardableResult
    public func registerDelegate(
        name: String,
        questions: [DelegateQuestion]? = nil,
        lists: [ListReference]? = nil,
        timeoutMs: Int? = nil,
        onTimeout: TimeoutVerdict? = nil,
        _ body: @escaping @Sendable (DelegateQuestion, DelegateQuestionParams) async -> DelegateAnswer
    ) async throws(ListClientError) -> RegisterDelegate.Result {
        try await registerDelegate(
            ClosureDelegate(body),
            name: name,
            questions: questions,
            lists: lists,
            timeoutMs: timeoutMs,
            onTimeout: onTimeout
        )
    }

    /// Stops being a delegate: listd no longer asks this connection (questions out now are
    /// settled by its `onTimeout`). Closing the connection does the same.
    public func unregisterDelegate() async throws(ListClientError) {
        _ = try await call(UnregisterDelegate.self, NoParams())
        setDelegate(nil)
    }
}
