// Two notices in the model's words, which the core makes and the protocol sends as they are: the
// lines of a save listd did not take (FileRejectionParams), and whose changes a subscriber wants
// told (OriginFilter).

/// The params of `didRejectFileEdit`: what in a person's save of the list file was not taken.
public struct FileRejectionParams: Codable, Sendable, Hashable {
    /// A line of the save that was not taken, and why.
    public struct RejectedLine: Codable, Sendable, Hashable {
        /// 1-based line number in the file as the person saved it.
        public var line: Int
        /// The line as the person typed it.
        public var text: String
        /// A stable word: `itemExists`, `invalidItem`, `listExists`, `itemOutsideList`, …
        public var reason: String
        /// Why, in a sentence for the person.
        public var message: String

        /// A line not taken.
        public init(line: Int, text: String, reason: String, message: String) {
            self.line = line
            self.text = text
            self.reason = reason
            self.message = message
        }
    }

    /// `linesNotTaken` (some lines broke a rule; the rest was applied) or `fileInvalid` (the file
    /// is not UTF-8 text; nothing was applied and listd will not write it until it is fixed).
    public var reason: String
    /// What happened, in a sentence.
    public var message: String
    /// Each line not taken (for `fileInvalid`, the line with the first byte that is not UTF-8).
    public var lines: [RejectedLine]
    /// For `fileInvalid`: the offset of the first byte that is not UTF-8.
    public var byteOffset: Int?

    /// A save not taken, wholly or in part.
    public init(reason: String, message: String, lines: [RejectedLine], byteOffset: Int? = nil) {
        self.reason = reason
        self.message = message
        self.lines = lines
        self.byteOffset = byteOffset
    }
}

/// Whose changes a subscription hears (`subscribe {origin}`): everyone's, only its own author's
/// (`mine`: the same user and `hello` name), or only others'.
public enum OriginFilter: String, Sendable, CaseIterable {
    /// Everyone's changes (the default).
    case any
    /// Only this connection's author's: the same user and `hello` name.
    case mine
    /// Only changes made by anyone else (a person's save of the list file included).
    case others
}
