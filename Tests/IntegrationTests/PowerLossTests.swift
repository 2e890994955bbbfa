import Foundation
import Glibc
import ListFileFormat
import ListModel
import Synchronization
import Testing

/// Power cuts while clients edit and subscribe: at random moments, and in the middle of a
/// list-file rewrite and of a compaction. listd runs with its list file and its own files on
/// powercutfs, which drops whatever was not made durable when the power goes; after each cut
/// listd is killed, the file system remounted and listd started again. Every confirmed edit is
/// there, nothing twice, nothing invented, the revision never goes back, and the list file
/// parses and shows the lists.
@Suite(
    .offThePool,
    .enabled(
        if: Requirement.runs(
            PowerCutFileSystem.isAvailable,
            needing: PowerCutFileSystem.need
        )
    )
)
struct PowerLossTests {
    /// What the clients know for sure, across the cuts (shared by their threads).
    private final class Ledger: Sendable {
        private let facts = Mutex(Facts())

        func withLock<Result>(_ body: (inout Facts) -> Result) -> Result {
            facts.withLock { body(&$0) }
        }
    }

    private struct Facts {
        enum Fact { case present, absent, inFlight }
        /// Items by name: each writer adds and removes only its own ("w2-17"), on list w % 2.
        var items: [String: Fact] = [:]
        /// The extra lists, created and deleted by one writer, by name; and their ids.
        var extraLists: [String: Fact] = [:]
        var listIDs: [String: Int] = [:]
        /// The next number each writer names an item (or list) with.
        var next: [Int: Int] = [:]

        /// A number `writer` has not named anything with yet.
        mutating func nextNumber(of writer: Int) -> Int {
            defer { next[writer, default: 0] += 1 }
            return next[writer, default: 0]
        }
        /// The highest revision a confirm or a notification showed: it was durable when shown.
        var highestRevision = 0
        /// The revision listd had after the last start.
        var startRevision = 0
        var confirmed = 0
        /// A check failed: the rounds stop (later ones would only repeat it).
        var broken = false
    }

    private static let listNames = ["Groceries", "Hardware"]
    private static let itemWriters = 4
    private static let listWriter = itemWriters
    /// listd's own files beside the list file (LocalPersistence).
    private static let stateName = ".lists.md.listd-state.json"
    private static let logName = ".lists.md.listd-log"
    /// A short history, so that a round compacts the change log a few times.
    private static let arguments = ["--history", "20"]

    @Test func everyConfirmedEditSurvivesPowerCuts() throws {
        try Requirement.check(PowerCutFileSystem.isAvailable, needing: PowerCutFileSystem.need)
        let sandbox = try Sandbox()
        let fs = try PowerCutFileSystem(holdingListFileOf: sandbox)
        defer { try? fs.unmount() }
        let daemon = Daemon(sandbox)
        let ledger = Ledger()

        // The two lists every round edits, made durable by a clean stop and unmount.
        try fs.mount()
        try daemon.start(arguments: Self.arguments)
        let setup = try LineConnection(path: sandbox.socket)
        for name in Self.listNames {
            let list = try setup.result("createList", ["name": name])
            ledger.withLock { $0.listIDs[name] = list["id"] as? Int }
        }
        let deadline = Date().addingTimeInterval(10)
        while Set((try? Self.lists(inFile: sandbox.file))?.keys ?? [:].keys) != Set(Self.listNames) {
            guard Date() < deadline else { throw TestFailure("the list file did not come to show the lists") }
            usleep(5_000)
        }
        #expect(daemon.stop() == 0)
        try fs.unmount()

        let rounds = 90
        var reasons: [String] = []
        for round in 0..<rounds {
            let cut = Self.plannedCut(round)
            try fs.mount(cut: cut)
            let after = round == 0 ? "the setup" : "round \(round - 1)'s cut \(reasons.last ?? "")"
            if try startAndCheck(daemon, fs, ledger, after: after) {
                runEdits(daemon: daemon, fs: fs, ledger: ledger, cut: cut, round: round)
            }
            let reason = try fs.waitForCut()
            reasons.append(reason)
            daemon.kill()
            try fs.unmount()
            try checkDurableListFile(fs, ledger, round: round, reason: reason)
            if ledger.withLock({ $0.broken }) { return }
        }

        // A last start on what the last cut left, then a clean stop.
        try fs.mount()
        #expect(
            try startAndCheck(daemon, fs, ledger, after: "the last cut \(reasons.last ?? "")"),
            "listd starts after the last cut"
        )
        #expect(daemon.stop() == 0)
        try fs.unmount()

