// Figure 9 (issue 30): sections and amounts on a long list. A 10,000-item list in 30 sections,
// next to a 10-item list in the same listd: a move to another section, an amount set and a section
// renamed each against an add on the 10-item list (round trips on a brief connection, each durable);
// and a save that moves 100 lines between sections, until a brief subscriber has the last of
// its notifications.
import Foundation
import Glibc

/// The list file: "Short" (10 items) and "Long" (10,000 items in 30 sections), with `moved` lines
/// of the first section cut and pasted at the end of the second.
func sectionedListFile(moved: Int = 0) -> String {
    var text = "# Short <!-- listd id=1 -->\n" + (0..<10).map { "- [ ] short \($0)\n" }.joined()
    text += "\n# Long <!-- listd id=2 -->\n"
    let perSection = 10_000 / 30 + 1
    var sections = (0..<30).map { section in
        (0..<perSection).map { section * perSection + $0 }.filter { $0 < 10_000 }.map { "- [ ] item \($0) (\($0 % 9 + 1))\n" }
    }
    let cut = sections[0].prefix(moved)
    sections[0].removeFirst(moved)
    sections[1].append(contentsOf: cut)
    for (index, lines) in sections.enumerated() { text += "## Aisle \(index)\n" + lines.joined() }
    return text
}

func measureSections() throws {
    let path = "\(work)/sections.md"
    try sectionedListFile().write(toFile: path, atomically: true, encoding: .utf8)
    let listd = try ListdUnderTest("sections", file: path)
    let client = try listd.connect()
    client.call(#"{"jsonrpc":"2.0","id":0,"method":"hello","params":{"brief":true}}"#)
    func request(_ method: String, _ params: String) -> String {
        #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":{\#(params)}}"#
    }
    let count = 400
    var add: [Double] = []
    var move: [Double] = []
    var amount: [Double] = []
    var renames: [Double] = []
    for _ in 0..<runs {
        add.append(roundTrips(client, count: count) { addOrRemove($0) }.p50)
        move.append(
            roundTrips(client, count: count) {
                request("moveItem", #""list":2,"item":"item 5000","section":"Aisle \#($0 % 2 == 0 ? 3 : 27)""#)
            }.p50
        )
        amount.append(
            roundTrips(client, count: count) { request("setQuantity", #""list":2,"item":"item 5000","quantity":"\#($0 + 2) kg""#) }.p50
        )
        renames.append(
            roundTrips(client, count: count) {
                request("renameSection", #""list":2,"section":"\#($0 % 2 == 0 ? "Aisle 15" : "Aisle XV")","to":"\#($0 % 2 == 0 ? "Aisle XV" : "Aisle 15")""#)
            }.p50
        )
    }
    let baseline = Stat(add)
    for (name, samples) in [("a move to another section", move), ("an amount set", amount), ("a section renamed", renames)] {
        let ours = Stat(samples)
        report(
            "\(name) on a 10,000-item list in 30 sections, an add on a 10-item list as baseline (brief, p50)",
            "any",
            "µs",
            listd: ours,
            baseline: baseline,
            target: "≤ 2× the add",
            met: ours.median <= 2 * baseline.median
        )
    }
    listd.child.stop()

    // A save that moves 100 lines from the first section to the end of the second: 100 moves.
    let settleMs = 30.0
    var samples: [Double] = []
    for run in 0..<runs {
        let file = "\(work)/sections-save-\(run).md"
        try sectionedListFile().write(toFile: file, atomically: true, encoding: .utf8)
        let saving = try ListdUnderTest("sections-save-\(run)", file: file)
        let subscriber = try saving.connect()
        subscriber.call(#"{"jsonrpc":"2.0","id":0,"method":"hello","params":{"brief":true}}"#)
        guard let reply = subscriber.call(subscribeRequest).map({ String(decoding: $0, as: UTF8.self) }),
            let revision = Int(reply.components(separatedBy: #""revision":"#).last?.prefix { $0.isNumber } ?? "")
        else { throw BenchError("no snapshot") }
        let temporary = file + ".tmp"
        try sectionedListFile(moved: 100).write(toFile: temporary, atomically: false, encoding: .utf8)
        let start = now()
        rename(temporary, file)
        let last = #""params":{"revision":\#(revision + 100),"#
        while let line = subscriber.readLine(), !String(decoding: line, as: UTF8.self).contains(last) {}
        samples.append(ms(now() - start) - settleMs)
        saving.child.stop()
    }
    let save = Stat(samples)
    report(
        "a save moving 100 lines between sections of a 10,000-item list → the last notification, beyond the \(Int(settleMs)) ms settle",
        "any",
        "ms",
        listd: save,
        target: "< 100 ms",
        met: save.median < 100
    )
}
