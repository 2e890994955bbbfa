import ArgumentParser
@preconcurrency import Glibc

/// Runs `Listctl` with listctl's documented exit statuses: argument-parser's usage errors
/// (EX_USAGE, 64) become 2, as for most Unix tools.
///
/// Synchronous throughout, on the blocking client: a one-shot command (add, show, …) starts no
/// event loop and no Swift concurrency, whose threads would cost a short-lived process more than
/// its request (issue 14). watch and delegate read on this thread and run commands on Dispatch's.
@main
enum Main {
    static func main() {
        // A quick command's output goes out in one write when it exits.
        if let quick = QuickCommand.parse(Array(CommandLine.arguments.dropFirst())) {
            do {
                try quick.run()
            } catch {
                exit(withError: error)
            }
            return
        }
        // watch's lines must reach a pipe as they happen.
        setvbuf(stdout, nil, _IOLBF, 0)
        let commands = Listctl.configuration.subcommands
        let subcommands = Set(commands.compactMap { $0.configuration.commandName })
        var nested: [String: Set<String>] = [:]
        for command in commands where !command.configuration.subcommands.isEmpty {
            guard let name = command.configuration.commandName else { continue }
            nested[name] = Set(command.configuration.subcommands.compactMap { $0.configuration.commandName })
        }
        if let unknown = Arguments.unknownCommand(in: Array(CommandLine.arguments.dropFirst()), subcommands: subcommands, nested: nested) {
            writeError(unknown)
            Glibc.exit(ListctlExit.usage.rawValue)
        }
        let arguments = Arguments.hoistingSharedOptions(
            Array(CommandLine.arguments.dropFirst()),
            subcommands: subcommands,
            nested: nested
        )
        if let stray = Arguments.strayDash(in: arguments) {
            writeError(Arguments.hint(for: stray.word, before: stray.before))
            Glibc.exit(ListctlExit.usage.rawValue)
        }
        do {
            var command = try Listctl.parseAsRoot(arguments)
            try command.run()
        } catch {
            if Listctl.exitCode(for: error) == .validationFailure {
                writeError(Listctl.fullMessage(for: error))
                Glibc.exit(ListctlExit.usage.rawValue)
            }
            exit(withError: error)
        }
    }

    /// Exits as argument-parser would for `error`. A bare exit status (a denial, said already) is
    /// exited with at once: argument-parser's way builds its help text first, and the reflection
    /// that takes cost a denied `listctl add` five times the instructions of a confirmed one.
    static func exit(withError error: any Error) -> Never {
        if let status = error as? ExitCode { Glibc.exit(status.rawValue) }
        Listctl.exit(withError: error)
    }
}

/// listctl's exit statuses (docs/listctl.md).
enum ListctlExit: Int32 {
    case confirmed = 0
    case denied = 1
    case usage = 2
    case unreachable = 3
    case failed = 4
}

func writeError(_ text: String) {
    var line = text
    if !line.hasSuffix("\n") { line += "\n" }
    // What was printed before comes first, also when stdout and stderr are one pipe.
    fflush(stdout)
    fputs(line, stderr)
}
