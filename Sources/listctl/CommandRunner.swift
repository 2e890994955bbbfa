import Dispatch
import Foundation

/// Runs a program with an argv (through `env`, which looks it up in PATH, never through a shell),
/// `input` on its stdin, and returns its exit status and stdout.
func runCommand(_ argv: [String], input: Data) async -> (status: Int32, output: String) {
    await withCheckedContinuation { continuation in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--"] + argv
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        let finished = DispatchGroup()
        finished.enter()
        process.terminationHandler = { _ in finished.leave() }
        do {
            try process.run()
        } catch {
            continuation.resume(returning: (127, "cannot run \(argv.first ?? ""): \(error)"))
            return
        }
        // Feed stdin and drain stdout on a thread of their own, so neither pipe can fill up.
        Thread.detachNewThread {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
            let output = stdout.fileHandleForReading.readDataToEndOfFile()
            finished.wait()
            continuation.resume(returning: (process.terminationStatus, String(decoding: output, as: UTF8.self)))
        }
    }
}
