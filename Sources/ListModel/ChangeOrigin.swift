/// Who made a change: a connected client (identified by the kernel, not by its word) or the
/// list file edited by a person.
public enum ChangeOrigin: Hashable, Sendable {
    case client(pid: Int32, uid: UInt32, name: String?)
    case file
}

extension ChangeOrigin: CustomStringConvertible {
    public var description: String {
        switch self {
        case .client(let pid, let uid, let name?):
            "\(name) (pid \(pid), uid \(uid))"
        case .client(let pid, let uid, nil):
            "pid \(pid) (uid \(uid))"
        case .file:
            "the list file"
        }
    }
}

extension ChangeOrigin: Codable {
    private enum CodingKeys: String, CodingKey { case kind, pid, uid, name }

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
            self = .file
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
        case .file:
            try container.encode("file", forKey: .kind)
        }
    }
}
