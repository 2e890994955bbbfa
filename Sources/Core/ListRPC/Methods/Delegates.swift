import ListModel

/// Become a delegate: listd asks this connection before applying matching edits.
public enum RegisterDelegate: RPCMethod {
    public static let name = "registerDelegate"

    public struct Params: Codable, Sendable, Hashable {
        /// The delegate's name, shown in every denial it makes (one line of text).
        public var name: String
        /// Only these questions; all when absent.
        public var questions: [DelegateQuestion]?
        /// Only edits of these lists (creates match by the new name); all when absent.
        public var lists: [ListReference]?
        /// How long listd waits for an answer: default 2000, at most 30000.
        public var timeoutMs: Int?
        /// What no answer in time counts as: `.allow` (the default) or `.deny`.
        public var onTimeout: TimeoutVerdict?

        /// The params, each as the protocol names it; nil leaves listd's default.
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
        /// The name, as listd keeps it (trimmed).
        public var name: String
        /// The questions it is asked (every one when it named none).
        public var questions: [DelegateQuestion]
        /// How long listd waits for each answer, in milliseconds.
        public var timeoutMs: Int
        /// What no answer in time counts as.
        public var onTimeout: TimeoutVerdict

        /// The seat listd granted.
        public init(name: String, questions: [DelegateQuestion], timeoutMs: Int, onTimeout: TimeoutVerdict) {
            self.name = name
            self.questions = questions
            self.timeoutMs = timeoutMs
            self.onTimeout = onTimeout
        }
    }
}

/// Stops being a delegate; questions out to it are settled by its `onTimeout`.
public enum UnregisterDelegate: RPCMethod {
    public static let name = "unregisterDelegate"
    public typealias Params = NoParams
    public typealias Result = EmptyResult
}

/// The notification a delegate receives when listd stops consulting it.
public struct DelegateDroppedParams: Codable, Sendable, Hashable {
    /// The notification's method name.
    public static let method = "didStopConsultingDelegate"
    /// The delegate's name.
    public var name: String
    /// Why listd stopped asking it, and how to come back.
    public var reason: String

    /// The notification's params.
    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }
}

