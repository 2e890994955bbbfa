// Issue 30 as a person types it: listctl add with a section and an amount (also read from
// "milk (2 l)"), move, section add/rename/remove, amount, show grouped by section, and watch and
// log printing the new changes; each with its output and exit status.
import Foundation
import Testing

@Suite(.offThePool) struct SectionsListctlTests {
    @Test func sectionsAndAmountsAsAPersonTypesAndReadsThem() throws {
        let daemon = try Daemon.start()
        defer { withExtendedLifetime(daemon) {} }
        let socket = daemon.sandbox.socket
        let watch = try ChildProcess(Binaries.listctl.path, ["watch", "--socket", socket])
        defer { watch.signal(SIGTERM) }
        let watched = LineReader(watch.stdout)
        #expect(try watched.line().hasPrefix("Watching 0 lists"))

        _ = try listctl(["create", "Groceries", "tape"], socket: socket)
        var run = try listctl(["add", "Groceries", "milk", "--section", "Dairy", "--amount", "2 l"], socket: socket)
        #expect(run.status == 0)
        #expect(run.stdout == "Added “milk” (2 l) to Groceries.\n")
        run = try listctl(["add", "Groceries", "butter (250 g)", "--section", "dairy"], socket: socket)
        #expect(run.status == 0, "the amount read as the file reads it")
        #expect(run.stdout == "Added “butter” (250 g) to Groceries.\n")
        run = try listctl(["section", "add", "Groceries", "Bakery"], socket: socket)
        #expect(run.stdout == "Added the section Bakery to Groceries.\n")
        run = try listctl(["--socket", socket, "section", "add", "Groceries", "Frozen", "--before", "Bakery"], socket: nil)
        #expect(run.status == 0, "shared options before a group's subcommand: \(run.stderr)")
        run = try listctl(["move", "Groceries", "butter", "--section", "Bakery"], socket: socket)
        #expect(run.stdout == "Moved “butter” on Groceries to Bakery.\n")
        run = try listctl(["section", "rename", "Groceries", "bakery", "Bread"], socket: socket)
        #expect(run.status == 0)
        run = try listctl(["amount", "Groceries", "milk", "1 l"], socket: socket)
        #expect(run.stdout == "“milk” on Groceries: 1 l.\n")
        run = try listctl(["show", "Groceries"], socket: socket)
        #expect(run.stdout.split(separator: "\n").dropFirst() == [
            "  - [ ] tape", "  Dairy", "    - [ ] milk (1 l)", "  Frozen", "    (no items)", "  Bread", "    - [ ] butter (250 g)",
        ])
        run = try listctl(["amount", "Groceries", "milk"], socket: socket)
        #expect(run.stdout == "“milk” on Groceries has no amount.\n")
        run = try listctl(["section", "remove", "Groceries", "Bread"], socket: socket)
        #expect(run.stdout == "Removed the section Bread from Groceries; its items stay.\n")

        // Denied: status 1 and the sentence; a usage error: status 2.
        run = try listctl(["section", "remove", "Groceries", "Nope"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stderr == "listctl: denied: Groceries has no section called “Nope”.\n")
        run = try listctl(["amount", "Groceries", "milk", "12 (large"], socket: socket)
        #expect(run.status == 1)
        #expect(run.stderr.contains("is not a valid amount: its parentheses do not pair up"), "\(run.stderr)")
        run = try listctl(["add", "Groceries", "Milk", "--amount", "3 l"], socket: socket)
        #expect(run.stderr == "listctl: denied: “milk” is already on Groceries, under Dairy. To buy 3 l, change its amount instead.\n")
        run = try listctl(["move", "Groceries", "milk"], socket: socket)
        #expect(run.status == 2)

        _ = try watched.line()  // #1 created
        #expect(try watched.line().hasPrefix("#2 Groceries: added the section Dairy, added “milk” (2 l) under Dairy (by listctl"))
        #expect(try watched.line().hasPrefix("#3 Groceries: added “butter” (250 g) under Dairy (by listctl"))
        #expect(try watched.line().hasPrefix("#4 Groceries: added the section Bakery (by listctl"))
        #expect(try watched.line().hasPrefix("#5 Groceries: added the section Frozen (by listctl"))
        #expect(try watched.line().hasPrefix("#6 Groceries: moved “butter” to Bakery (by listctl"))
        #expect(try watched.line().hasPrefix("#7 Groceries: renamed the section Bakery to Bread (by listctl"))
        #expect(try watched.line().hasPrefix("#8 Groceries: set “milk” to 1 l (by listctl"))
        // Issue 63, case 1: what is not a count or a measure is kept as a note, not refused.
        run = try listctl(["amount", "Groceries", "tape", "a few rolls"], socket: socket)
        #expect(run.stdout == "“tape” on Groceries: a few rolls.\n", "\(run.stderr)")
        run = try listctl(["add", "Groceries", "6 free-range eggs"], socket: socket)
        #expect(run.stdout == "Added “free-range eggs” (6) to Groceries.\n", "\(run.stderr)")
        run = try listctl(["add", "Groceries", "free-range eggs (12)"], socket: socket)
        #expect(run.stderr.contains("“free-range eggs” (6) is already on Groceries"), "the same item: \(run.stderr)")
        run = try listctl(["add", "Groceries", "2 l oat milk"], socket: socket)
        #expect(run.stdout == "Added “oat milk” (2 l) to Groceries.\n", "\(run.stderr)")
        run = try listctl(["add", "Groceries", "bread x2", "flour 500 g"], socket: socket)
        #expect(run.stdout == "Added “bread” (x2) to Groceries.\nAdded “flour” (500 g) to Groceries.\n", "\(run.stderr)")
        run = try listctl(["log", "Groceries", "--limit", "7"], socket: socket)
        #expect(run.stdout.contains("Groceries  cleared the amount of “milk”  (listctl"), "\(run.stdout)")
        #expect(run.stdout.contains("Groceries  removed the section Bread  (listctl"), "\(run.stdout)")
        // Issue 47, case 7: an add is told with its amount and section, in the log as in watch.
        run = try listctl(["log", "Groceries"], socket: socket)
        #expect(run.stdout.contains("Groceries  added the section Dairy, added “milk” (2 l) under Dairy  (listctl"), "\(run.stdout)")
        #expect(run.stdout.contains("Groceries  added “butter” (250 g) under Dairy  (listctl"), "\(run.stdout)")
    }
}