        let confirmed = ledger.withLock { $0.confirmed }
        let atRenames = reasons.filter { $0.contains(" rename ") }.count
        let bySignal = reasons.filter { $0.hasPrefix("SIGUSR1") }.count
        print(
            "PowerLossTests: \(rounds) cuts (\(atRenames) at a rename, \(bySignal) at a random moment, the rest at a"
                + " random operation), \(confirmed) edits confirmed"
        )
        #expect(confirmed > 2_000, "edits were confirmed between the cuts")
        // The cuts the rounds aim at a rewrite or a compaction must have happened there.
        for name in ["lists.md", Self.stateName, Self.logName] {
            for moment in ["before", "after"] {
                #expect(
                    reasons.contains { $0.hasPrefix(moment) && $0.contains(" onto \(name) ") },
                    "the power was cut \(moment) a rename onto \(name) at least once"
                )
            }
        }
    }

    /// The cut a round aims at: a random operation, a random moment, or just before or after the
    /// rename that ends a list-file rewrite or each step of a compaction (snapshot, then log).
    private static func plannedCut(_ round: Int) -> PowerCutFileSystem.Cut? {
        switch round % 9 {
        case 0, 1: .atOperation(Int.random(in: 1...700))
        // The first rename of a kind is often start-up's; a later one comes while clients edit.
        // While they edit, the list file is rewritten about every 250 ms (a round's edits take
        // a few hundred): a round sees start-up's rewrite and two or three more.
        case 2: .beforeRename("lists.md", count: Int.random(in: 1...3))
        case 3: .afterRename("lists.md", count: Int.random(in: 1...3))
        case 4: .beforeRename(stateName, count: Int.random(in: 1...3))
        case 5: .afterRename(stateName, count: Int.random(in: 1...3))
        case 6: .beforeRename(logName, count: Int.random(in: 1...3))
        case 7: .afterRename(logName, count: Int.random(in: 1...3))
        default: nil  // SIGUSR1 at a random moment
        }
    }

    /// Starts listd on what the last cut left and checks it against the ledger; false when the
    /// power went while it started (a cut may come at any operation, start-up's too).
    private func startAndCheck(
        _ daemon: Daemon,
        _ fs: PowerCutFileSystem,
        _ ledger: Ledger,
        after: String
    ) throws -> Bool {
        do {
            try daemon.start(arguments: Self.arguments)
        } catch {
            guard fs.hasCut else { throw error }
            return false
        }
        let lists = try LineConnection(path: daemon.sandbox.socket).result("getLists")
        let revision = try #require(lists["revision"] as? Int)
        let served = try #require(lists["lists"] as? [[String: Any]]).map { list in
            (name: list["name"] as? String ?? "", id: list["id"] as? Int ?? 0, items: list["items"] as? [String] ?? [])
        }
        ledger.withLock { ledger in
            if revision < ledger.startRevision { ledger.broken = true }
            #expect(
                revision >= ledger.highestRevision,
                "after \(after): revision \(revision) went back from \(ledger.highestRevision), which was shown"
            )
            #expect(revision >= ledger.startRevision, "after \(after): revision went back from the last start")
            ledger.startRevision = revision
            ledger.highestRevision = max(ledger.highestRevision, revision)

            let names = served.map(\.name)
            #expect(Set(names).count == names.count, "after \(after): a list twice: \(names)")
            for name in Self.listNames {
                #expect(names.contains(name), "after \(after): \(name) is lost")
            }
            var found: Set<String> = []
            var misplaced: [String] = []
            for list in served {
                #expect(
                    Set(list.items).count == list.items.count,
                    "after \(after): an item twice on \(list.name): \(list.items)"
                )
                found.formUnion(list.items)
                guard let index = Self.listNames.firstIndex(of: list.name) else { continue }
                misplaced += list.items.filter { Self.writer(of: $0).map { $0 % 2 } != index }
            }
            // Each finding is named once, in a sentence: these sets are long.
            var lost: [String] = []
            var undone: [String] = []
            for (item, fact) in ledger.items {
                switch fact {
                case .present where !found.contains(item): lost.append(item)
                case .absent where found.contains(item): undone.append(item)
                case .inFlight: ledger.items[item] = found.contains(item) ? .present : .absent
                default: break
                }
            }
            let invented = found.filter { ledger.items[$0] == nil }
            let extras = Set(names).subtracting(Self.listNames)
            for (name, fact) in ledger.extraLists {
                switch fact {
                case .present where !extras.contains(name): lost.append("list \(name)")
                case .absent where extras.contains(name): undone.append("list \(name)")
                case .inFlight: ledger.extraLists[name] = extras.contains(name) ? .present : .absent
                default: break
                }
            }
            let neverCreated = extras.filter { ledger.extraLists[$0] == nil }
            #expect(lost.isEmpty, "after \(after): confirmed edits lost: \(lost.sorted())")
            #expect(undone.isEmpty, "after \(after): confirmed removes undone: \(undone.sorted())")
            #expect(invented.isEmpty, "after \(after): items never sent: \(invented.sorted())")
            #expect(neverCreated.isEmpty, "after \(after): lists never created: \(neverCreated.sorted())")
            #expect(misplaced.isEmpty, "after \(after): items on the other list: \(misplaced.sorted())")
            let findings = [lost, undone, Array(invented), Array(neverCreated), misplaced]
            if findings.contains(where: { !$0.isEmpty }) || revision < ledger.highestRevision { ledger.broken = true }
            if ledger.broken { Self.keepForInspection(fs, daemon) }
            for list in served { ledger.listIDs[list.name] = list.id }
        }

        // listd rewrites a list file that does not show its lists: it must come to show them.
        let want = Dictionary(uniqueKeysWithValues: served.map { ($0.name, $0.items) })
        let deadline = Date().addingTimeInterval(10)
        var shown: [String: [String]]?
        while Date() < deadline {
            shown = try? Self.lists(inFile: daemon.sandbox.file)
            if shown == want || fs.hasCut { break }
            usleep(5_000)
        }
        if !fs.hasCut {
            #expect(shown == want, "after \(after): the list file does not show the lists listd serves")
        }
        return !fs.hasCut
    }

    /// Copies what listd started from (the image) and its log aside, and says where.
    private static func keepForInspection(_ fs: PowerCutFileSystem, _ daemon: Daemon) {
        let kept = NSTemporaryDirectory() + "powerloss-failure-\(getpid())"
        try? FileManager.default.removeItem(atPath: kept)
        try? FileManager.default.copyItem(atPath: fs.image, toPath: kept)
        try? daemon.logOutput.write(toFile: kept + "/listd.log", atomically: true, encoding: .utf8)
        print("PowerLossTests: the state listd started from and its log are in \(kept)")
    }

    /// Four writers add and remove their own items, a fifth creates and deletes lists, one
    /// connection subscribes; until the power goes (or each is done, and the power is cut then).
    private func runEdits(
        daemon: Daemon,
        fs: PowerCutFileSystem,
        ledger: Ledger,
        cut: PowerCutFileSystem.Cut?,
        round: Int
    ) {
        let socket = daemon.sandbox.socket
        let clients = DispatchGroup()
        let subscriber = try? LineConnection(path: socket)
        _ = try? subscriber?.result("subscribe")
        if let subscriber {
            // Threads, not tasks: each blocks on its socket until listd dies.
            Thread.detachNewThread {
                while let line = try? subscriber.readLine(timeout: 60),
                    let message = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let params = message["params"] as? [String: Any],
                    let revision = params["revision"] as? Int
                {
                    ledger.withLock { $0.highestRevision = max($0.highestRevision, revision) }
                }
            }
        }
        for writer in 0...Self.listWriter {
            clients.enter()
            Thread.detachNewThread {
                defer { clients.leave() }
                guard let connection = try? LineConnection(path: socket) else { return }
                if writer == Self.listWriter {
                    Self.createAndDeleteLists(connection, ledger)
                } else {
                    Self.addAndRemoveItems(writer, connection, ledger)
                }
            }
        }
        if cut == nil {
            usleep(UInt32.random(in: 0...300_000))
            fs.cutPower()
        }
        if clients.wait(timeout: .now() + 60) == .timedOut {
            Issue.record("round \(round): the clients did not finish within 60 s")
        }
        // Each is done and the aimed-at moment did not come: the power goes now.
        if !fs.hasCut { fs.cutPower() }
        subscriber?.hangUp()
    }

    private static let steps = 80

    private static func addAndRemoveItems(_ writer: Int, _ connection: LineConnection, _ ledger: Ledger) {
        let listName = listNames[writer % 2]
        var (list, mine) = ledger.withLock { ledger in
            let mine = ledger.items.filter { $0.value == Facts.Fact.present && Self.writer(of: $0.key) == writer }.keys
                .sorted { number(of: $0) < number(of: $1) }
            return (ledger.listIDs[listName] ?? 0, mine)
        }
        for _ in 0..<steps {
            // Each list stays short: once a writer has six items, it removes its oldest.
            let removing = mine.count >= 6
            let item = removing ? mine.removeFirst() : ledger.withLock { "w\(writer)-\($0.nextNumber(of: writer))" }
            ledger.withLock { $0.items[item] = Facts.Fact.inFlight }
            guard
                let reply = try? connection.call(removing ? "removeItem" : "addItem", ["list": list, "item": item]),
                let result = reply["result"] as? [String: Any]
            else { return }  // the power went: this edit stays in flight
            ledger.withLock { ledger in
                ledger.items[item] = removing ? .absent : .present
                ledger.confirmed += 1
                ledger.highestRevision = max(ledger.highestRevision, result["revision"] as? Int ?? 0)
            }
            if !removing { mine.append(item) }
            list = result["id"] as? Int ?? list
        }
    }

    private static func createAndDeleteLists(_ connection: LineConnection, _ ledger: Ledger) {
        var mine = ledger.withLock { ledger in
            ledger.extraLists.filter { $0.value == Facts.Fact.present }.keys.sorted { number(of: $0) < number(of: $1) }
        }
        for _ in 0..<steps / 4 {
            let deleting = mine.count >= 2
            let name = deleting ? mine.removeFirst() : ledger.withLock { "Extra \($0.nextNumber(of: listWriter))" }
            let id = ledger.withLock { ledger in
                ledger.extraLists[name] = .inFlight
                return ledger.listIDs[name] ?? 0
            }
            guard
                let reply = try? connection.call(
                    deleting ? "deleteList" : "createList",
                    deleting ? ["list": id] : ["name": name]
                ),
                let result = reply["result"] as? [String: Any]
            else { return }
            ledger.withLock { ledger in
                ledger.extraLists[name] = deleting ? .absent : .present
                ledger.listIDs[name] = result["id"] as? Int
                ledger.confirmed += 1
                ledger.highestRevision = max(ledger.highestRevision, result["revision"] as? Int ?? 0)
            }
            if !deleting { mine.append(name) }
        }
    }

    /// The list file as the cut left it, before listd reads it again: it parses, shows the two
    /// lists, and holds only items and lists that were sent, each once. (It may be older than
    /// the lists: listd makes it show them when it starts.)
    private func checkDurableListFile(
        _ fs: PowerCutFileSystem,
        _ ledger: Ledger,
        round: Int,
        reason: String
    ) throws {
        let text = try String(contentsOfFile: fs.image + "/lists.md", encoding: .utf8)
        let reading = ListFileReading(ListDocument(parsing: text), known: nil)
        let names = reading.sections.map(\.name)
        let (unknownLists, unknownItems) = ledger.withLock { ledger in
            (
                names.filter { !Self.listNames.contains($0) && ledger.extraLists[$0] == nil },
                reading.sections.flatMap(\.items).map(\.text).filter { ledger.items[$0] == nil }
            )
        }
        let findings = [
            reading.diagnostics.isEmpty ? nil : "lines not taken: \(reading.diagnostics.map(\.message))",
            Set(names).count == names.count ? nil : "a list twice: \(names)",
            Self.listNames.allSatisfy(names.contains) ? nil : "lists lost: \(names)",
            unknownLists.isEmpty ? nil : "lists never created: \(unknownLists)",
            unknownItems.isEmpty ? nil : "items never sent: \(unknownItems)",
        ].compactMap { $0 }
        #expect(findings.isEmpty, "round \(round), cut \(reason): the list file left: \(findings)\n\(text)")
        if !findings.isEmpty { ledger.withLock { $0.broken = true } }
    }

    /// Each list the file shows, by name.
    private static func lists(inFile path: String) throws -> [String: [String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let reading = ListFileReading(ListDocument(parsing: text), known: nil)
        return Dictionary(reading.sections.map { ($0.name, $0.items.map(\.text)) }) { first, _ in first }
    }

    /// "w2-17": writer 2.
    private static func writer(of item: String) -> Int? {
        guard item.hasPrefix("w"), let dash = item.firstIndex(of: "-") else { return nil }
        return Int(item[item.index(after: item.startIndex)..<dash])
    }

    /// "w2-17" and "Extra 17": 17.
    private static func number(of name: String) -> Int {
        Int(name.split(whereSeparator: { $0 == "-" || $0 == " " }).last ?? "") ?? 0
    }
}
