// Runs a program for `listctl delegate` and `listctl watch --exec`, without Foundation's Process
// (full Foundation costs listctl about 10 ms at every start).
import Dispatch
import Glibc
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Whether `program` can be run: a path to an executable file, or a name found in PATH as
/// `env` would find it. Asked before listctl registers or subscribes, so a typo is a usage error.
func canRun(_ program: String) -> Bool {
    func executable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }
    if program.contains("/") { return executable(program) }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    return path.split(separator: ":", omittingEmptySubsequences: false).contains { directory in
        executable((directory.isEmpty ? "." : String(directory)) + "/" + program)
    }
}

/// listctl writes questions and notifications into its commands' stdin: a command that exits
/// without reading them all must not kill listctl with SIGPIPE (the write fails instead, and the
/// command's exit status still counts). The commands themselves get the default back.
func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
}

/// The process group of the command running now (0 when none): each runs in a group of its own,
/// so that everything it started (a script's `sleep`) can be ended with it.
private let runningGroup = Atomic<Int32>(0)

/// The signal sources that end the running command with listctl (kept for as long as it runs).
nonisolated(unsafe) private var signalSources: [any DispatchSourceSignal] = []

/// When listctl is told to stop (SIGTERM from a service manager, Ctrl-C, a closed terminal), the
/// command it is running is ended too, with everything it started; then listctl dies of the
/// same signal, as it would have.
func endCommandsWithListctl() {
    for stop in [SIGTERM, SIGINT, SIGHUP] {
        signal(stop, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: stop, queue: .global())
        source.setEventHandler {
            let group = runningGroup.load(ordering: .acquiring)
            if group > 0 { kill(-group, SIGTERM) }
            // Dispatch's threads block signals: sent to the process, it is taken by one that
            // does not, and with the default action back, ends listctl as it would have.
            signal(stop, SIG_DFL)
            kill(getpid(), stop)
        }
        source.resume()
        signalSources.append(source)
    }
}

/// Runs a program with an argv (through `env`, which looks it up in PATH, never through a shell),
/// `input` on its stdin; returns its exit status and, with `captureOutput`, its stdout once it has
/// exited (else the program writes to listctl's own stdout).
func runCommand(_ argv: [String], input: [UInt8], captureOutput: Bool = true) -> (status: Int32, output: String) {
    var stdin: [Int32] = [0, 0]
    var stdout: [Int32] = [0, 0]
    guard pipe(&stdin) == 0 else { return (127, "cannot run \(argv.first ?? ""): pipe failed") }
    guard pipe(&stdout) == 0 else {
        close(stdin[0])
        close(stdin[1])
        return (127, "cannot run \(argv.first ?? ""): pipe failed")
    }
    // Not inherited by any other program this process runs (dup2 clears it on the child's 0 and 1).
    for fd in stdin + stdout { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
    if captureOutput { posix_spawn_file_actions_adddup2(&actions, stdout[1], 1) }
    // SIGPIPE as a program expects it, whatever listctl does with it.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // The signals listctl handles itself are the default again in the program, too.
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for handled in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, handled) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    // A process group of its own (its pid's), ended as a whole when listctl is told to stop.
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
    let arguments = (["/usr/bin/env", "--"] + argv).map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, arguments, environ)
    close(stdin[0])
    close(stdout[1])
    guard spawned == 0 else {
        close(stdin[1])
        close(stdout[0])
        return (127, "cannot run \(argv.first ?? ""): \(String(cString: strerror(spawned)))")
    }
    runningGroup.store(pid, ordering: .releasing)
    defer { runningGroup.store(0, ordering: .releasing) }
    // Feed stdin on another thread while stdout is drained here, so neither pipe can fill up.
    let fed = DispatchSemaphore(value: 0)
    let writeEnd = stdin[1]
    DispatchQueue.global().async {
        var written = 0
        while written < input.count {
            let count = input[written...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }  // the program stopped reading: it has what it wanted
            written += count
        }
        close(writeEnd)
        fed.signal()
    }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(stdout[0], $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        output += chunk[..<count]
    }
    close(stdout[0])
    fed.wait()
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitStatus, String(decoding: output, as: UTF8.self))
}

extension String {
    /// The text without whitespace or line ends around it.
    var trimmedOfWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
