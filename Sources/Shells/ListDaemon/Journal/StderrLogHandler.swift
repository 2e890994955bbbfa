// listd's readable log lines on stderr (`--log stderr`, or run by hand): the layout of swift-log's
// StreamLogHandler, but the lines of one pass's journal go out together, in one write(2)
// (`StderrLines.batch`), instead of one write per line.
import Glibc
import ListCore
import Logging
import Synchronization

/// Writes each log event as one line on stderr: `time level label: key=value … [source] message`.
package struct StderrLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    private let label: String
    private let lines: StderrLines

    package init(label: String) {
        self.init(label: label, lines: .shared)
    }

    init(label: String, lines: StderrLines) {
        self.label = label
        self.lines = lines
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        // A change's line brings its fields and the handler has none: no merged copy to make.
        var fields = event.metadata ?? [:]
        if !metadata.isEmpty {
            fields = metadata.merging(fields) { $1 }
        }
        let stamp = lines.timestamp()
        let message = "\(event.message)"
        lines.write { bytes in
            Self.appendLine(
                to: &bytes,
                stamp: stamp,
                level: event.level,
                label: label,
                fields: fields.sorted(by: { $0.key < $1.key }).lazy.map { (name: $0.key, value: $0.value.description) },
                source: event.source,
                message: message
            )
        }
    }

    /// One line, fields in the order given, appended as bytes where it is written from (the
    /// journal's entries are formatted here too: one per change, so no `String` is built for it).
    static func appendLine(
        to bytes: inout [UInt8],
        stamp: String,
        level: Logger.Level,
        label: String,
        fields: some Sequence<(name: String, value: String)>,
        source: some StringProtocol,
        message: String
    ) {
        bytes.append(contentsOf: stamp.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: level.rawValue.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: label.utf8)
        bytes.append(UInt8(ascii: ":"))
        for (key, value) in fields {
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: key.utf8)
            bytes.append(UInt8(ascii: "="))
            appendOnOneLine(value, to: &bytes)
        }
        bytes.append(contentsOf: " [".utf8)
        bytes.append(contentsOf: source.utf8)
        bytes.append(contentsOf: "] ".utf8)
        appendOnOneLine(message, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// `text` with its control characters written out (`\n`, `\r`, `\t`, `\x1b`…): an entry is
    /// one line (a clear's `items` field names one item per line for journald), and text a client
    /// sent — an item refused for holding ESC, say — cannot move a terminal's cursor or colour
    /// the lines around it. C1 controls (U+0080–U+009F) are written out too.
    private static func appendOnOneLine(_ text: String, to bytes: inout [UInt8]) {
        // Appended, then searched: nearly every text has none, and a search of the string's view
        // byte by byte cost more than the rest of the line.
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        let plain = bytes.withUnsafeBufferPointer { all in
            var index = start
            while index < all.count {
                let byte = all[index]
                // 0xC2 then 0x80–0x9F: a C1 control in UTF-8.
                if byte < 0x20 || byte == 0x7F || (byte == 0xC2 && index + 1 < all.count && all[index + 1] < 0xA0) {
                    return false
                }
                index += 1
            }
            return true
        }
        guard !plain else { return }
        bytes.removeSubrange(start...)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20, 0x7F..<0xA0:
                let hex = String(scalar.value, radix: 16)
                bytes.append(contentsOf: (#"\x"# + (hex.count == 1 ? "0" : "") + hex).utf8)
            default: bytes.append(contentsOf: String(scalar).utf8)
            }
        }
    }
}

/// Where `StderrLogHandler`'s lines go: straight to stderr, or, while a batch is open, held and
/// written with the batch's others when it closes (lines other threads log meanwhile join it:
/// they go out a few microseconds later, in the order they were logged).
package final class StderrLines: Sendable {
    package static let shared = StderrLines(descriptor: STDERR_FILENO)

    /// Where the lines are written (stderr; a test's pipe).
    private let descriptor: Int32

    private struct State {
        var openBatches = 0
        var held: [UInt8] = []
        /// The last second formatted, and its text: lines of the same second share it.
        var second = -1
        var stamp = ""
    }
    private let state = Mutex(State())

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Runs `body`; the lines it logs are written together when it returns.
    package func batch(_ body: () -> Void) {
        state.withLock { $0.openBatches += 1 }
        body()
        state.withLock { state in
            state.openBatches -= 1
            guard state.openBatches == 0, !state.held.isEmpty else { return }
            writeAll(state.held)
            state.held.removeAll(keepingCapacity: true)
        }
    }

    /// Writes the line `build` appends: into the open batch's bytes, or at once.
    func write(_ build: (inout [UInt8]) -> Void) {
        state.withLock { state in
            if state.openBatches > 0 {
                build(&state.held)
            } else {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(256)
                build(&bytes)
                writeAll(bytes)
            }
        }
    }

    /// Local time to the second, with its offset (`2026-11-26T18:40:51+0000`).
    func timestamp() -> String {
        let now = time(nil)
        if let stamp = state.withLock({ $0.second == now ? $0.stamp : nil }) { return stamp }
        var clock = now
        var local = tm()
        // localtime_r, not localtime: the latter looks at the time zone file again on every call.
        guard localtime_r(&clock, &local) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        let stamp = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        state.withLock { state in
            state.second = now
            state.stamp = stamp
        }
        return stamp
    }

    /// Writes all of `bytes`; a stderr that is gone (or failing) loses them, as there is nowhere
    /// better to say so.
    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
