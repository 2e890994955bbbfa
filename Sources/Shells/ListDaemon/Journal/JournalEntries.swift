import ListCore
import ListModel
import ListRPC
import Logging

/// Writes what the core reports to the journal, with structured fields: every entry about an
/// existing list carries `list_id` and `list_name` (journald: `LIST_ID`, `LIST_NAME`).
struct JournalEntries: Sendable {
    let output: JournalOutput
    /// Entries below this level are not made at all.
    let level: Logger.Level
    /// Where the lists are safe while the list file cannot be written (`ListPersistence.keptIn`).
    var keptIn = "the change log"
    /// Lines that repeat as long as a fault lasts, written at most once a second each.
    let repeats = RepeatedLinesGate()

    /// Writes `message` at `level` with `fields`, when the journal takes that level.
    private func log(_ level: Logger.Level, _ message: @autoclosure () -> String, _ fields: JournalLine? = nil) {
        guard self.level <= level else { return }
        var line = fields ?? JournalLine(level: level)
        line.level = level
        line.message = message()
        output.write(line)
    }

    func write(_ entry: JournalEntry) {
        switch entry {
        case .applied(let change): applied(change)
        case .remote(let change, let machine): applied(change, from: machine)
        case .denied(let error, let edit, let origin, let list):
            var fields = Self.fields(origin, list: list, edit: edit)
            fields["reason"] = "\(error.reason)"
            log(.notice, "denied: \(error.message) (by \(origin))", fields)
        case .deniedByDelegates(let question, let verdict, let origin, let list):
            var fields = Self.fields(origin, list: list, edit: nil)
            fields["reason"] = "deniedByDelegate"
            fields["denials"] = "\(verdict.denials.map { "\(Self.clip($0.delegate)): \(Self.clip($0.reason))" })"
            fields["timed_out"] = "\(verdict.timedOut)"
            log(.notice, "denied by delegates: \(question.rawValue) (by \(origin))", fields)
        case .fileRejected(let rejection):
            var fields = JournalLine(level: .warning)
            fields["origin"] = "file"
            fields["reason"] = "\(rejection.reason)"
            if let offset = rejection.byteOffset { fields["byte_offset"] = "\(offset)" }
            log(.warning, rejection.message, fields)
            for line in rejection.lines {
                // Line 0: a note about a whole list, not about a line.
                var fields = JournalLine(level: .warning)
                fields["origin"] = "file"
                fields["reason"] = "\(line.reason)"
                fields["text"] = Self.clip(line.text)
                if line.line > 0 { fields["line"] = "\(line.line)" }
                log(.warning, "not taken from the list file\(line.line > 0 ? ", line \(line.line)" : ""): \(line.message)", fields)
            }
        case .fileEmptied(let path, let deleted):
            log(
                .warning,
                "the list file \(path) was \(deleted ? "deleted" : "emptied"); writing the lists back. To remove a list, delete its heading and items from the file."
            )
        case .storageFailed(.shareUnavailable, 0):
            // Only a note of the list file, while the shared lists' server is gone (said once,
            // when it went): it is made again once the server is back.
            break
        case .storageFailed(.shareUnavailable(let server, _), let edits):
            guard let more = repeats.admit("shareUnavailable", edits: edits) else { return }
            log(.warning, "\(edits) edit(s) not applied: the shared lists at \(server) cannot be reached\(more)")
        case .storageFailed(let error, let edits):
            guard let more = repeats.admit("storageFailed", edits: edits) else { return }
            log(.error, "could not save the lists; \(edits) edit(s) not applied\(more)", Self.fields(error: error))
        case .inDoubt(let error, let edits):
            guard let more = repeats.admit("inDoubt", edits: edits) else { return }
            let server = if case .shareUnavailable(let server, _) = error { server } else { "the shared lists' server" }
            log(
                .warning,
                "\(edits) edit(s) may have been made: the shared lists at \(server) did not answer their COMMIT; their clients are answered once listd can ask it\(more)"
            )
        case .outcomeUnknown(let edits, let why):
            guard let more = repeats.admit("outcomeUnknown", edits: edits) else { return }
            log(.warning, "\(edits) edit(s) answered “outcome unknown”: \(why)\(more)")
        case .fileWriteFailed(let error):
            log(
                .error,
                "could not write the list file; the lists are safe in \(keptIn), and the write is tried again until it is made",
                Self.fields(error: error)
            )
        case .fileWrittenAgain(let path):
            log(.notice, "the list file \(path) is written again and shows the lists")
        case .fileSettled(let events, let span):
            guard level <= .debug else { return }
            var fields = JournalLine(level: .debug)
            fields["events"] = "\(events)"
            fields["save_span"] = "\(span)"
            log(.debug, "list file settled", fields)
        }
    }

