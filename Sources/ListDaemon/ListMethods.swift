import Glibc
import ListModel
import ListRPC

extension MethodTable {
    /// Every method listd serves.
    static func listd(store: ListStore, version: String) -> MethodTable {
        var table = MethodTable()

        table.register(Hello.self) { params, session throws(RPCError) in
            if let name = params.name {
                guard case .success(let valid) = ListText.validated(name) else {
                    throw .invalidParams("“name” must be one line of text.")
                }
                session.clientName = valid
            }
            return Hello.Result(server: "listd", version: version, protocolVersion: 1, pid: getpid())
        }
        table.register(GetLists.self) { _, _ in store.snapshot }
        table.register(GetList.self) { params, _ throws(RPCError) in
            do throws(ListError) {
                return try store.list(params.list)
            } catch {
                throw RPCError(error)
            }
        }
        table.register(CreateList.self) { params, session throws(RPCError) in
            try await store.perform(.createList(name: params.name, items: params.items ?? []), params.ifRevision, session)
        }
        table.register(RenameList.self) { params, session throws(RPCError) in
            try await store.perform(.renameList(params.list, to: params.name), params.ifRevision, session)
        }
        table.register(DeleteList.self) { params, session throws(RPCError) in
            try await store.perform(.deleteList(params.list), params.ifRevision, session)
        }
        table.register(AddItem.self) { params, session throws(RPCError) in
            try await store.perform(.addItem(params.item, to: params.list), params.ifRevision, session)
        }
        table.register(ReplaceItem.self) { params, session throws(RPCError) in
            try await store.perform(.replaceItem(params.item, with: params.with, on: params.list), params.ifRevision, session)
        }
        table.register(RemoveItem.self) { params, session throws(RPCError) in
            try await store.perform(.removeItem(params.item, from: params.list), params.ifRevision, session)
        }
        table.register(Subscribe.self) { params, session throws(RPCError) in
            var events = Set(ListEventName.allCases)
            if let names = params.events {
                events = []
                for name in names {
                    guard let event = ListEventName(rawValue: name) else {
                        let known = ListEventName.allCases.map(\.rawValue).joined(separator: ", ")
                        throw .invalidParams("“\(name)” is not an event listd sends; it sends \(known).")
                    }
                    events.insert(event)
                }
            }
            // Notifications wait until the server has sent this reply (see Outbox).
            session.outbox.hold()
            do throws(ListError) {
                return try store.subscribe(connection: session.id, outbox: session.outbox, events: events, lists: params.lists)
            } catch {
                throw RPCError(error)
            }
        }
        table.register(Unsubscribe.self) { _, session in
            store.unsubscribe(connection: session.id)
            return EmptyResult()
        }
        return table
    }
}

extension ListStore {
    /// An edit on behalf of a client, with the store's outcome mapped to a confirm or a deny.
    fileprivate func perform(_ edit: ListEdit, _ ifRevision: Revision?, _ session: Session) async throws(RPCError) -> ShoppingList {
        switch await self.edit(edit, ifRevision: ifRevision, origin: session.origin) {
        case .success(let list): return list
        case .failure(.denied(let error)): throw RPCError(error)
        case .failure(.fileInvalid(let path, let offset)): throw .fileInvalid(path: path, byteOffset: offset)
        case .failure(.storageFailed(let detail)): throw .storageFailed(detail)
        case .failure(.shuttingDown): throw .internalError("listd is shutting down; the change was not applied.")
        }
    }
}
