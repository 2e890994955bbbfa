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

/// Runs `body` on a thread of its own (a plain pthread, detached), at most
/// `concurrentThreadLimit` at a time: a program run per question must never wait for a shared
/// pool to grow (Dispatch's global queue has a thread per core and adds more only after a while).
func startThread(_ body: @escaping @Sendable () -> Void) {
    threadSlots.wait()
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body))
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        threadSlots.signal()
        return nil
    }, box.toOpaque())
    if started == 0 {
        pthread_detach(thread)
    } else {
        box.release()
        threadSlots.signal()
        body()  // no thread to be had: run it here rather than not at all
    }
}

/// How many questions' programs run at once; the others wait their turn (each still within its
/// own time limit at listd).
let concurrentThreadLimit = 64
private let threadSlots = DispatchSemaphore(value: concurrentThreadLimit)

/// Runs a program with an argv (through `env`, which looks it up in PATH, never through a shell),
/// `input` on its stdin; returns its exit status and, with `captureOutput`, its stdout once it has
/// exited (else the program writes to listctl's own stdout). Its stdin is fed and its stdout read
/// on this thread, by `poll`: no other thread is needed, so none can be waited for.
func runCommand(_ argv: [String], input: [UInt8], captureOutput: Bool = true) -> (status: Int32, output: String) {
    let started: Result<Spawned, SpawnFailure> = spawning.withLock { _ in spawn(argv, captureOutput: captureOutput) }
    guard case .success(let program) = started else {
        if case .failure(let failure) = started { return (127, "cannot run \(argv.first ?? ""): \(failure.reason)") }
        return (127, "")
    }
    runningGroup.store(program.pid, ordering: .releasing)
    defer { runningGroup.store(0, ordering: .releasing) }
    var output: [UInt8] = []
    if let readEnd = program.stdout {
        output = exchange(input, into: program.stdin, from: readEnd)
    } else {
        feed(input, into: program.stdin)
    }
    var status: Int32 = 0
    while waitpid(program.pid, &status, 0) < 0, errno == EINTR {}
    let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return (exitStatus, String(decoding: output, as: UTF8.self))
}

/// Pipes are made, marked close-on-exec and a program started one thread at a time: a program
/// another thread started in between would inherit the new ends and hold the pipes open (Glibc's
/// module leaves out pipe2).
private let spawning = Mutex(())

/// A started program: its pid, the write end of its stdin and the read end of its stdout (nil
/// when it writes to listctl's own).
private struct Spawned {
    var pid: pid_t
    var stdin: Int32
    var stdout: Int32?
}

private struct SpawnFailure: Error {
    var reason: String
}

/// Starts `argv` through `env` in a process group of its own (call under `spawning`).
private func spawn(_ argv: [String], captureOutput: Bool) -> Result<Spawned, SpawnFailure> {
    var stdin: [Int32] = [0, 0]
    var stdout: [Int32] = [-1, -1]
    guard pipe(&stdin) == 0 else { return .failure(SpawnFailure(reason: "pipe failed")) }
    if captureOutput {
        guard pipe(&stdout) == 0 else {
            close(stdin[0])
            close(stdin[1])
            return .failure(SpawnFailure(reason: "pipe failed"))
        }
    }
    for fd in stdin + stdout where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
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
    if captureOutput { close(stdout[1]) }
    guard spawned == 0 else {
        close(stdin[1])
        if captureOutput { close(stdout[0]) }
        return .failure(SpawnFailure(reason: String(cString: strerror(spawned))))
    }
    return .success(Spawned(pid: pid, stdin: stdin[1], stdout: captureOutput ? stdout[0] : nil))
}

/// Writes `input` into `writeEnd` (blocking) and closes it; a program that stops reading ends it.
private func feed(_ input: [UInt8], into writeEnd: Int32) {
    var written = 0
    while written < input.count {
        let count = input[written...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }  // the program stopped reading: it has what it wanted
        written += count
    }
    close(writeEnd)
}

/// Feeds `input` into `writeEnd` while reading `readEnd` to its end, by `poll`, so that neither
/// pipe can fill up; closes both. Returns what was read.
private func exchange(_ input: [UInt8], into writeEnd: Int32, from readEnd: Int32) -> [UInt8] {
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    var written = 0
    var writing = true
    _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
    func stopWriting() {
        writing = false
        close(writeEnd)
    }
    if input.isEmpty { stopWriting() }
    while true {
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        if writing { fds.append(pollfd(fd: writeEnd, events: Int16(POLLOUT), revents: 0)) }
        if poll(&fds, nfds_t(fds.count), -1) < 0 {
            if errno == EINTR { continue }
            break
        }
        if writing, fds[1].revents != 0 {
            let count = input[written...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
            if count > 0 { written += count }
            // Done, or the program stopped reading (it has what it wanted).
            if written == input.count || (count < 0 && errno != EAGAIN && errno != EINTR) { stopWriting() }
        }
        if fds[0].revents != 0 {
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            if count <= 0 { break }
            output += chunk[..<count]
        }
    }
    if writing { stopWriting() }
    close(readEnd)
    return output
}

extension String {
    /// The text without whitespace or line ends around it.
    var trimmedOfWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
