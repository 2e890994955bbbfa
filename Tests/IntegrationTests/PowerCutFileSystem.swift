import Foundation
import Glibc

/// powercutfs (`Tests/PowerCutFS`), a FUSE file system that holds every change not yet made
/// durable in memory and can cut the power: built from source once per test run, mounted on a
/// directory of the test's, its durable state kept in an image directory beside it.
final class PowerCutFileSystem: @unchecked Sendable {
    /// When the power goes, besides `cutPower()`.
    enum Cut: CustomStringConvertible {
        /// Just before the n-th changing request (write, truncate, create, rename, fsync, …).
        case atOperation(Int)
        /// Just before, or just after, the k-th rename onto this name.
        case beforeRename(String, count: Int = 1)
        case afterRename(String, count: Int = 1)

        var arguments: [String] {
            switch self {
            case .atOperation(let count): ["--cut-at-op", String(count)]
            case .beforeRename(let name, let count): ["--cut-before-rename", name, "--rename-count", String(count)]
            case .afterRename(let name, let count): ["--cut-after-rename", name, "--rename-count", String(count)]
            }
        }

        var description: String {
            switch self {
            case .atOperation(let count): "at operation \(count)"
            case .beforeRename(let name, let count): "before rename \(count) onto \(name)"
            case .afterRename(let name, let count): "after rename \(count) onto \(name)"
            }
        }
    }

    /// Whether this machine can mount it: /dev/fuse, libfuse3's headers and a C compiler, and
    /// root (or fusermount3) to mount.
    static var isAvailable: Bool {
        access("/dev/fuse", R_OK | W_OK) == 0 && compiler != nil && fuseFlags != nil
            && (getuid() == 0 || executable(named: "fusermount3") != nil)
    }

    /// What `isAvailable` needs, for a skip's or a failure's message.
    static let need = "FUSE: /dev/fuse, fuse3 and libfuse3-dev, a C compiler, and root or fusermount3"

    /// The image: what survives a cut (and a clean unmount) lives here between mounts.
    let image: String
    let mountpoint: String
    private var child: ChildProcess?
    private var output: LineReader?

    /// An empty file system, mounted nowhere yet, in `directory`.
    init(in directory: String) throws {
        image = directory + "/image"
        mountpoint = directory + "/mnt"
        for path in [image, mountpoint] where mkdir(path, 0o755) != 0 {
            throw TestFailure("mkdir \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// An empty file system in `sandbox`, mounted nowhere yet, where the sandbox's list file
    /// (and so listd's own files beside it) will live; its socket stays outside.
    convenience init(holdingListFileOf sandbox: Sandbox) throws {
        try self.init(in: sandbox.path)
        sandbox.file = mountpoint + "/lists.md"
    }

    /// Mounts the image, with the power to go as `cut` says; returns once the mount is in place.
    func mount(cut: Cut? = nil) throws {
        let binary = try Self.binary.get()
        let child = try ChildProcess(binary, [image, mountpoint] + (cut?.arguments ?? []), mergeOutput: true)
        self.child = child
        output = LineReader(child.stdout)
        let first = try output!.line(timeout: 10)
        guard first == "mounted" else { throw TestFailure("powercutfs did not mount: \(first)") }
        cutReason = nil
    }

    /// Cuts the power now (SIGUSR1); `waitForCut` says when it is done.
    func cutPower() {
        child?.signal(SIGUSR1)
    }

    /// Fills the disk (SIGUSR2): from the next request on, writes, creates and syncs fail with
    /// ENOSPC. (A signal is taken before the file system's next request is served.)
    func fillDisk() {
        child?.signal(SIGUSR2)
    }

    /// Frees the disk filled by `fillDisk`.
    func freeDisk() {
        child?.signal(SIGUSR2)
    }

    /// Waits until the power is cut and the image holds only what was durable; returns why.
    func waitForCut(timeout: Double = 20) throws -> String {
        if let cutReason { return cutReason }
        guard let output else { throw TestFailure("powercutfs is not mounted") }
        return try take(output.line(timeout: timeout))
    }

    /// Whether the power is cut already (the image holds only what was durable).
    var hasCut: Bool {
        if cutReason == nil, let line = output?.lineIfReady() { _ = try? take(line) }
        return cutReason != nil
    }

    private var cutReason: String?

    private func take(_ line: String) throws -> String {
        guard line.hasPrefix("cut: ") else { throw TestFailure("powercutfs said \(line), not cut") }
        cutReason = String(line.dropFirst(5))
        return cutReason!
    }

    /// Unmounts (after a cut the image is left as the cut wrote it) and waits for the process.
    func unmount(timeout: Double = 10) throws {
        guard let child else { return }
        defer { self.child = nil }
        child.signal(SIGTERM)
        guard child.wait(timeout: timeout) != nil else {
            child.signal(SIGKILL)
            _ = umount2(mountpoint, Int32(MNT_DETACH))
            throw TestFailure("powercutfs did not unmount within \(timeout) s")
        }
    }

    deinit {
        if let child, !child.hasExited {
            child.signal(SIGKILL)
            child.wait(timeout: 10)
            _ = umount2(mountpoint, Int32(MNT_DETACH))
        }
    }

    // MARK: Building it

    private static let source = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PowerCutFS/powercutfs.c").path

    /// Compiled once per test process, into a directory of its own.
    private static let binary: Result<String, TestFailure> = {
        guard let compiler, let fuseFlags else {
            return .failure(TestFailure("powercutfs needs a C compiler and libfuse3-dev (pkg-config fuse3)"))
        }
        let output = NSTemporaryDirectory() + "powercutfs-\(getpid())"
        do {
            let run = try ChildProcess.run(compiler, ["-O2", "-Wall", "-o", output, source] + fuseFlags)
            guard run.status == 0 else {
                return .failure(TestFailure("compiling \(source) failed: \(run.stderr)\(run.stdout)"))
            }
        } catch {
            return .failure(TestFailure("compiling \(source): \(error)"))
        }
        return .success(output)
    }()

    private static let compiler = ["cc", "gcc", "clang"].lazy.compactMap(executable(named:)).first

    /// `pkg-config --cflags --libs fuse3`, or nil without libfuse3-dev.
    private static let fuseFlags: [String]? = {
        guard let pkgConfig = executable(named: "pkg-config"),
            let run = try? ChildProcess.run(pkgConfig, ["--cflags", "--libs", "fuse3"]), run.status == 0
        else { return nil }
        return run.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
    }()

    private static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
