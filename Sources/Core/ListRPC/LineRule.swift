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

    /// The first line of `bytes`, by offsets into them. `searchFrom`: the bytes before it are known
    /// to hold no newline (a reader that appends to what it searched already need not search it
    /// again). Not generic: both readers hand it their bytes as they lie in memory, so the search
    /// is a loop over bytes wherever it is called from (a generic one, which other modules did not
    /// specialize, made a generic call for every byte).
    package static func cut(
        _ bytes: UnsafeRawBufferPointer,
        maximumLength: Int = defaultMaximumLineLength,
        searchFrom: Int = 0
    ) -> Cut<Int> {
        guard let newline = bytes[min(searchFrom, bytes.count)...].firstIndex(of: UInt8(ascii: "\n")) else {
            return bytes.count > maximumLength ? .tooLong : .needMoreData
        }
        var end = newline
        if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end <= maximumLength else { return .tooLong }
        return .line(text: 0..<end, next: newline + 1)
    }

    /// The first line of `bytes`, by their own indices (the blocking client's buffer).
    package static func cut(
        _ bytes: ArraySlice<UInt8>,
        maximumLength: Int = defaultMaximumLineLength,
        searchFrom: Int? = nil
    ) -> Cut<Int> {
        let start = bytes.startIndex
        let cut = bytes.withUnsafeBytes { raw -> Cut<Int> in
            LineRule.cut(raw, maximumLength: maximumLength, searchFrom: (searchFrom ?? start) - start)
        }
        guard case .line(let text, let next) = cut else { return cut }
        return .line(text: (text.lowerBound + start)..<(text.upperBound + start), next: next + start)
    }
}
