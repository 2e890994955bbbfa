import Foundation
import ListCore
import ListModel
import ListRPC
import ListRPCTransport
import Logging
import NIOCore

/// The delegate shell: the connections of the registered delegates (multicast delegates), the
/// questions sent to them and their timers. Every decision — who is asked, what a timeout or an
/// error means, when a delegate is dropped — is the core's (`DelegatePanel`); this sends, times
/// and reports back. Owned by the owner's loop: answers, timeouts (tasks scheduled on that loop)
/// and dropped connections all arrive there, in order, with no lock and no task.
final class DelegateRegistry: @unchecked Sendable {
    private struct Connection {
        var name: String
        var pid: Int32
        var outbox: Outbox
    }

    private let loop: any EventLoop
    private let logger: Logger
    private var connections: [Int: Connection] = [:]
    private var timers: [String: Scheduled<Void>] = [:]
    /// Delegates registered before and gone, by name, until one of that name registers again.
    private var missing: [String: MissingDelegate] = [:]

    /// The delegates missed now, by name (`getLists` and `subscribe` say them).
    var missingDelegates: [MissingDelegate] {
        loop.assertInEventLoop()
        return missing.values.sorted { $0.name < $1.name }
    }

    /// `name` is missed from now, unless another connection is a delegate of that name.
    private func miss(_ name: String, because reason: String) {
        guard !connections.values.contains(where: { $0.name == name }) else { return }
        missing[name] = MissingDelegate(name: name, since: .now(), reason: reason)
    }

    init(loop: any EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    func register(connection: Int, name: String, pid: Int32, outbox: Outbox) {
        loop.assertInEventLoop()
        connections[connection] = Connection(name: name, pid: pid, outbox: outbox)
        missing[name] = nil
        logger.info("delegate “\(name)” registered (pid \(pid))", metadata: ["client_pid": "\(pid)"])
    }

    /// `connection` is no delegate any more: it unregistered (not missed), or its connection
    /// closed (missed until it registers again).
    func remove(connection: Int, unregistered: Bool) {
        loop.assertInEventLoop()
        guard let removed = connections.removeValue(forKey: connection) else { return }
        if !unregistered { miss(removed.name, because: "its connection closed") }
        logger.info("delegate “\(removed.name)” gone (pid \(removed.pid))")
    }

    /// Sends `put`'s question and starts its timer; false when it could not be sent (the
    /// question is then unanswered).
    func send(_ put: DelegatePanel.Put, timedOut: @escaping () -> Void) -> Bool {
        loop.assertInEventLoop()
        let method = put.question.rawValue
        let line =
            put.seat.brief
            ? try? RPCOutgoing.request(id: .string(put.id), method: method, params: BriefQuestionParams(put.params))
            : try? RPCOutgoing.request(id: .string(put.id), method: method, params: put.params)
        guard let line, let connection = connections[put.seat.connection] else { return false }
        timers[put.id] = loop.assumeIsolated().scheduleTask(in: TimeAmount(put.seat.timeout)) { [self] in
            timers[put.id] = nil
            timedOut()
        }
        connection.outbox.sendNow(line)
        return true
    }

    /// The question ended before its timer fired.
    func end(_ id: String) {
        timers.removeValue(forKey: id)?.cancel()
    }

    /// What `response` says, as a reply to a question (the core knows whether it is one of its
    /// own: `DelegatePanel.isOut`).
    static func reply(_ response: RPCResponse) -> (id: String, reply: DelegatePanel.Reply)? {
        guard case .string(let id)? = response.id else { return nil }
        switch response.outcome {
        case .success(let value):
            guard let answer = try? RPCEncoding.decode(DelegateAnswer.self, from: value) else {
                return (id, .failed(why: "it answered with what is not an answer ({allow, reason?} was wanted)"))
            }
            return (id, .answered(answer))
        case .failure(let error) where error.code == RPCError.Code.methodNotFound:
            return (id, .methodNotFound)
        case .failure(let error):
            return (id, .failed(why: "it answered with an error (\(error.code): \(error.message))"))
        }
    }

    /// The core dropped `seat` (it did not answer `seat.strikes` times in a row): it
    /// is told so, and the journal.
    func drop(_ seat: DelegatePanel.Seat) {
        let limit = seat.strikes
        logger.warning(
            "delegate “\(seat.name)” (pid \(seat.pid)) did not answer \(limit) times in a row; it is no longer consulted",
            metadata: ["client_pid": "\(seat.pid)", "reason": "delegateTimedOut"]
        )
        guard let connection = connections.removeValue(forKey: seat.connection) else { return }
        miss(seat.name, because: "it did not answer \(limit) questions in a row in time")
        let params = DelegateDroppedParams(
            name: seat.name,
            reason: "You did not answer \(limit) questions in a row in time; listd no longer asks you. Register again to resume."
        )
        if let line = try? RPCOutgoing.request(id: nil, method: DelegateDroppedParams.method, params: params) {
            connection.outbox.sendNow(line)
        }
    }
}
