// What passes between the core and the file shell: a read asked for and its content, a rewrite
// rendered, and how its replacement ended.
import ListFileFormat
import ListModel

/// What a read of the list file is checked against: the lists the file last showed (`known`),
/// the kept history (the lists at any revision a save's headings name) and the texts of the file
/// that were on disk lately (listd's and saves'), one of which a person's editor may hold.
package struct FileReadRequest: Sendable {
    package var known: ListBook
    package var history: ChangeHistory? = nil
    package var versions: [FileVersion] = []
    /// The name this listd gives itself in its notes (`ListDocument.noteTag`): a heading whose
    /// note another listd wrote is read as one without a note. nil: every note is taken.
    package var tag: String? = nil
    /// The revisions of saves taken in that are no longer among `versions` (`SaveBase.base`).
    package var forgottenSaves: Set<Revision> = []

    package init(
        known: ListBook,
        history: ChangeHistory? = nil,
        versions: [FileVersion] = [],
        tag: String? = nil,
        forgottenSaves: Set<Revision> = []
    ) {
        self.known = known
        self.history = history
        self.versions = versions
        self.tag = tag
        self.forgottenSaves = forgottenSaves
    }
}

/// The list file as the file shell read it.
package enum FileContent: Sendable {
    case missing
    /// Its bytes; `reading` is nil when they are not UTF-8 text. `known` is the lists the
    /// reading was tied to (the core asks again when its own view moved meanwhile); `edits`, the
    /// save's edits, when the shell computed them.
    case bytes([UInt8], reading: ListFileReading?, known: ListBook, edits: SaveEdits?)
}

extension FileContent {
    /// The file is there and holds nothing but white space (or nothing).
    var isBlank: Bool {
        guard case .bytes(let bytes, _, _, _) = self else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
    }
}

/// A person's save as the file shell read it: its edits from the version the person's editor
/// read (`base`), computed off the owner's loop (a big save's diff never stalls it).
package struct SaveEdits: Sendable {
    package var base: SaveBase
    package var edits: [FileEdit]

    package init(base: SaveBase, edits: [FileEdit]) {
        self.base = base
        self.edits = edits
    }
}

/// A rewrite of the list file the core asked for, rendered by the file shell.
package struct RenderedFile: Sendable {
    package var bytes: [UInt8]
    package var reading: ListFileReading
    /// The lists it shows.
    package var book: ListBook

    package init(bytes: [UInt8], reading: ListFileReading, book: ListBook) {
        self.bytes = bytes
        self.reading = reading
        self.book = book
    }
}

/// How a write of the list file ended.
package enum FileReplaceOutcome: Sendable {
    case written
    /// A person saved meanwhile: nothing was written; their save is read next.
    case changedWhileWriting
    case failed(DaemonError)
}
