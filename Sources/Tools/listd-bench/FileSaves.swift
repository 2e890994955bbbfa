// Figure 4. The list file (bench/README.md).
import Foundation
import Glibc

/// A list file with one list of `items` items.
func listFile(items: Int, changed: Int? = nil) -> String {
    "# Big <!-- listd id=1 -->\n" + (0..<items).map { "- item \($0 == changed ? "changed " : "")\($0)\n" }.joined()
}

/// Writes `text` beside `path` and renames it over (as an editor saves); ms until `subscriber`
/// has the save's notification.
func saved(_ text: String, over path: String, heardBy subscriber: LineSocket) throws -> Double {
    let temporary = path + ".tmp"
    try text.write(toFile: temporary, atomically: false, encoding: .utf8)
    let start = now()
    rename(temporary, path)
    guard subscriber.readLine() != nil else { throw BenchError("no notification for a save") }
    return ms(now() - start)
}

func measureFileSaves() throws {
    do {
        let settleMs = 30.0
        for items in [1_000, 100_000] {
            let path = "\(work)/save-\(items).md"
            try listFile(items: items).write(toFile: path, atomically: true, encoding: .utf8)
            // First start: no state yet; then a restart, which loads the snapshot, the log and the file.
            var loads: [Double] = []
            var firstStart = 0.0
            for attempt in 0..<4 {
                let start = now()
                let listd = try ListdUnderTest("save-\(items)", file: path)
                if attempt == 0 { firstStart = ms(now() - start) } else { loads.append(ms(now() - start)) }
                listd.child.stop()
            }
            if items == 100_000 {
                let load = Stat(loads)
                report(
                    "start with a 100,000-item file (first start: \(Int(firstStart)) ms)",
                    "any",
                    "ms",
                    listd: load,
                    target: "≤ 100 ms (issue 38)",
                    met: load.median <= 100
                )
            }
            let listd = try ListdUnderTest("save-\(items)", file: path)
            let subscriber = try listd.connect()
            subscriber.call(subscribeRequest)
            var samples: [Double] = []
            for round in 0..<(items > 10_000 ? 5 : 15) {
                // An editor's copy of the file as listd wrote it (its notes name the revision it
                // shows), with one line retyped.
                let shown = try String(contentsOfFile: path, encoding: .utf8)
                let text = shown.replacingOccurrences(of: "- item \(round)\n", with: "- item changed \(round)\n")
                    .replacingOccurrences(of: "- [ ] item \(round)\n", with: "- [ ] item changed \(round)\n")
                samples.append(try saved(text, over: path, heardBy: subscriber))
                usleep(100_000)
            }
            let beyond = Stat(samples.map { $0 - settleMs })
            report(
                "save of \(items) items → notification, beyond the \(Int(settleMs)) ms settle",
                "any",
                "ms",
                listd: beyond,
                target: items == 1_000 ? "≤ 2 ms" : "",
                met: items == 1_000 ? beyond.median <= 2 : nil
            )
        }
    }
    do {
        // A person pastes N lines into a one-item list: until a brief subscriber has the last of the
        // N notifications (each line is a change of its own), beyond the settle period.
        let settleMs = 30.0
        var medians: [Int: Double] = [:]
        for lines in [1_000, 10_000] {
            var samples: [Double] = []
            for run in 0..<3 {
                let path = "\(work)/paste-\(lines)-\(run).md"
                try listFile(items: 1).write(toFile: path, atomically: true, encoding: .utf8)
                let listd = try ListdUnderTest("paste-\(lines)-\(run)", file: path)
                let subscriber = try listd.connect()
                subscriber.call(#"{"jsonrpc":"2.0","id":0,"method":"hello","params":{"brief":true}}"#)
                guard let reply = subscriber.call(subscribeRequest).map({ String(decoding: $0, as: UTF8.self) }),
                    let revision = Int(reply.components(separatedBy: #""revision":"#).last?.prefix { $0.isNumber } ?? "")
                else { throw BenchError("no snapshot") }
                let pasted = "# Big <!-- listd id=1 -->\n- item 0\n" + (1...lines).map { "- pasted \($0)\n" }.joined()
                let temporary = path + ".tmp"
                try pasted.write(toFile: temporary, atomically: false, encoding: .utf8)
                let start = now()
                rename(temporary, path)
                // Params open with their revision (listd writes keys in declaration order).
                let last = #""params":{"revision":\#(revision + lines),"#
                while let line = subscriber.readLine(), !String(decoding: line, as: UTF8.self).contains(last) {}
                samples.append(ms(now() - start) - settleMs)
                listd.child.stop()
            }
            let paste = Stat(samples)
            medians[lines] = paste.median
            report(
                "paste of \(lines) lines → the last notification, beyond the \(Int(settleMs)) ms settle",
                "any",
                "ms",
                listd: paste,
                target: lines == 10_000 ? "≤ 1,000 ms" : "",
                met: lines == 10_000 ? paste.median <= 1_000 : nil
            )
        }
        if let small = medians[1_000], let big = medians[10_000] {
            report(
                "paste of 10,000 lines ÷ paste of 1,000 lines",
                "any",
                "×",
                listd: Stat([big / small]),
                target: "≤ 12×",
                met: big / small <= 12
            )
        }
    }
    do {
        // Issue 46: a save of a copy read 1,000 changes ago on a 10,000-item list is read against
        // the lists of its revision, rebuilt from the history; next to a save of the latest file.
        // One line ticked in each; until the save's notification, beyond the settle period.
        let settleMs = 30.0
        let path = "\(work)/base-10000.md"
        try listFile(items: 10_000).write(toFile: path, atomically: true, encoding: .utf8)
        let listd = try ListdUnderTest("base-10000", file: path)
        let client = try listd.connect()
        func shown() -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        func waitForFile(_ contains: String) throws {
            let deadline = now() + 10_000_000_000
            while !shown().contains(contains) {
                guard now() < deadline else { throw BenchError("the file never showed \(contains)") }
                usleep(2_000)
            }
        }
        try waitForFile(" rev=")
        /// Saves `copy` with item `tick` ticked; ms until the subscriber has the notification.
        func save(_ copy: String, ticking tick: Int) throws -> Double {
            let subscriber = try listd.connect()
            subscriber.call(subscribeRequest)
            let text = copy.replacingOccurrences(of: "- [ ] item \(tick)\n", with: "- [x] item \(tick)\n")
                .replacingOccurrences(of: "\n- item \(tick)\n", with: "\n- [x] item \(tick)\n")
            return try saved(text, over: path, heardBy: subscriber) - settleMs
        }
        var latest: [Double] = []
        var old: [Double] = []
        var added = 0
        for round in 0..<5 {
            // Against the latest: the file as it is.
            latest.append(try save(shown(), ticking: 2 * round))
            usleep(100_000)
            // Against lists 1,000 changes back: a copy read now, saved after 1,000 edits.
            let copy = shown()
            for _ in 0..<1_000 {
                client.call(#"{"jsonrpc":"2.0","id":1,"method":"addItem","params":{"list":1,"item":"added \#(added)"}}"#)
                added += 1
            }
            try waitForFile("added \(added - 1)\n")
            usleep(100_000)
            old.append(try save(copy, ticking: 2 * round + 1))
            usleep(100_000)
        }
        let againstLatest = Stat(latest)
        let againstOld = Stat(old)
        report("save of 10,000 items against the latest → notification, beyond the settle", "any", "ms", listd: againstLatest)
        report(
            "save of 10,000 items read 1,000 changes ago → notification, beyond the settle",
            "any",
            "ms",
            listd: againstOld,
            baseline: againstLatest,
            target: "≤ 2× (issue 46)",
            met: againstOld.median <= 2 * againstLatest.median
        )
    }
}
