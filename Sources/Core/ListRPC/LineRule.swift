// Newline-delimited JSON-RPC's framing rule, on bytes alone: where the next line ends, without its
// `\r\n` or `\n`, and whether it is over the cap. The daemon's NIO decoder and the blocking
// client both cut lines by it.

/// One JSON-RPC message per `\n`-terminated line (a `\r` before the `\n` is dropped), with a cap
/// so that a peer that never sends a newline cannot grow memory without bound.
package enum LineRule {
    /// Default cap on one line: 1 MiB.
    package static let defaultMaximumLineLength = 1 << 20

    package enum Cut<Index: Comparable>: Equatable {
        /// A line (`text`, without its terminator); the next one starts at `next`.
        case line(text: Range<Index>, next: Index)
        /// No newline yet, and what waits is within the cap.
        case needMoreData
        /// The line is longer than the cap (whether or not its newline came yet).
        case tooLong
    }

    /// The first line of `bytes`. `searchFrom`: the bytes before it are known to hold no newline
    /// (a reader that appends to what it searched already need not search it again). Inlinable:
    /// specialized for each caller's bytes (unspecialized, every byte was a generic call).
    @inlinable
    package static func cut<Bytes: BidirectionalCollection>(
        _ bytes: Bytes,
        maximumLength: Int = defaultMaximumLineLength,
        searchFrom: Bytes.Index? = nil
    ) -> Cut<Bytes.Index> where Bytes.Element == UInt8 {
        guard let newline = bytes[(searchFrom ?? bytes.startIndex)...].firstIndex(of: UInt8(ascii: "\n")) else {
            return bytes.count > maximumLength ? .tooLong : .needMoreData
        }
        var end = newline
        if end > bytes.startIndex, bytes[bytes.index(before: end)] == UInt8(ascii: "\r") { end = bytes.index(before: end) }
        guard bytes.distance(from: bytes.startIndex, to: end) <= maximumLength else { return .tooLong }
        return .line(text: bytes.startIndex..<end, next: bytes.index(after: newline))
    }
}
