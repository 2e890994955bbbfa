import ListModel
import ListRPC
import Logging

/// The way every client edit goes: the rules first (a duplicate is denied without asking anyone),
/// then every matching delegate at once, then the store. While one proposal waits for delegates,
/// later edits of the same list wait behind it, in order; edits of other lists go on.
final class EditCoordinator: Sendable {
    let store: ListStore
    let delegates: DelegateRegistry
    private let logger: Logger

    init(store: ListStore, delegates: DelegateRegistry, logger: Logger) {
        self.store = store
        self.delegates = delegates
        self.logger = logger
    }

    func propose(_ edit: ListEdit, ifRevision: Revision?, origin: ChangeOrigin) async -> Result<ShoppingList, ListStore.EditFailure> {
        while true {
            let outcome = await proposeOnce(edit, ifRevision: ifRevision, origin: origin)
            // It looked bound to fail or to change nothing, but the lists moved: ask this time.
            if case .failure(.needsVetting) = outcome { continue }
            return outcome
        }
    }

    private func proposeOnce(_ edit: ListEdit, ifRevision: Revision?, origin: ChangeOrigin) async -> Result<ShoppingList, ListStore.EditFailure> {
        guard !delegates.isEmpty else {
            return await store.edit(edit, ifRevision: ifRevision, origin: origin)
        }
        guard let key = edit.gateKey(in: store.book) else {
            // Denied there (listNotFound), unless that list has appeared meanwhile.
            return await store.edit(edit, ifRevision: ifRevision, origin: origin, vetted: false)
        }
        let gates = store.listGates
        await gates.acquire(key)
        defer { gates.release(key) }

        // The rules, on the state as it is now (earlier edits of this list are done by now).
        let before = store.book
        var book = before
        let change: ListChange?
        do throws(ListError) {
            change = try book.apply(edit, ifRevision: ifRevision, at: .now(), origin: origin)
        } catch {
            return await store.edit(edit, ifRevision: ifRevision, origin: origin, vetted: false)  // the store denies and logs it
        }
        guard change != nil else {
            return await store.edit(edit, ifRevision: ifRevision, origin: origin, vetted: false)  // changes nothing
        }
        let question = DelegateQuestion(edit)
        let current = edit.target.flatMap { try? before.list($0) }
        let params = Self.params(for: edit, list: current, origin: origin, revision: before.revision)
        let verdict = await delegates.ask(question, params, list: current?.id, name: params.name)
        guard !verdict.denied else {
            store.announce(DeniedChangeParams(question: question, proposal: params, denials: verdict.denials, timedOut: verdict.timedOut))
            logger.notice(
                "denied by delegates: \(question.rawValue) (by \(origin))",
                metadata: [
                    "reason": "deniedByDelegate",
                    "denials": "\(verdict.denials.map { "\($0.delegate): \($0.reason)" })",
                    "timed_out": "\(verdict.timedOut)",
                ]
            )
            return .failure(.deniedByDelegate(verdict.denials, timedOut: verdict.timedOut))
        }
        return await store.edit(edit, ifRevision: ifRevision, origin: origin)
    }

    static func params(for edit: ListEdit, list: ShoppingList?, origin: ChangeOrigin, revision: Revision) -> DelegateQuestionParams {
        var params = DelegateQuestionParams(list: list, name: nil, item: nil, with: nil, items: nil, origin: origin, revision: revision)
        switch edit {
        case .createList(let name, let items):
            params.name = ListText.trimmed(name)
            params.items = items.map(ListText.trimmed)
        case .renameList(_, let name):
            params.name = ListText.trimmed(name)
        case .deleteList:
            break
        case .addItem(let item, _, _), .removeItem(let item, _):
            params.item = ListText.trimmed(item)
        case .replaceItem(let item, let with, _):
            params.item = ListText.trimmed(item)
            params.with = ListText.trimmed(with)
        }
        return params
    }
}

extension ListEdit {
    /// The queue this edit waits in while earlier edits of the same list are vetted: one per list,
    /// and a create queues on the name it would take. nil when the list does not exist.
    func gateKey(in book: ListBook) -> String? {
        if case .createList(let name, _) = self { return "name:\(ListText.key(name))" }
        guard let target, let list = try? book.list(target) else { return nil }
        return "list:\(list.id)"
    }
}
