/// Who made a change: a connected client (identified by the kernel, not by its word) or the
/// list file edited by a person.
public enum ChangeOrigin: Hashable, Sendable {
    /// A client connection: its process and user, as the kernel said (SO_PEERCRED), and the name it gave in `hello`.
    case client(pid: Int32, uid: UInt32, name: String?)
    /// A person's save of the list file; `host` names the machine it was saved on when the
    /// lists are shared between machines (`listd --share`).
    case file(host: String?)

    /// A person's save of this listd's list file.
    public static var file: ChangeOrigin { .file(host: nil) }
}

extension ChangeOrigin {
    /// Whether a change made by `other` was made by the same author as one by `self`, for an undo
    /// of "my latest change": the same user and client name (a paired phone's, kept across
    /// listd-web's restarts), or, for a client with no name, the same process. A person's save
    /// of the file is no client's.
    public func isSameAuthor(as other: ChangeOrigin) -> Bool {
        switch (self, other) {
        case (.client(_, let uid, let name?), .client(_, let otherUID, let otherName?)):
            uid == otherUID && name == otherName
        case (.client(let pid, let uid, nil), .client(let otherPID, let otherUID, nil)):
            pid == otherPID && uid == otherUID
        default:
            false
        }
    }
}

extension ChangeOrigin: CustomStringConvertible {
    public var description: String {
        switch self {
        case .client(let pid, let uid, let name?):
            "\(name) (pid \(pid), uid \(uid))"
        case .client(let pid, let uid, nil):
            "pid \(pid) (uid \(uid))"
        case .file(nil):
            "the list file"
        case .file(let host?):
            "the list file on \(host)"
        }
    }
}

extension ChangeOrigin: Codable {
    private enum CodingKeys: String, CodingKey { case kind, pid, uid, name, host }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "client":
            self = .client(
                pid: try container.decode(Int32.self, forKey: .pid),
                uid: try container.decode(UInt32.self, forKey: .uid),
                name: try container.decodeIfPresent(String.self, forKey: .name)
            )
        case "file":
            self = .file(host: try container.decodeIfPresent(String.self, forKey: .host))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .kind,
                in: container,
                debugDescription: "unknown origin kind “\(other)”"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .client(let pid, let uid, let name):
            try container.encode("client", forKey: .kind)
            try container.encode(pid, forKey: .pid)
            try container.encode(uid, forKey: .uid)
            try container.encodeIfPresent(name, forKey: .name)
        case .file(let host):
            try container.encode("file", forKey: .kind)
            try container.encodeIfPresent(host, forKey: .host)
        }
    }
}