    /// A change made here (at info level), or on another machine sharing the lists (`machine`,
    /// at debug level: that machine's journal has it in full).
    private func applied(_ change: ListChange, from machine: String? = nil) {
        let level: Logger.Level = machine == nil ? .info : .debug
        // Built only when it is written (the summary and fields cost more than the edit).
        guard self.level <= level else { return }
        var fields = Self.fields(change.origin, list: change.list, edit: nil)
        fields["revision"] = String(change.revision)
        if let machine { fields["machine"] = machine }
        // Every step's fields (a later step's win), and the last step's sentence: the one said.
        for step in change.steps {
            switch step {
            case .add(let item, _, _), .remove(let item), .check(let item), .uncheck(let item):
                fields["item"] = Self.clip(item)
            case .replace(let item, let with):
                fields["item"] = Self.clip(item)
                fields["replacement"] = with
            case .rename:
                break
            case .move(let item, _, let section):
                fields["item"] = Self.clip(item)
                fields["section"] = section
            case .addSection(let section), .removeSection(let section):
                fields["section"] = section
            case .renameSection(let from, let to):
                fields["section"] = from
                fields["new_section"] = to
            case .quantity(let item, let quantity):
                fields["item"] = Self.clip(item)
                fields["quantity"] = quantity ?? ""
            }
        }
        var summary = change.steps.last.map { Self.sentence($0, on: change.list.name) } ?? Self.sentence(change.kind, change.list.name)
        // A change of several items (a clear, an undone clear) names them all; one of one step,
        // nearly every change, needs neither list.
        let several = change.steps.count > 1
        let removed = !several ? [] : change.steps.compactMap { step -> String? in
            if case .remove(let item) = step { item } else { nil }
        }
        let added = !several ? [] : change.steps.compactMap { step -> String? in
            if case .add(let item, _, _) = step { item } else { nil }
        }
        if removed.count > 1 {
            // A clear: every item named, in one field.
            fields["item"] = nil
            fields["items"] = removed.joined(separator: "\n")
            summary = "removed \(removed.count) items from \(change.list.name)"
        } else if added.count > 1 {
            fields["item"] = nil
            fields["items"] = added.joined(separator: "\n")
            summary = "put \(added.count) items back on \(change.list.name)"
        }
        if let undoes = change.undoes {
            fields["undoes"] = String(undoes)
            summary += " (undoing change \(undoes))"
        }
        // One string, appended to: an interpolation of the sentence copied it once more.
        summary += " (revision "
        summary += String(change.revision)
        summary += ", by "
        summary += change.origin.description
        if let machine {
            summary += " on "
            summary += machine
        }
        summary += ")"
        log(level, summary, fields)
    }

    /// What a change with no steps did.
    private static func sentence(_ kind: ListChange.Kind, _ name: String) -> String {
        switch kind {
        case .created: "created list “\(name)”"
        case .deleted: "deleted list “\(name)”"
        case .renamed, .updated: "changed list “\(name)”"
        }
    }

    /// What `step` did to the list called `name`.
    private static func sentence(_ step: ListChange.Step, on name: String) -> String {
        switch step {
        case .add(let item, let quantity, let section):
            "added “\(item)”\(quantity.map { " (\($0))" } ?? "") to \(name)\(section.map { ", under \($0)" } ?? "")"
        case .remove(let item):
            "removed “\(item)” from \(name)"
        case .replace(let item, let with):
            "replaced “\(item)” with “\(with)” on \(name)"
        case .rename(let from, let to):
            "renamed list “\(from)” to “\(to)”"
        case .move(let item, let index, let section):
            "moved “\(item)” to place \(index + 1) on \(name)\(section.isEmpty ? "" : ", under \(section)")"
        case .addSection(let section):
            "added the section \(section) to \(name)"
        case .renameSection(let from, let to):
            "renamed the section \(from) of \(name) to \(to)"
        case .removeSection(let section):
            "removed the section \(section) from \(name)"
        case .quantity(let item, let quantity?):
            "set “\(item)” to \(quantity) on \(name)"
        case .quantity(let item, nil):
            "cleared the amount of “\(item)” on \(name)"
        case .check(let item):
            "checked “\(item)” on \(name)"
        case .uncheck(let item):
            "unchecked “\(item)” on \(name)"
        }
    }

    /// Text a client or a file gave, as the journal keeps it: its first 200 characters and its
    /// length when longer (a megabyte-long item, denied, must not cost a megabyte of journal).
    static func clip(_ text: String) -> String {
        let limit = 200
        guard text.utf8.count > limit, text.count > limit else { return text }
        return text.prefix(limit) + "… (\(text.count) characters)"
    }

    /// Who, which list (when it exists; else the name or id the edit gave), which item.
    private static func fields(_ origin: ChangeOrigin, list: ShoppingList?, edit: ListEdit?) -> JournalLine {
        var fields = JournalLine(level: .info)
        // Values as they are (an interpolation of one value cost a string builder per field).
        switch origin {
        case .client(let pid, let uid, let name):
            fields["origin"] = "client"
            fields["client_pid"] = String(pid)
            fields["client_uid"] = String(uid)
            if let name { fields["client_name"] = Self.clip(name) }
        case .file(let host):
            fields["origin"] = "file"
            if let host { fields["file_host"] = host }
        }
        if let list {
            fields["list_id"] = String(list.id)
            fields["list_name"] = Self.clip(list.name)
        } else if let target = edit?.target {
            switch target {
            case .id(let id): fields["list_id"] = String(id)
            case .name(let name): fields["list_name"] = Self.clip(name)
            }
        }
        switch edit {
        case .addItem(let item, _, _, _, _)?, .removeItem(let item, _)?, .replaceItem(let item, _, _)?,
            .moveItem(let item, _, _, _)?, .checkItem(let item, _)?, .uncheckItem(let item, _)?,
            .moveItemInto(let item, _, _, _)?, .setQuantity(let item, _, _)?:
            fields["item"] = Self.clip(item)
        default: break
        }
        return fields
    }

    /// An entry's `error` field.
    private static func fields(error: any Error) -> JournalLine {
        var fields = JournalLine(level: .error)
        fields["error"] = "\(error)"
        return fields
    }
}
