// One journal entry as listd makes it — a level, a message, its fields in the order they were set —
// and where such entries go: journald natively, or stderr's readable lines, as listd's log does.
// The fields are a short array, not swift-log's `Logger.Metadata`: listd writes an entry per edit,
// and those dictionaries (a dozen keys hashed, then sorted) came to a tenth of the loop's CPU in
// issue 49's profile.
import Logging
import Systemd

/// One entry of the journal.
struct JournalLine {
    var level: Logger.Level
    var message = ""
    /// Each name once, in the order first set.
    private(set) var fields: [(name: String, value: String)] = []

    init(level: Logger.Level) {
        self.level = level
        fields.reserveCapacity(12)
    }

    /// A field's value; setting nil removes it.
    subscript(name: String) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            if let index = fields.firstIndex(where: { $0.name == name }) {
                if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((name, newValue))
            }
        }
    }
}

/// Where the journal's entries go: where listd's log goes, chosen once at start.
package enum JournalOutput: Sendable {
    /// journald, natively (`sd_journal_sendv`), with the fields `JournalLogHandler` gives an
    /// entry: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, CODE_FILE/LINE/FUNC, then every field named in
    /// upper case (`list_name` → `LIST_NAME`).
    case journald(identifier: String)
    /// Readable lines on stderr (or the descriptor `lines` writes to), in `StderrLogHandler`'s
    /// layout.
    case stderr(label: String, lines: StderrLines)

    func write(_ entry: JournalLine, file: String = #fileID, function: String = #function, line: UInt = #line) {
        switch self {
        case .journald(let identifier):
            var fields = [
                "MESSAGE=\(entry.message)",
                "PRIORITY=\(JournalLogHandler.priority(entry.level))",
                "SYSLOG_IDENTIFIER=\(identifier)",
                "CODE_FILE=\(file)",
                "CODE_LINE=\(line)",
                "CODE_FUNC=\(function)",
            ]
            fields.reserveCapacity(fields.count + entry.fields.count)
            for field in entry.fields { fields.append("\(JournalLogHandler.fieldName(field.name))=\(field.value)") }
            // A journal that is gone cannot be told so; there is nowhere better to report it.
            try? JournalLogHandler.send(fields)
        case .stderr(let label, let lines):
            // The module, as swift-log's `source` is: the #fileID up to its first slash.
            let source = file.utf8.firstIndex(of: UInt8(ascii: "/")).map { file[..<$0] } ?? file[...]
            let stamp = lines.timestamp()
            lines.write { bytes in
                StderrLogHandler.appendLine(
                    to: &bytes,
                    stamp: stamp,
                    level: entry.level,
                    label: label,
                    fields: entry.fields.sorted { $0.name < $1.name },
                    source: source,
                    message: entry.message
                )
            }
        }
    }
}
