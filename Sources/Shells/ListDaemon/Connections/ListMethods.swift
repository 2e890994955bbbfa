// Every method listd serves, mapped to the owner, the hub and the delegate registry.
import Glibc
import ListCore
import ListFileFormat
import ListModel
import ListRPC

extension MethodTable {
    /// Every method listd serves.
    static func listd(owner: ListOwner, version: String) -> MethodTable {
        let (hub, published) = (owner.hub, owner.published)
        var table = MethodTable()

        table.register(Hello.self, requires: []) { params, session throws(RPCError) in
            session.introduced = true
            if let name = params.name {
                guard case .success(let valid) = ListText.validated(name) else {
                    throw .invalidParams("“name” must be one line of text.", param: "name")
                }
                session.clientName = valid
            }
            if let brief = params.brief { session.brief = brief }
            if let names = params.rights {
                switch ClientRights.named(names) {
                case .success(let declared): session.rights.formIntersection(declared)
                case .failure(let unknown):
                    let known = ClientRights.names.map(\.name).joined(separator: ", ")
                    throw .invalidParams("“\(unknown.name)” is not a right; rights are \(known).", param: "rights")
                }
            }
            return Hello.Result(
                server: "listd",
                version: version,
                protocolVersion: 1,
                pid: getpid(),
                instance: published.instance,
                brief: session.brief,
                share: owner.shareStatus,
                rights: session.rights.nameList
            )
        }
        table.registerRead(GetLists.self) { _ in
            var snapshot = hub.snapshot
            snapshot.share = owner.shareStatus
            snapshot.missingDelegates = owner.missingDelegates
            return snapshot
        }
        table.registerRead(GetList.self) { params throws(RPCError) in
            do throws(ListError) {
                return try hub.book.list(params.list)
            } catch {
                throw RPCError(error)
            }
        }
        table.registerEdit(CreateList.self) { params, session, provenance, reply in
            owner.edit(
                .createList(name: params.name, items: params.items ?? [], quantities: params.quantities ?? [:]),
                params.ifRevision,
                session,
                provenance,
                ifAbsent: params.ifAbsent == true,
                then: reply
            )
        }
        table.registerEdit(RenameList.self) { params, session, provenance, reply in
            owner.edit(.renameList(params.list, to: params.name), params.ifRevision, session, provenance, then: reply)
        }
        table.registerEdit(DeleteList.self) { params, session, provenance, reply in
            owner.edit(.deleteList(params.list), params.ifRevision, session, provenance, then: reply)
        }
        table.registerEdit(AddItem.self) { params, session, provenance, reply in
            owner.edit(
                .addItem(params.item, to: params.list, section: params.section, quantity: params.quantity),
                params.ifRevision,
                session,
                provenance,
                ifAbsent: params.ifAbsent == true,
                then: reply
            )
        }
        table.registerEdit(ReplaceItem.self) { params, session, provenance, reply in
            owner.edit(
                .replaceItem(params.item, with: params.with, on: params.list),
                params.ifRevision,
                session,
                provenance,
                then: reply
            )
        }
        table.registerEdit(RemoveItem.self) { params, session, provenance, reply in
            owner.edit(.removeItem(params.item, from: params.list), params.ifRevision, session, provenance, then: reply)
        }
        table.registerEdit(MoveItem.self) { params, session, provenance, reply in
            owner.edit(
                .moveItemInto(params.item, on: params.list, section: params.section, before: params.before),
                params.ifRevision,
                session,
                provenance,
                then: reply
            )
        }
        table.registerEdit(AddSection.self) { params, session, provenance, reply in
            owner.edit(.addSection(params.section, on: params.list, before: params.before), params.ifRevision, session, provenance, then: reply)
        }
        table.registerEdit(RenameSection.self) { params, session, provenance, reply in
            owner.edit(.renameSection(params.section, on: params.list, to: params.to), params.ifRevision, session, provenance, then: reply)
        }
        table.registerEdit(RemoveSection.self) { params, session, provenance, reply in
            owner.edit(.removeSection(params.section, on: params.list), params.ifRevision, session, provenance, then: reply)
        }
        table.registerEdit(SetQuantity.self) { params, session, provenance, reply in
            owner.edit(.setQuantity(params.item, on: params.list, quantity: params.quantity), params.ifRevision, session, provenance, then: reply)
        }
        table.registerEdit(CheckItem.self) { params, session, provenance, reply in
            owner.edit(.checkItem(params.item, on: params.list), params.ifRevision, session, provenance, then: reply)
        }
        table.registerEdit(UncheckItem.self) { params, session, provenance, reply in
            owner.edit(.uncheckItem(params.item, on: params.list), params.ifRevision, session, provenance, then: reply)
        }
        table.registerDeciding(ClearChecked.self) { params, session, provenance, reply in
            let only = params.items.map { Set($0.map(ListText.key)) }
            owner.editWithOutcome(.clearChecked(params.list, only: only), params.ifRevision, session, provenance) { outcome in
                reply(
                    outcome.map { outcome in
                        let cleared = outcome.steps.compactMap { step -> String? in
                            if case .remove(let item) = step { item } else { nil }
                        }
                        return ClearChecked.Result(list: outcome.list, cleared: cleared, kept: outcome.kept, brief: session.brief)
                    }
                )
            }
        }
        table.register(GetHistory.self, requires: []) { params, _ throws(RPCError) in
            let limit = params.limit ?? GetHistory.defaultLimit
            guard limit >= 1 else { throw .invalidParams("“limit” must be 1 or more.", param: "limit") }
            try Self.checkSince(params.since)
            do throws(SubscriptionHub.SubscribeFailure) {
                return try hub.history(list: params.list, since: params.since, limit: limit)
            } catch {
                throw RPCError(error)
            }
        }
        table.registerDeciding(Undo.self) { params, session, provenance, reply in
            let plan: (edit: ListEdit, change: ListChange)
            do throws(ListError) {
                plan = try hub.undo(params.revision, by: params.mine == true ? session.origin : nil)
            } catch {
                return reply(.failure(RPCError(error)))
            }
            owner.editWithOutcome(plan.edit, params.ifRevision, session, provenance, undoes: plan.change.revision) { outcome in
                reply(outcome.map { Undo.Result(undone: HistoryEntry(plan.change), list: $0.list, revision: $0.revision, brief: session.brief) })
            }
        }
        table.register(Subscribe.self, requires: []) { params, session throws(RPCError) in
            var events = ListEventName.defaultEvents
            if let names = params.events {
                events = []
                for name in names {
                    guard let event = ListEventName(rawValue: name) else {
                        let known = ListEventName.allCases.map(\.rawValue).joined(separator: ", ")
                        throw .invalidParams("“\(name)” is not an event listd sends; it sends \(known).", param: "events")
                    }
                    events.insert(event)
                }
            }
            try Self.checkSince(params.since)
            let filter: ChangeFilter
            switch ChangeFilter.asked(origin: params.origin, steps: params.steps, author: session.origin) {
            case .success(let asked): filter = asked
            case .failure(let invalid): throw .invalidParams(invalid.message, param: invalid.param)
            }
            // Notifications wait until the server has sent this reply (see Outbox).
            session.outbox.hold()
            session.introduced = true
            do throws(SubscriptionHub.SubscribeFailure) {
                var snapshot = try hub.subscribe(
                    connection: session.id,
                    outbox: session.outbox,
                    brief: session.brief,
                    events: events,
                    filter: filter,
                    lists: params.lists,
                    since: params.since,
                    expectedInstance: params.instance
                )
                snapshot.missingDelegates = owner.missingDelegates
                return snapshot
            } catch {
                throw RPCError(error)
            }
        }
        table.register(Unsubscribe.self, requires: []) { _, session in
            hub.unsubscribe(connection: session.id)
            return EmptyResult()
        }
        table.register(RegisterDelegate.self, requires: .delegate) { params, session throws(RPCError) in
            let registered = DelegatePanel.Seat.registering(
                name: params.name,
                questions: params.questions,
                lists: params.lists,
                timeoutMs: params.timeoutMs,
                onTimeout: params.onTimeout,
                connection: session.id,
                pid: session.credentials.pid,
                brief: session.brief,
                on: hub.book,
                limits: owner.limits
            )
            switch registered {
            case .success(let granted):
                session.introduced = true
                owner.delegateRegistered(granted.seat, outbox: session.outbox)
                return RegisterDelegate.Result(
                    name: granted.seat.name,
                    questions: granted.questions,
                    timeoutMs: granted.timeoutMs,
                    onTimeout: granted.seat.onTimeout
                )
            case .failure(let refused):
                throw .invalidParams(refused.message, param: refused.field)
            }
        }
        table.register(UnregisterDelegate.self, requires: []) { _, session in
            owner.delegateGone(session.id, unregistered: true)
            return EmptyResult()
        }
        return table
    }
}

