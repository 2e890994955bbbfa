// A list file's bytes before they are text: a digest that tells two files apart, and where the
// first byte that is not UTF-8 is.

/// 64-bit FNV-1a of `bytes`, in hex: tells two files apart, not a security measure.
package func digest(_ bytes: [UInt8]) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return "fnv1a64:" + String(hash, radix: 16) + ":\(bytes.count)"
}

/// Offset of the first byte that is not part of valid UTF-8, for error messages.
package func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar): offset += scalar.count
        case .emptyInput, .error: return offset
        }
    }
}
