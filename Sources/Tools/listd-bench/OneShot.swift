// Figure 5. listctl add as a whole process (bench/README.md).
import Foundation
import Glibc

func measureOneShot() throws {
    do {
        let listd = try ListdUnderTest("listctl")
        try createList(listd.connect(), "Groceries")
        // What `show` reads: a list of 30 items of its own, whatever the number of add runs.
        try createList(listd.connect(), "Pantry", items: 30)
        // Timed with wait4 from spawn to exit (a poll every 5 ms once made both read 51 ms). Each
        // run takes a millisecond or two, and this machine's noise moves one by half: 60 runs of
        // each, taken in turns.
        var listctlRuns: [ProcessCost] = []
        var oneshotRuns: [ProcessCost] = []
        for index in 0..<60 {
            listctlRuns.append(
                try timedRun(listctlPath, ["add", "Groceries", "listctl \(index)", "--socket", listd.socket])
            )
            let line =
                #"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":"Groceries","item":"oneshot \#(index)"}}"#
            oneshotRuns.append(try timedRun("\(baselines)/oneshot", [listd.socket, line]))
        }
        let listctl = Stat(listctlRuns.map(\.wallMs))
        let oneshot = Stat(oneshotRuns.map(\.wallMs))
        report(
            "`listctl add`, the whole process",
            "any",
            "ms",
            listd: listctl,
            baseline: oneshot,
            target: "≤ 2× C one-shot (issue 38)",
            met: listctl.median <= 2 * oneshot.median
        )
        report(
            "`listctl add`, CPU (user + system)",
            "any",
            "ms",
            listd: Stat(listctlRuns.map(\.cpuMs)),
            baseline: Stat(oneshotRuns.map(\.cpuMs))
        )
        var showRuns: [ProcessCost] = []
        var readRuns: [ProcessCost] = []
        for _ in 0..<60 {
            showRuns.append(try timedRun(listctlPath, ["show", "Pantry", "--socket", listd.socket]))
            let line = #"{"jsonrpc":"2.0","id":1,"method":"getList","params":{"list":"Pantry"}}"#
            readRuns.append(try timedRun("\(baselines)/oneshot", [listd.socket, line]))
        }
        let show = Stat(showRuns.map(\.wallMs))
        let read = Stat(readRuns.map(\.wallMs))
        report(
            "`listctl show`, the whole process",
            "any",
            "ms",
            listd: show,
            baseline: read,
            target: "≤ 1.5× C one-shot (issue 65)",
            met: show.median <= 1.5 * read.median
        )
        report(
            "`listctl show`, page faults",
            "any",
            "faults",
            listd: Stat(showRuns.map(\.pageFaults)),
            baseline: Stat(readRuns.map(\.pageFaults))
        )
    }
}
