// Issue 36, item 2: every `console` block of README.md and docs/listctl.md is run, in order, by a
// shell against a fresh listd, and what each command prints is compared with what the page shows
// (times, pids, uids and the sandbox's paths made alike on both sides), as cram and trycmd do. A
// change of output fails here instead of misleading a reader.
import Foundation
import Glibc
import Testing

/// One `$ command` of a page and the lines the page shows after it.
struct DocCommand: Sendable, CustomStringConvertible {
    var command: String
    var expected: [String]
    /// The page's line number of the command (for the failure message).
    var line: Int
    /// Shown ending with `^C`: the command runs until interrupted (`watch`); it is given 4 s
    /// and then SIGINT, as a person's Ctrl-C.
    var interrupted: Bool

    var description: String { "line \(line): $ \(command)" }

    /// The `console` blocks of `markdown`, in order.
    static func commands(in markdown: String) -> [DocCommand] {
        var commands: [DocCommand] = []
        var inConsole = false
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = String(line)
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                inConsole = !inConsole && trimmed == "```console"
                continue
            }
            guard inConsole else { continue }
            if text.hasPrefix("$ ") {
                commands.append(DocCommand(command: String(text.dropFirst(2)), expected: [], line: index + 1, interrupted: false))
            } else if text == "^C", !commands.isEmpty {
                commands[commands.count - 1].interrupted = true
            } else if !commands.isEmpty {
                commands[commands.count - 1].expected.append(text)
            }
        }
        return commands
    }
}

