// The secrets a paired device holds and what listd-web keeps of them: a token only the device
// has, and its SHA-256, which is all that is written to disk.
import Crypto

package enum DeviceTokens {
    /// `byteCount` random bytes (the system's generator: getrandom(2)) as base64url without
    /// padding: fit for a cookie, a URL fragment, a file.
    package static func random(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64URL(bytes)
    }

    /// The token's SHA-256 in hex: what the device file keeps, and how a request is matched.
    package static func hash(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for byte in chunk { value = value << 8 | Int(byte) }
            value <<= 8 * (3 - chunk.count)
            for position in 0...chunk.count {
                out.append(alphabet[(value >> (18 - 6 * position)) & 63])
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
