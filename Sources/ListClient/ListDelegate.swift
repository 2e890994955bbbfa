import ListClientCore
import ListModel
import ListRPC

/// What a program implements to vet edits before listd applies them. Every method allows by
/// default, so a delegate implements only the questions it cares about.
public protocol ListDelegate: Sendable {
    func shouldCreate(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldRename(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldDelete(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldAdd(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldReplace(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldRemove(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldCheck(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldUncheck(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldMove(_ question: DelegateQuestionParams) async -> DelegateAnswer
    func shouldSetQuantity(_ question: DelegateQuestionParams) async -> DelegateAnswer
    /// A section added, renamed or removed (`op`).
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

    public func unregisterDelegate() async throws(ListClientError) {
        _ = try await call(UnregisterDelegate.self, NoParams())
        setDelegate(nil)
    }
}
