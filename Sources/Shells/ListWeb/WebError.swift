// What goes wrong in listd-web, each with the sentence a person reads.
import ListRPC
import ListWebProtocol

package enum WebError: Error, Sendable, Equatable, CustomStringConvertible {
    case deviceFileUnreadable(path: String, detail: String)
    case deviceFileUnwritable(path: String, detail: String)
    case pairingCodeUnknown
    case pairingCodeExpired
    case tooManyPairingAttempts
    case noSuchDevice(String)
    case ambiguousDevice(String, ids: [String])
    case invalidDeviceName(String)
    case deviceNameTaken(String)

    package var description: String {
        switch self {
        case .deviceFileUnreadable(let path, let detail):
            "listd-web cannot read its device file \(path) (\(detail)). Fix or remove it; removing it unpairs every device."
        case .deviceFileUnwritable(let path, let detail):
            "listd-web cannot write its device file \(path): \(detail)."
        case .pairingCodeUnknown:
            "This pairing link is not valid, or was used already. Run “listctl web pair NAME” again on the computer and open the new link."
        case .pairingCodeExpired:
            "This pairing link has expired (links last \(Int(PairingCodes.validity.components.seconds / 60)) minutes). Run “listctl web pair NAME” again."
        case .tooManyPairingAttempts:
            "Too many wrong pairing links lately; pairing is refused for a minute."
        case .noSuchDevice(let reference):
            "No paired device is called or has the id “\(reference)” (see “listctl web devices”)."
        case .ambiguousDevice(let name, let ids):
            "Several devices are called “\(name)”; name one by its id: \(ids.joined(separator: ", "))."
        case .invalidDeviceName(let name):
            "“\(name)” cannot name a device: give one line of 1 to 100 characters that are all printed (no zero-width, direction or control characters)."
        case .deviceNameTaken(let name):
            "A device called “\(name)” is paired already: give this one another name, or unpair that one first (listctl web revoke “\(name)”)."
        }
    }

    /// The error as the control socket replies it.
    var rpcError: RPCError {
        switch self {
        case .noSuchDevice: RPCError(code: WebControlError.noSuchDevice, message: description)
        case .ambiguousDevice: RPCError(code: WebControlError.ambiguousDevice, message: description)
        case .invalidDeviceName, .deviceNameTaken: RPCError(code: WebControlError.invalidName, message: description)
        default: RPCError(code: RPCError.Code.internalError, message: description)
        }
    }
}
