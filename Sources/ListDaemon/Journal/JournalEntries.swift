import ListCore
import ListModel
import ListRPC
import Logging

/// Writes what the core reports to the journal, with structured fields: every entry about an
/// existing list carries `list_id` and `list_name` (journald: `LIST_ID`, `LIST_NAME`).
struct JournalEntries: Sendable {
    let logger: Logger

    func write(_ entry: JournalEntry) {
        switch entry {
        case .applied(let change): applied(change)
        case .remote(let change, let machine): applied(change, from: machine)
        case .denied(let error, let edit, let origin, let list):
            var metadata = Self.metadata(origin, list: list, edit: edit)
            metadata["reason"] = "\(error.reason)"
            logger.notice("denied: \(error.message) (by \(origin))", metadata: metadata)
        case .deniedByDelegates(let question, let verdict, let origin, let list):
            var metadata = Self.metadata(origin, list: list, edit: nil)
            metadata["reason"] = "deniedByDelegate"
            metadata["denials"] = "\(verdict.denials.map { "\(Self.clip($0.delegate)): \(Self.clip($0.reason))" })"
            metadata["timed_out"] = "\(verdict.timedOut)"
            logger.notice("denied by delegates: \(question.rawValue) (by \(origin))", metadata: metadata)
        case .fileRejected(let rejection):
            var metadata: Logger.Metadata = ["origin": "file", "reason": "\(rejection.reason)"]
            if let offset = rejection.byteOffset { metadata["byte_offset"] = "\(offset)" }
            logger.warning("\(rejection.message)", metadata: metadata)
            for line in rejection.lines {
                // Line 0: a note about a whole list, not about a line.
                var metadata: Logger.Metadata = ["origin": "file", "reason": "\(line.reason)", "text": "\(Self.clip(line.text))"]
                if line.line > 0 { metadata["line"] = "\(line.line)" }
                logger.warning(
                    "not taken from the list file\(line.line > 0 ? ", line \(line.line)" : ""): \(line.message)",
                    metadata: metadata
                )
            }
        case .fileEmptied(let path, let deleted):
            logger.warning(
                "the list file \(path) was \(deleted ? "deleted" : "emptied"); writing the lists back. To remove a list, delete its heading and items from the file."
            )
        case .storageFailed(.shareUnavailable, 0):
            // Only a note of the list file, while the shared lists' server is gone (said once,
            // when it went): it is made again once the server is back.
            break
        case .storageFailed(.shareUnavailable(let server, _), let edits):
            logger.warning("\(edits) edit(s) not applied: the shared lists at \(server) cannot be reached")
        case .storageFailed(let error, let edits):
            logger.error("could not save the lists; \(edits) edit(s) not applied", metadata: ["error": "\(error)"])
        case .fileWriteFailed(let error):
            logger.error(
                "could not write the list file; the lists are safe in the change log, and the write is tried again until it is made",
                metadata: ["error": "\(error)"]
            )
        case .fileWrittenAgain(let path):
            logger.notice("the list file \(path) is written again and shows the lists")
        case .snapshotMayNameFile(let events, let span):
            logger.debug("list file settled", metadata: ["events": "\(events)", "save_span": "\(span)"])
        }
    }

