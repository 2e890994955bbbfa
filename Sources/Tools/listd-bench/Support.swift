import Foundation
import Glibc

/// Monotonic time in nanoseconds.
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Pins the calling thread to one CPU (nil: any).
func pinThread(to cpu: Int?) {
    var set = cpu_set_t()
    withUnsafeMutableBytes(of: &set) { bytes in
        if let cpu {
            bytes[cpu / 8] = UInt8(1 << (cpu % 8))
        } else {
            for cpu in 0..<min(ProcessInfo.processInfo.activeProcessorCount, bytes.count * 8) {
                bytes[cpu / 8] |= UInt8(1 << (cpu % 8))
            }
        }
    }
    // sched_setaffinity is hidden behind _GNU_SOURCE in the Swift overlay; look it up.
    typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_setaffinity") else { return }
    let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
    _ = withUnsafeBytes(of: &set) { setAffinity(0, MemoryLayout<cpu_set_t>.size, $0.baseAddress!) }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A blocking Unix-socket connection that speaks lines: the bench's own client, raw sockets only.
final class LineSocket {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8.prefix($0.count - 1))) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            close(fd)
            throw BenchError("connect \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    func send(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// The next line (without its newline), or nil at the end of the stream.
    func readLine() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            if !fill() { return nil }
        }
    }

    /// Reads what is there (blocking once); false at the end of the stream.
    func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { return false }
        buffer += chunk[..<count]
        return true
    }

    /// Complete lines waiting in the buffer, consumed.
    func takeLines() -> Int {
        var lines = 0
        while let newline = buffer[start...].firstIndex(of: 0x0A) {
            start = newline + 1
            lines += 1
        }
        return lines
    }

    /// A request, then its reply line.
    @discardableResult
    func call(_ line: String) -> ArraySlice<UInt8>? {
        send(line)
        return readLine()
    }
}

/// A child process, optionally pinned with taskset.
final class Child {
    let process = Process()

    init(_ path: String, _ arguments: [String], cpu: Int? = nil, quiet: Bool = true) throws {
        if let cpu {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", "\(cpu)", path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
        }
        if quiet {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    func stop() {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = now() + 10_000_000_000
        while process.isRunning, now() < deadline { usleep(5_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Waits until something answers at `socket`.
func waitForSocket(
    _ socket: String,
    probe: String = #"{"jsonrpc":"2.0","id":0,"method":"hello"}"#,
    timeout: Double = 180
) throws {
    let deadline = now() + UInt64(timeout * 1e9)
    while now() < deadline {
        if let connection = try? LineSocket(path: socket), connection.call(probe) != nil { return }
        usleep(2_000)
    }
    throw BenchError("nothing answered at \(socket)")
}

/// CPU time a process uses over the next `seconds`, in nanoseconds, every thread's: each is read
/// every 50 ms, so a thread that exits meanwhile counts up to its last reading (a difference of
/// two sums would lose all of it, and a thread that starts would count as a whole).
func cpuTimeOver(seconds: Double, of pid: Int32) -> UInt64 {
    let start = threadCPUTimes(pid)
    var last = start
    let stop = now() + UInt64(seconds * 1e9)
    while now() < stop {
        usleep(50_000)
        last.merge(threadCPUTimes(pid)) { _, new in new }
    }
    return last.reduce(0) { total, thread in total + (thread.value - min(thread.value, start[thread.key] ?? 0)) }
}

/// Resident memory of a process, in KiB.
func residentKiB(of pid: Int32) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
}

/// Raises this process's open-file limit to its hard limit (10,000 subscribers need as many).
func raiseFileLimit() {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

// MARK: Statistics

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// A figure over several runs: the median run, and the lowest and highest.
struct Stat: Codable {
    var median: Double
    var low: Double
    var high: Double

    init(_ runs: [Double]) {
        let sorted = runs.sorted()
        median = percentile(sorted, 0.5)
        low = sorted.first ?? .nan
        high = sorted.last ?? .nan
    }
}