@Suite(.offThePool, .serialized) struct DocExamplesTests {
    /// The package's root: this file is Tests/IntegrationTests/DocExamplesTests.swift in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test(arguments: ["README.md", "docs/listctl.md"])
    func everyConsoleBlockPrintsWhatThePageShows(page: String) throws {
        let markdown = try String(contentsOfFile: Self.root + "/" + page, encoding: .utf8)
        let commands = DocCommand.commands(in: markdown)
        #expect(!commands.isEmpty, "\(page) has console blocks")
        let sandbox = try Sandbox()
        // The reader's set-up: listctl as the README's alias names it, and the list file where
        // `make run` keeps it (~/.local/share/listd/lists.md).
        let home = sandbox.path + "/home"
        try FileManager.default.createDirectory(atPath: home + "/.local/share/listd", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: sandbox.path + "/.build/debug", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: sandbox.path + "/bin", withIntermediateDirectories: true)
        for link in [sandbox.path + "/.build/debug/listctl", sandbox.path + "/bin/listctl"] {
            symlink(Binaries.listctl.path, link)
        }
        sandbox.file = home + "/.local/share/listd/lists.md"
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let shell = try DocShell(directory: sandbox.path, environment: [
            "HOME": home, "LISTD_SOCKET": sandbox.socket, "PATH": sandbox.path + "/bin:/usr/bin:/bin",
            "TZ": "UTC", "LC_ALL": "C.UTF-8", "COLUMNS": "100",
        ])
        defer { shell.close() }
        for command in commands {
            let expected = command.expected.map { Self.alike($0, sandbox: sandbox.path) }
            var printed: [String] = []
            // The list file is written a moment after a confirm: a `cat` of it may be read again.
            let deadline = Date().addingTimeInterval(command.command.hasPrefix("cat ") ? 5 : 0)
            repeat {
                printed = try shell.run(command.command, interrupted: command.interrupted).map { Self.alike($0, sandbox: sandbox.path) }
                if printed == expected { break }
                usleep(50_000)
            } while Date() < deadline
            #expect(
                printed == expected,
                "\(page) \(command): the page shows\n\(expected.joined(separator: "\n"))\nbut it printed\n\(printed.joined(separator: "\n"))"
            )
        }
    }

    /// Items 6, 7 and 11: what the README says outside its console blocks holds too.
    @Test func theReadmesOtherWordsHold() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        // The licence where tools and people look for it, linked from the README.
        #expect(FileManager.default.fileExists(atPath: Self.root + "/LICENSE"))
        #expect(!FileManager.default.fileExists(atPath: Self.root + "/docs/LICENSE"))
        #expect(readme.contains("[LICENSE](LICENSE)"))
        // The man pages before installing: where `make man` writes them.
        let makefile = try String(contentsOfFile: Self.root + "/Makefile", encoding: .utf8)
        let generated = makefile.firstMatch(of: /(?m)^GENERATED := (\S+)$/).map { String($0.output.1) } ?? "?"
        #expect(readme.contains("`make man`, then\n`man -l \(generated)/man/listctl.1`"), "the README names \(generated)")
        // Each inline `listctl add Groceries -- …` adds the one item that starts with a dash.
        let examples = readme.matches(of: /`(listctl add Groceries -- [^`]+)`/).map { String($0.output.1) }
        #expect(!examples.isEmpty)
        for example in examples {
            let daemon = try Daemon.start()
            _ = try LineConnection(path: daemon.sandbox.socket).result("createList", ["name": "Groceries"])
            let run = try ChildProcess.run(
                "/bin/bash",
                ["-c", "\(example.replacing("listctl ", with: "'\(Binaries.listctl.path)' ", maxReplacements: 1))"],
                environment: ["LISTD_SOCKET": daemon.sandbox.socket, "PATH": "/usr/bin:/bin"]
            )
            #expect(run.status == 0, "\(example): \(run.stderr)")
            let items = try LineConnection(path: daemon.sandbox.socket).result("getList", ["list": "Groceries"])["items"] as? [String]
            #expect(items?.count == 1 && items?.first?.hasPrefix("-") == true && items?.first?.contains(" ") == true, "\(example) added \(items ?? [])")
        }
    }

    /// A line with what differs from run to run made alike: times, pids, uids, the sandbox, the
    /// name listd gives itself in the list file's notes.
    static func alike(_ line: String, sandbox: String) -> String {
        var text = line.replacingOccurrences(of: sandbox, with: "<dir>")
        let patterns: [(String, String)] = [
            (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#, "<time>"),
            (#"\d{4}-\d\d-\d\d \d\d:\d\d"#, "<time>"),
            (#"pid \d+"#, "pid <n>"),
            (#"uid \d+"#, "uid <n>"),
            (#" of=[0-9a-f]{8} -->"#, " of=<listd> -->"),
        ]
        for (pattern, replacement) in patterns {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }
}

/// One bash, fed the page's commands one at a time (an alias or a `cd` holds for the next, as in
/// a person's terminal); each command's output (stdout and stderr, in order) is read up to a
/// marker line printed after it.
final class DocShell {
    private let bash: ChildProcess
    private let input: Int32
    private let reader: LineReader
    private var count = 0

    init(directory: String, environment: [String: String]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw TestFailure("pipe failed") }
        // Only bash gets the read end; no child gets the write end (its EOF would never come).
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        // bash reads its commands from the pipe; the pipe's read end becomes its stdin.
        let script = "cd '\(directory)' && exec 2>&1 && exec bash --norc --noprofile -O expand_aliases 0<&\(pipeEnds[0])"
        bash = try ChildProcess("/bin/bash", ["--norc", "--noprofile", "-c", script], environment: environment)
        Glibc.close(pipeEnds[0])
        input = pipeEnds[1]
        reader = LineReader(bash.stdout)
    }

    /// What `command` printed, line by line.
    func run(_ command: String, interrupted: Bool) throws -> [String] {
        count += 1
        let marker = "--- listd doc command \(count) done ---"
        // A command shown interrupted (^C): its moment, then SIGINT, as a person's Ctrl-C.
        let line = interrupted ? "timeout -s INT 4 \(command)" : command
        let text = "\(line)\n__status=$?; echo; echo '\(marker)'; (exit $__status)\n"
        _ = text.withCString { write(input, $0, strlen($0)) }
        var lines: [String] = []
        while true {
            guard let next = try? reader.line(timeout: 30) else {
                throw TestFailure("$ \(command): no end within 30 s; it printed \(lines)")
            }
            if next == marker { break }
            lines.append(next)
        }
        // The `echo` before the marker ends a last line printed without a newline.
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    func close() {
        Glibc.close(input)
        bash.signal(SIGTERM)
        _ = bash.wait(timeout: 5)
    }
}
