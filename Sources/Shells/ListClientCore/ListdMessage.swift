// What listd sends a client on its own (not a reply): read the same way by every client.
import ListModel
import ListRPC

/// A request or notification from listd, as a client acts on it.
public enum ListdMessage: Sendable {
    /// A change notification (`didUpdateShoppingList`, …).
    case event(ListEvent)
    /// A change notification on a brief connection: the list without its items, each step with
    /// its place.
    case briefEvent(ListEventName, BriefChangeParams)
    /// A person's save of the list file that listd could not take (wholly or in part).
    case fileRejection(FileRejectionParams)
    /// A question to this client as a delegate; answer it with a `DelegateAnswer` for `id`.
    /// `params` is nil when they could not be read (the question is then allowed).
    case question(DelegateQuestion, DelegateQuestionParams?, id: RPCRequestID)
    /// An edit delegates denied (`didDenyChange`, for subscribers that asked for it).
    case denial(DeniedChangeParams)
    /// listd no longer consults this delegate (it did not answer in time, several times in a row).
    case delegateDropped(DelegateDroppedParams)
    /// The delegates missed changed (`didChangeDelegates`, for subscribers that asked for it).
    case delegatesChanged(MissingDelegatesParams)

    /// nil for anything a client does not act on (an unknown method, params that do not read).
    package init?(_ request: RPCRequest) {
        if let id = request.id {
            guard let question = DelegateQuestion(rawValue: request.method) else { return nil }
            self = .question(
                question,
                try? RPCEncoding.decode(DelegateQuestionParams.self, from: request.params),
                id: id
            )
        } else if request.method == DelegateDroppedParams.method {
            guard let params = try? RPCEncoding.decode(DelegateDroppedParams.self, from: request.params) else {
                return nil
            }
            self = .delegateDropped(params)
        } else if request.method == ListEventName.didDenyChange.rawValue {
            guard let params = try? RPCEncoding.decode(DeniedChangeParams.self, from: request.params) else {
                return nil
            }
            self = .denial(params)
        } else if request.method == ListEventName.didChangeDelegates.rawValue {
            guard let params = try? RPCEncoding.decode(MissingDelegatesParams.self, from: request.params) else {
                return nil
            }
            self = .delegatesChanged(params)
        } else if request.method == ListEventName.didRejectFileEdit.rawValue {
            guard let params = try? RPCEncoding.decode(FileRejectionParams.self, from: request.params) else {
                return nil
            }
            self = .fileRejection(params)
        } else {
            guard let name = ListEventName(rawValue: request.method) else { return nil }
            if let params = try? RPCEncoding.decode(ListChangeParams.self, from: request.params) {
                self = .event(ListEvent(name: name, params: params))
            } else if let params = try? RPCEncoding.decode(BriefChangeParams.self, from: request.params) {
                self = .briefEvent(name, params)
            } else {
                return nil
            }
        }
    }
}
