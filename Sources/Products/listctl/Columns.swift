// Output that fits a terminal: how wide it is, and text cut to a column with "…".
import Glibc

enum Columns {
    /// The terminal's width when stdout is one (`COLUMNS` first, as shells set it), else nil.
    static var terminalWidth: Int? {
        if let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0 { return columns }
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The width of a column of `texts` that leaves `rest` columns for the rest of the line:
    /// the longest text's, but at most what the terminal leaves (40 when it is not one), and
    /// never under 12.
    static func width(of texts: [String], leaving rest: Int) -> Int {
        let room = terminalWidth.map { $0 - rest } ?? 40
        return min(texts.map(\.count).max() ?? 0, max(room, 12))
    }

    /// `text` padded to `width`, or cut to it with "…" at its end.
    static func fitted(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text + String(repeating: " ", count: width - text.count) }
        return String(text.prefix(max(width - 1, 0))) + "…"
    }
}
