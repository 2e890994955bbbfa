// listd-bench: `make bench`. Measures listd next to baselines written in plain C over raw sockets
// (bench/c), in one run, and prints a table (figure, listd, baseline, ratio) that it also writes
// as JSON. Every figure is the median of several runs, with the lowest and highest run.
import Foundation
import Glibc

raiseFileLimit()

let arguments = CommandLine.arguments
/// The options listd-bench takes; anything else (a `--help`, a misspelt option) stops it here,
/// before ten minutes of measuring that would overwrite bench/results/latest.json.
let usage = "usage: listd-bench [--baselines DIR] [--only N,N…] [--out FILE] [--keep] [--restart-changes N]"
do {
    let valued: Set = ["--baselines", "--only", "--out", "--restart-changes"]
    var rest = arguments.dropFirst()
    while let argument = rest.popFirst() {
        if valued.contains(argument), rest.popFirst() != nil { continue }
        if argument == "--keep" { continue }
        let asked = argument == "--help" || argument == "-h"
        let complaint = asked ? "" : "listd-bench: unknown or incomplete option \(argument)\n"
        FileHandle.standardError.write(Data((complaint + usage + "\n").utf8))
        exit(asked ? 0 : 64)  // 64: EX_USAGE
    }
}
func option(_ name: String, _ fallback: String) -> String {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}
let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let listdPath = binaries + "/listd"
let listctlPath = binaries + "/listctl"
let baselines = option("--baselines", ".build/bench")
/// `--only 1,3`: just those sections (figures 1–13, bench/README.md); nothing is written then unless
/// `--out` says where.
let only = arguments.contains("--only") ? Set(option("--only", "").split(separator: ",").compactMap { Int($0) }) : nil
func wanted(_ section: Int) -> Bool { only?.contains(section) ?? true }

/// The sections that failed, with why: the others' figures are still reported and written.
var failedSections: [String] = []

/// Runs section `number` when it is wanted; a failure is said and kept, and the run goes on.
func section(_ number: Int, _ measure: () throws -> Void) {
    guard wanted(number) else { return }
    do {
        try measure()
    } catch {
        print("section \(number) FAILED: \(error)")
        failedSections.append("section \(number): \(error)")
    }
}
let output = option("--out", only == nil ? "bench/results/latest.json" : "")
let cpus = ProcessInfo.processInfo.activeProcessorCount
var scratch = Array("/tmp/listd-bench-XXXXXX".utf8CString)
let work = String(cString: mkdtemp(&scratch))
/// `--keep`: leave the scratch directory (its files and logs) to look at afterwards.
defer { if !arguments.contains("--keep") { try? FileManager.default.removeItem(atPath: work) } }

/// One line of the table.
struct Row: Codable {
    var figure: String
    var placement: String
    var unit: String
    var listd: Stat?
    var baseline: Stat?
    var ratio: Double?
    var target: String
    var met: Bool?
}
var rows: [Row] = []

func report(
    _ figure: String,
    _ placement: String,
    _ unit: String,
    listd: Stat?,
    baseline: Stat? = nil,
    target: String = "",
    met: Bool? = nil
) {
    let ratio = listd.flatMap { listd in baseline.map { listd.median / $0.median } }
    let row = Row(
        figure: figure,
        placement: placement,
        unit: unit,
        listd: listd,
        baseline: baseline,
        ratio: ratio,
        target: target,
        met: met
    )
    rows.append(row)
    func show(_ stat: Stat?) -> String {
        guard let stat else { return "—" }
        return String(format: "%.3g (%.3g–%.3g)", stat.median, stat.low, stat.high)
    }
    let verdict = met.map { $0 ? "met" : "NOT met" } ?? ""
    print(
        [
            figure, placement, unit, show(listd), show(baseline), ratio.map { String(format: "%.2f×", $0) } ?? "—",
            target, verdict,
        ]
        .joined(separator: " | ")
    )
    fflush(nil)
}

/// A fresh listd on its own socket and file; `cpu` pins all its threads.
final class ListdUnderTest {
    let socket: String
    let file: String
    let child: Child

    init(_ name: String, cpu: Int? = nil, file: String? = nil, extra: [String] = []) throws {
        socket = "\(work)/\(name).sock"
        self.file = file ?? "\(work)/\(name).md"
        child = try Child(
            listdPath,
            // At listd's default log level: a change's journal line is part of what it costs.
            ["--socket", socket, "--file", self.file, "--log", "stderr"] + extra,
            cpu: cpu
        )
        try waitForSocket(socket)
    }