extension MethodTable {
    /// A revision to resume from is 0 (before the first change) or more.
    fileprivate static func checkSince(_ since: Revision?) throws(RPCError) {
        if let since, since < 0 {
            throw .invalidParams("“since” must be a revision: 0 or more.", param: "since")
        }
    }
}

extension RPCError {
    fileprivate init(_ failure: SubscriptionHub.SubscribeFailure) {
        switch failure {
        case .denied(let error): self.init(error)
        case .historyCompacted(let since, let revision, let oldest, let instance):
            self = .historyCompacted(since: since, revision: revision, oldestKept: oldest, instance: instance)
        case .instanceChanged(let expected, let instance, let revision):
            self = .instanceChanged(expected: expected, instance: instance, revision: revision)
        }
    }
}

extension ListOwner {
    /// An edit on behalf of a client's session, with what it said besides its params; `then`
    /// gets the list it left and what the request did now (a confirm) or why not (a deny), once
    /// decided (on the owner's loop).
    fileprivate func edit(
        _ edit: ListEdit,
        _ ifRevision: Revision?,
        _ session: Session,
        _ provenance: EditProvenance,
        ifAbsent: Bool = false,
        then reply: @escaping (Result<EditReply, RPCError>) -> Void
    ) {
        // A brief connection's confirm shows the list's summary: the core need not hold its items.
        editWithOutcome(edit, ifRevision, session, provenance, ifAbsent: ifAbsent, summaryOnly: session.brief) { outcome in
            reply(outcome.map { EditReply(list: $0.list, brief: session.brief, effect: $0.effect) })
        }
    }

