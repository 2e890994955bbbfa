import ListModel

/// Start hearing changes: the reply is a snapshot, and every change after its revision is then
/// notified exactly once, in order.
public enum Subscribe: RPCMethod {
    public static let name = "subscribe"

    public struct Params: Codable, Sendable, Hashable {
        /// Only these notifications (names from `ListEventName`); all when absent.
        public var events: [String]?
        /// Only changes to these lists; all when absent.
        public var lists: [ListReference]?
        /// Resume: first replay every change after this revision, then go on live.
        public var since: Revision?
        /// With `since`: the instance that revision belongs to (from an earlier reply); a
        /// different one is refused with `instanceChanged`.
        public var instance: String?
        /// Only changes made by `mine` (this client's author: its user and `hello` name) or by
        /// `others`; `any` (the default): everyone's.
        public var origin: String?
        /// Only changes with a step of one of these kinds (`add`, `check`, … as `op` names
        /// them); all when absent.
        public var steps: [String]?
        /// Each as the protocol names it (docs/protocol.md).
        public init(
            events: [String]? = nil,
            lists: [ListReference]? = nil,
            since: Revision? = nil,
            instance: String? = nil,
            origin: String? = nil,
            steps: [String]? = nil
        ) {
            self.events = events
            self.lists = lists
            self.since = since
            self.instance = instance
            self.origin = origin
            self.steps = steps
        }
    }

    public typealias Result = ListsSnapshot
}


/// Stops the connection's subscription.
public enum Unsubscribe: RPCMethod {
    public static let name = "unsubscribe"
    public typealias Params = NoParams
    public typealias Result = EmptyResult
}
