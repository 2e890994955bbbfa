// What the core knows of the list file: what it shows, the versions kept, what is under way.
import ListFileFormat
import ListModel

/// What the core knows of the list file.
package struct FileState: Sendable {
    /// The file as listd last read or wrote it, tied to list ids.
    var reading: ListFileReading?
    /// Its exact bytes: a read that finds the same bytes is listd's own write (no echo).
    package internal(set) var bytes: [UInt8]?
    /// The lists the file at `bytes` shows. A save's edits are computed from these.
    package internal(set) var shown = ListBook()
    /// Lines of `reading` not taken, marked when the file is next written.
    var rejected: [Int: String] = [:]
    /// What a save asked that was not done and has no line of its own (a removal), as comments
    /// written under the list's heading when the file is next written.
    var notes: [ListID: [String]] = [:]
    /// The texts of the file that were on disk lately, oldest first: each listd wrote and each
    /// save it took in (which stays on disk with the `rev=` it was made from when it shows the
    /// lists). A save is read against the lists of the `rev=` its headings name, from the history,
    /// or one of these saves when it was made from it (`SaveBase.madeFrom`).
    var versions: [FileVersion] = []
    /// How many are kept in memory (`CoreLimits.keptFileVersions`).
    var keptVersions: Int
    /// The revisions (`rev=`) of saves taken in that are no longer kept (`ListCore.remember`): a
    /// copy made from such a revision may have been read from one of them, so its base is not
    /// known (`SaveBase.base`).
    var forgottenSaves: Set<Revision> = []
    /// The note of a file listd wrote that no append has carried yet: it rides the next one.
    var noteDue: LogEntry?
    /// The file does not show the durable lists (or lacks marks): write it.
    var dirty = false
    /// When it became dirty, and when the durable lists last changed: the file is written once
    /// they have been left alone `ListCore.fileWriteDelay`, or `ListCore.longestFileLag` after it
    /// became dirty while edits keep coming (`scheduleWrite`).
    var dirtySince: ContinuousClock.Instant?
    var changedAt: ContinuousClock.Instant?
    /// Set while the file is not UTF-8: edits are denied so the file is not clobbered.
    package internal(set) var invalidOffset: Int?
    /// The 1-based line that byte is on (what a person sees in an editor).
    package internal(set) var invalidLine = 0
    /// The invalid content already reported, so it is reported once.
    var reportedInvalid: [UInt8]?
    /// When the file was first seen empty (a truncate whose write has not come yet).
    var emptySince: ContinuousClock.Instant?
    /// A read is under way.
    package internal(set) var readInFlight = false
    /// A read was asked for while something stood in its way (`requestRead`): read after it.
    package internal(set) var readWanted = false
    package internal(set) var writeInFlight = false
    var writeScheduled = false
    /// Why the last writes of the file failed, and how many failed in a row: retried with a
    /// backoff, and STATUS says so meanwhile.
    package internal(set) var writeFailure: DaemonError?
    var writeFailures = 0
    /// Writes refused in a row because the file was not as listd last saw it, and when the next
    /// may be tried: whatever keeps refusing them is not raced in a loop of reads and writes.
    var writesRefused = 0
    var refusedUntil: ContinuousClock.Instant?
    /// When a person's save is over (the watcher's reports, the quiet period).
    var settle: SettleTracker
    /// A person's save was seen before an edit came, and is not read yet: edits wait for it.
    var saveUnderway = false
    /// A save could not be made durable because the shared lists' server is unreachable
    /// (`--share`): the file is neither read again nor written until it is back (`storeStatusChanged`),
    /// so the person's save is taken in then, through the rules, and not overwritten meanwhile.
    var heldForStore = false

    mutating func markDirty() { dirty = true }

    /// A text of the file was on disk (listd wrote it, or a save was taken in).
    /// Returns the ones it no longer keeps: listd's own older texts first (the history gives
    /// their lists back, and a copy of one is read against them written anew: `SaveBase.madeFrom`),
    /// then the oldest saves, which nothing else holds.
    @discardableResult
    mutating func remember(_ version: FileVersion) -> [FileVersion] {
        versions.append(version)
        var dropped: [FileVersion] = []
        while versions.count > keptVersions {
            let written = versions.indices.filter { !versions[$0].isSave }
            dropped.append(versions.remove(at: written.count > 1 ? written[0] : 0))
        }
        return dropped
    }

    /// Forgets what names revisions older than the history keeps: a copy made from one is read
    /// by its content anyway.
    mutating func forgetSaves(before oldest: Revision) {
        if forgottenSaves.contains(where: { $0 < oldest }) { forgottenSaves = forgottenSaves.filter { $0 >= oldest } }
    }

    /// Back to what the file was known to show before a save was taken in (its append failed),
    /// keeping what is under way now: reads and writes in flight, a write's timer, a person's
    /// further save being made and the edits held for it, the store's hold, the write failures.
    /// Those flags stand for actions out there; their values at the save's taking in would
    /// wait for an answer that already came, or forget one still to come. The bytes are not
    /// known (the file holds the person's save): nil, so no write expects them.
    /// Nothing known yet, with the file's timers and counts from `limits`.
    init(limits: CoreLimits) {
        keptVersions = limits.keptFileVersions
        settle = SettleTracker(quietPeriod: limits.quietPeriod, openWriterLimit: limits.openWriterLimit)
    }

    mutating func restoreShown(from before: FileState) {
        let now = self
        self = before
        readInFlight = now.readInFlight
        readWanted = now.readWanted
        writeInFlight = now.writeInFlight
        writeScheduled = now.writeScheduled
        settle = now.settle
        saveUnderway = now.saveUnderway
        heldForStore = now.heldForStore
        writeFailure = now.writeFailure
        writeFailures = now.writeFailures
        writesRefused = now.writesRefused
        refusedUntil = now.refusedUntil
        emptySince = now.emptySince
        bytes = nil
    }
}