    /// `edit`, with the whole outcome (what delegates kept, the change's revision); an undo
    /// names the change it undoes, and a rule in its way is said as such. The one `ClientEdit`
    /// is made here: the edit, the session's origin and rights, and what the kept history says
    /// of its `editId` and `basedOn`.
    fileprivate func editWithOutcome(
        _ edit: ListEdit,
        _ ifRevision: Revision?,
        _ session: Session,
        _ provenance: EditProvenance,
        undoes: Revision? = nil,
        ifAbsent: Bool = false,
        summaryOnly: Bool = false,
        then reply: @escaping (Result<EditOutcome, RPCError>) -> Void
    ) {
        let (appliedAt, base) = hub.provenance(provenance)
        let client = ClientEdit(
            edit: edit,
            ifRevision: ifRevision,
            origin: session.origin,
            undoes: undoes,
            editId: provenance.editId,
            appliedAt: appliedAt,
            base: provenance.basedOn.map { revision in
                base.map { SaveBase(book: $0, kind: .revision) } ?? SaveBase(book: ListBook(), kind: .unrelated)
            },
            rights: session.rights,
            ifAbsent: ifAbsent,
            summaryOnly: summaryOnly
        )
        propose(client) { outcome in
            reply(
                outcome.mapError { failure in
                    switch failure {
                    case .deniedByDelegate(let denials, let timedOut): .deniedByDelegate(denials, timedOut: timedOut)
                    case .denied(let error):
                        RPCError(undoes.map { ListError.undoBlocked(revision: $0, error: error) } ?? error)
                    case .fileInvalid(let path, let line, let offset):
                        .fileInvalid(path: path, line: line, byteOffset: offset)
                    case .storageFailed(let detail): .storageFailed(detail)
                    case .unavailable(let detail): .unavailable(detail)
                    case .outcomeUnknown(let detail): .outcomeUnknown(detail)
                    case .shuttingDown: .internalError("listd is shutting down; the change was not applied.")
                    }
                }
            )
        }
    }
}

extension EditOutcome {
    /// What the request did now, as its reply says it.
    var effect: EditReply.Effect {
        if resent, let revision { return .resent(appliedRevision: revision) }
        return revision == nil ? .unchanged : .applied
    }
}