    func connect() throws -> LineSocket { try LineSocket(path: socket) }
    deinit { child.stop() }
}

func ms(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e6 }
func us(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e3 }

/// Round trips of `request` (made by `line(i)`) on one connection: p50 and p99 in µs.
func roundTrips(_ connection: LineSocket, count: Int, _ line: (Int) -> String) -> (p50: Double, p99: Double) {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for index in 0..<count {
        let request = line(index)
        let start = now()
        connection.call(request)
        samples.append(us(now() - start))
    }
    samples.sort()
    return (percentile(samples, 0.5), percentile(samples, 0.99))
}

/// Runs `body` on a new thread pinned to `cpu` and waits for it.
/// A thread's result: written by the thread before it signals, read after the wait, never at the
/// same time.
final class ThreadOutcome<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

func onThread<T>(cpu: Int?, _ body: @escaping () throws -> T) throws -> T {
    let outcome = ThreadOutcome<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        pinThread(to: cpu)
        outcome.result = Result { try body() }
        done.signal()
    }
    thread.stackSize = 1 << 22
    thread.start()
    done.wait()
    return try outcome.result!.get()
}

let runs = 3
let getList = #"{"jsonrpc":"2.0","id":1,"method":"getList","params":{"list":1}}"#
func addOrRemove(_ index: Int, item: String = "probe") -> String {
    let method = index % 2 == 0 ? "addItem" : "removeItem"
    return #"{"jsonrpc":"2.0","id":\#(index),"method":"\#(method)","params":{"list":1,"item":"\#(item)"}}"#
}
func createList(_ connection: LineSocket, _ name: String, items: Int = 0) {
    let list = (0..<items).map { "\"item \($0)\"" }.joined(separator: ",")
    connection.call(#"{"jsonrpc":"2.0","id":1,"method":"createList","params":{"name":"\#(name)","items":[\#(list)]}}"#)
}

print("listd-bench: \(cpus) CPUs; each figure is the median of its runs (lowest–highest)")
print("figure | placement | unit | listd | baseline | ratio | target | verdict")

// MARK: 1. Request → reply (RoundTrips.swift)

section(1, measureRoundTrips)

// MARK: 2. Durable edits per second (DurableEdits.swift)

section(2, measureDurableEdits)

// MARK: 3. Fan-out (FanOutFigure.swift)

section(3, measureFanOut)

// MARK: 4. The list file (FileSaves.swift)

section(4, measureFileSaves)

// MARK: 5. listctl add as a whole process (OneShot.swift)

section(5, measureOneShot)

// MARK: 6. Idle (Idle.swift)

section(6, measureIdle)

// MARK: 7. The change log: bytes per change, and a restart after a crash (ChangeLogFigure.swift)

section(7, measureChangeLog)

// MARK: 8. Lists shared through PostgreSQL (Sharing.swift)

section(8, measureSharing)

// MARK: 9. Sections and amounts on a long list (Sections.swift)

section(9, measureSections)

// MARK: 10. listd-web: a change → 100 open pages (Web.swift)

section(10, measureWeb)

// MARK: 11. The phone's page: a tick → its frame, on a long list (PageRepaint.swift)

section(11, measurePageRepaint)

// MARK: 12. A tasks app syncing a big list (TasksApps.swift)
section(12, measureTasksApps)

// MARK: 13. The floor of the stack, next to Redis and listd (Floor.swift)
section(13, measureFloor)

// MARK: Results

let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
struct Results: Codable {
    var date: String
    var cpus: Int
    var rows: [Row]
}
if output.isEmpty {
    if !arguments.contains("--keep") { try? FileManager.default.removeItem(atPath: work) }
    exit(failedSections.isEmpty ? 0 : 1)
}
let results = Results(date: ISO8601DateFormatter().string(from: Date()), cpus: cpus, rows: rows)
try FileManager.default.createDirectory(
    atPath: (output as NSString).deletingLastPathComponent,
    withIntermediateDirectories: true
)
try encoder.encode(results).write(to: URL(fileURLWithPath: output))
print("written to \(output)")
if !failedSections.isEmpty {
    print("not measured (their figures are missing above):\n" + failedSections.joined(separator: "\n"))
    exit(1)
}
