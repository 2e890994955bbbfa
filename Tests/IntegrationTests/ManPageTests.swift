// Issue 36, item 5: listd(8) is written by hand; this holds it to listd --help (every option is
// there, with the default --help gives) and to man (it renders with no warning, and has the
// sections a daemon's page needs).
import Foundation
import Glibc
import Testing

@Suite(.offThePool) struct ManPageTests {
    static let page = DocExamplesTests.root + "/docs/man/listd.8"

    @Test func listdsPageNamesEveryOptionWithItsDefault() throws {
        let source = try String(contentsOfFile: Self.page, encoding: .utf8)
        let help = try ChildProcess.run(Binaries.listd.path, ["--help"]).stdout
        // `  --settle-ms <milliseconds>  How long … (default: 30)`: each option and its default.
        let options = help.matches(of: /(?m)^\s+(?:-h, )?--([a-z-]+)/).map { String($0.output.1) }
        #expect(options.count >= 15, "\(help)")
        for option in options {
            #expect(source.contains("Fl -\(option)"), "listd(8) names --\(option)")
        }
        let flattened = help.replacing(/\s+/, with: " ")
        for match in flattened.matches(of: /--([a-z-]+) <[^>]+> [^-]*?\(default: ([0-9]+)\)/) {
            let (option, value) = (String(match.output.1), String(match.output.2))
            let entry = source.components(separatedBy: ".It Fl -\(option)").dropFirst().first?.components(separatedBy: ".It ").first ?? ""
            #expect(entry.contains("Default: \(value)."), "listd(8) gives --\(option)'s default, \(value): \(entry)")
        }
    }

    @Test func listdsPageRendersCleanlyWithTheSectionsADaemonNeeds() throws {
        try Requirement.check(access("/usr/bin/man", X_OK) == 0, needing: "man (Debian: man-db)")
        let run = try ChildProcess.run("/usr/bin/man", ["--warnings", "-l", Self.page], environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "man --warnings: \(run.stderr)")
        for section in ["SYNOPSIS", "OPTIONS", "ENVIRONMENT", "FILES", "SIGNALS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
            #expect(run.stdout.contains("\n\(section)\n"), "listd(8) has \(section)")
        }
        #expect(!run.stdout.contains("subcommand") && !run.stdout.contains("listd help"), "no generated boilerplate")
    }

    /// listd(5), the list file's page, written by hand too.
    @Test func theListFilesPageRendersCleanly() throws {
        try Requirement.check(access("/usr/bin/man", X_OK) == 0, needing: "man (Debian: man-db)")
        let page = DocExamplesTests.root + "/docs/man/listd.5"
        let run = try ChildProcess.run("/usr/bin/man", ["--warnings", "-l", page], environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin"])
        #expect(run.status == 0 && run.stderr.isEmpty, "man --warnings: \(run.stderr)")
        #expect(run.stdout.contains("2 l milk"), "amounts as people write them")
    }
}
