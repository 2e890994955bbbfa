// The one thing both floors do with the disk: a batch of lines appended and made durable.
import Glibc

/// Writes all of `bytes` to `file` (opened for appending), then `fdatasync`s it: one batch of
/// lines made durable, as listd's change log and Redis's `appendfsync always` do per batch.
func appendDurably(_ bytes: UnsafeRawBufferPointer, to file: Int32) {
    var offset = 0
    while offset < bytes.count {
        let written = write(file, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            fatalError("write: \(String(cString: strerror(errno)))")
        }
        offset += written
    }
    while fdatasync(file) != 0 {
        if errno != EINTR { fatalError("fdatasync: \(String(cString: strerror(errno)))") }
    }
}
