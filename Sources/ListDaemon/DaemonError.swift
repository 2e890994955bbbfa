/// Why listd cannot start or keep going, each with a sentence a person can act on.
public enum DaemonError: Error, CustomStringConvertible, Sendable {
    case alreadyRunning(socketPath: String)
    case socketPathOccupied(socketPath: String)
    case cannotCreateDirectory(path: String, errno: Int32)
    case cannotReadListFile(path: String, errno: Int32)
    case listFileNotUTF8(path: String, byteOffset: Int)
    case listFileHasErrors(path: String, problems: [String])
    case cannotWriteListFile(path: String, step: String, errno: Int32)

    public var description: String {
        switch self {
        case .alreadyRunning(let path):
            "another listd is already serving \(path); stop it first, or give this one another --socket"
        case .socketPathOccupied(let path):
            "\(path) exists and is not a socket; listd will not remove it, move it away or choose another --socket"
        case .cannotCreateDirectory(let path, let errno):
            "cannot create the directory \(path): \(errorText(errno))"
        case .cannotReadListFile(let path, let errno):
            "cannot read the list file \(path): \(errorText(errno))"
        case .listFileNotUTF8(let path, let offset):
            "the list file \(path) is not UTF-8 text (first bad byte at offset \(offset)); listd will not overwrite it, fix or move it"
        case .listFileHasErrors(let path, let problems):
            "the list file \(path) breaks the list rules, and listd will not drop what you typed; fix these lines:\n  "
                + problems.joined(separator: "\n  ")
        case .cannotWriteListFile(let path, let step, let errno):
            "cannot save the list file \(path) (\(step)): \(errorText(errno))"
        }
    }
}