    /// A change made here (at info level), or on another machine sharing the lists (`machine`,
    /// at debug level: that machine's journal has it in full).
    private func applied(_ change: ListChange, from machine: String? = nil) {
        let level: Logger.Level = machine == nil ? .info : .debug
        // Built only when it is written (the summary and fields cost more than the edit).
        guard logger.logLevel <= level else { return }
        var metadata = Self.metadata(change.origin, list: change.list, edit: nil)
        metadata["revision"] = "\(change.revision)"
        if let machine { metadata["machine"] = "\(machine)" }
        var summary: String
        switch change.kind {
        case .created: summary = "created list “\(change.list.name)”"
        case .deleted: summary = "deleted list “\(change.list.name)”"
        case .renamed, .updated: summary = "changed list “\(change.list.name)”"
        }
        for step in change.steps {
            switch step {
            case .add(let item, let quantity, let section):
                metadata["item"] = "\(Self.clip(item))"
                summary = "added “\(item)”\(quantity.map { " (\($0))" } ?? "") to \(change.list.name)\(section.map { ", under \($0)" } ?? "")"
            case .remove(let item):
                metadata["item"] = "\(Self.clip(item))"
                summary = "removed “\(item)” from \(change.list.name)"
            case .replace(let item, let with):
                metadata["item"] = "\(Self.clip(item))"
                metadata["replacement"] = "\(with)"
                summary = "replaced “\(item)” with “\(with)” on \(change.list.name)"
            case .rename(let from, let to):
                summary = "renamed list “\(from)” to “\(to)”"
            case .move(let item, let index, let section):
                metadata["item"] = "\(Self.clip(item))"
                metadata["section"] = "\(section)"
                summary = "moved “\(item)” to place \(index + 1) on \(change.list.name)\(section.isEmpty ? "" : ", under \(section)")"
            case .addSection(let section):
                metadata["section"] = "\(section)"
                summary = "added the section \(section) to \(change.list.name)"
            case .renameSection(let from, let to):
                metadata["section"] = "\(from)"
                metadata["new_section"] = "\(to)"
                summary = "renamed the section \(from) of \(change.list.name) to \(to)"
            case .removeSection(let section):
                metadata["section"] = "\(section)"
                summary = "removed the section \(section) from \(change.list.name)"
            case .quantity(let item, let quantity):
                metadata["item"] = "\(Self.clip(item))"
                metadata["quantity"] = "\(quantity ?? "")"
                summary = quantity.map { "set “\(item)” to \($0) on \(change.list.name)" } ?? "cleared the amount of “\(item)” on \(change.list.name)"
            case .check(let item):
                metadata["item"] = "\(Self.clip(item))"
                summary = "checked “\(item)” on \(change.list.name)"
            case .uncheck(let item):
                metadata["item"] = "\(Self.clip(item))"
                summary = "unchecked “\(item)” on \(change.list.name)"
            }
        }
        let removed = change.steps.compactMap { step -> String? in
            if case .remove(let item) = step { item } else { nil }
        }
        let added = change.steps.compactMap { step -> String? in
            if case .add(let item, _, _) = step { item } else { nil }
        }
        if removed.count > 1 {
            // A clear: every item named, in one field.
            metadata["item"] = nil
            metadata["items"] = "\(removed.joined(separator: "\n"))"
            summary = "removed \(removed.count) items from \(change.list.name)"
        } else if added.count > 1 {
            metadata["item"] = nil
            metadata["items"] = "\(added.joined(separator: "\n"))"
            summary = "put \(added.count) items back on \(change.list.name)"
        }
        if let undoes = change.undoes {
            metadata["undoes"] = "\(undoes)"
            summary += " (undoing change \(undoes))"
        }
        let elsewhere = machine.map { " on \($0)" } ?? ""
        logger.log(level: level, "\(summary) (revision \(change.revision), by \(change.origin)\(elsewhere))", metadata: metadata)
    }

    /// Text a client or a file gave, as the journal keeps it: its first 200 characters and its
    /// length when longer (a megabyte-long item, denied, must not cost a megabyte of journal).
    static func clip(_ text: String) -> String {
        let limit = 200
        guard text.utf8.count > limit, text.count > limit else { return text }
        return text.prefix(limit) + "… (\(text.count) characters)"
    }

    /// Who, which list (when it exists; else the name or id the edit gave), which item.
    private static func metadata(_ origin: ChangeOrigin, list: ShoppingList?, edit: ListEdit?) -> Logger.Metadata {
        // Room for every field a line has, so the dictionary is not grown as they are added.
        var metadata: Logger.Metadata = [:]
        metadata.reserveCapacity(12)
        switch origin {
        case .client(let pid, let uid, let name):
            metadata["origin"] = "client"
            metadata["client_pid"] = "\(pid)"
            metadata["client_uid"] = "\(uid)"
            if let name { metadata["client_name"] = "\(Self.clip(name))" }
        case .file(let host):
            metadata["origin"] = "file"
            if let host { metadata["file_host"] = "\(host)" }
        }
        if let list {
            metadata["list_id"] = "\(list.id)"
            metadata["list_name"] = "\(Self.clip(list.name))"
        } else if let target = edit?.target {
            switch target {
            case .id(let id): metadata["list_id"] = "\(id)"
            case .name(let name): metadata["list_name"] = "\(Self.clip(name))"
            }
        }
        switch edit {
        case .addItem(let item, _, _, _, _)?, .removeItem(let item, _)?, .replaceItem(let item, _, _)?,
            .moveItem(let item, _, _, _)?, .checkItem(let item, _)?, .uncheckItem(let item, _)?,
            .moveItemInto(let item, _, _, _)?, .setQuantity(let item, _, _)?:
            metadata["item"] = "\(Self.clip(item))"
        default: break
        }
        return metadata
    }
}
