/// Who made a change: a connected client (identified by the kernel, not by its word) or the
/// list file edited by a person.
public enum ChangeOrigin: Hashable, Sendable {
    case client(pid: Int32, uid: UInt32, name: String?)
    /// A person's save of the list file; `host` names the machine it was saved on when the
    /// lists are shared between machines (`listd --share`).
    case file(host: String?)

    /// A person's save of this listd's list file.
    public static var file: ChangeOrigin { .file(host: nil) }
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
