// The exclusive lock a listd holds on the lists it keeps: one listd per list file.
import DurableFiles
import Glibc
import ListCore

/// An exclusive `flock` on `.NAME.listd-lock` beside the list file, held for as long as listd
/// runs (the kernel lets it go when the process ends, however it ends). The change log, the
/// snapshot and the list file all sit beside it, so two listd on one file would each take the
/// other's records for their own; the second one is refused before it touches anything. The
/// holder's pid is written into the lock file so the refusal can name it.
final class StateLock: Sendable {
    let path: String
    private let descriptor: Int32

    /// Takes the lock for the lists kept beside `listFilePath` (its directory must exist).
    init(listFilePath: String) throws(DaemonError) {
        path = StateFiles(besideListFile: listFilePath).lock
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotLockState(path: path, errno: errno) }
        guard case .success = retryingEINTR({ flock(fd, LOCK_EX | LOCK_NB) }) else {
            let code = errno
            let holder = Self.pid(in: fd)
            close(fd)
            if code == EWOULDBLOCK {
                throw .listFileInUse(path: listFilePath, lockPath: path, pid: holder)
            }
            throw .cannotLockState(path: path, errno: code)
        }
        // Ours now: say who holds it.
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        descriptor = fd
    }

    /// The pid the holder wrote, if it wrote one.
    private static func pid(in fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[..<count].filter { (0x30...0x39).contains($0) }, as: UTF8.self))
    }

    deinit { close(descriptor) }
}
