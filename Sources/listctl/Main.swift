import ArgumentParser
@preconcurrency import Glibc

/// Runs `Listctl` with listctl's documented exit statuses: argument-parser's usage errors
/// (EX_USAGE, 64) become 2, as for most Unix tools.
@main
enum Main {
    static func main() async {
        // watch's lines must reach a pipe as they happen.
        setvbuf(stdout, nil, _IOLBF, 0)
        do {
            var command = try Listctl.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if Listctl.exitCode(for: error) == .validationFailure {
                writeError(Listctl.fullMessage(for: error))
                exit(ListctlExit.usage.rawValue)
            }
            Listctl.exit(withError: error)
        }
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
    fputs(line, stderr)
}
