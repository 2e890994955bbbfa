import Glibc
import ListFileFormat
import ListModel

/// Reads and durably writes the list file. Blocking: call from a thread pool, never from an
/// event loop.
struct ListFileStore: Sendable {
    let path: String

    /// The book in the file; an empty book, written out at once, when there is no file yet.
    func load() throws(DaemonError) -> ListBook {
        try makeDirectories(directoryName(of: path), mode: 0o700)
        guard let bytes = try readAll() else {
            let book = ListBook()
            try save(book)
            return book
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .listFileNotUTF8(path: path, byteOffset: firstInvalidUTF8Offset(bytes))
        }
        let parsed = ListFile.parse(text, at: .now())
        guard parsed.diagnostics.isEmpty else {
            throw .listFileHasErrors(path: path, problems: parsed.diagnostics.map(\.message))
        }
        return parsed.book
    }

    /// Replaces the file with `book` so that no reader ever sees it half-written and a crash at
    /// any moment leaves either the old or the new content: temp file in the same directory,
    /// fsync, rename over, fsync the directory.
    func save(_ book: ListBook) throws(DaemonError) {
        let text = ListFile.render(book)
        let directory = directoryName(of: path)
        let temporary = directory + "/.listd-" + String(getpid()) + ".tmp"
        var mode: mode_t = 0o600
        var existing = stat()
        if stat(path, &existing) == 0 { mode = existing.st_mode & 0o7777 }

        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .cannotWriteListFile(path: path, step: "create \(temporary)", errno: errno) }
        var failure: (String, Int32)?
        var utf8 = Array(text.utf8)
        utf8.withUnsafeMutableBytes { buffer in
            var written = 0
            while written < buffer.count {
                switch retryingEINTR({ write(fd, buffer.baseAddress! + written, buffer.count - written) }) {
                case .success(let count): written += count
                case .failure(let error):
                    failure = ("write", error.code)
                    return
                }
            }
        }
        if failure == nil, fchmod(fd, mode) != 0 { failure = ("chmod", errno) }
        if failure == nil, fsync(fd) != 0 { failure = ("fsync", errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = ("rename", errno) }
        if let failure {
            unlink(temporary)
            throw .cannotWriteListFile(path: path, step: failure.0, errno: failure.1)
        }
        // The rename is durable only once the directory entry is.
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw .cannotWriteListFile(path: path, step: "open directory", errno: errno) }
        defer { close(directoryFD) }
        if fsync(directoryFD) != 0 { throw .cannotWriteListFile(path: path, step: "fsync directory", errno: errno) }
    }

    /// The file's bytes, or nil when it does not exist.
    private func readAll() throws(DaemonError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .cannotReadListFile(path: path, errno: errno)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingEINTR { read(fd, buffer.baseAddress, buffer.count) }
            }
            switch count {
            case .success(0): return bytes
            case .success(let count): bytes += chunk[..<count]
            case .failure(let error): throw .cannotReadListFile(path: path, errno: error.code)
            }
        }
    }
}

/// Offset of the first byte that is not part of valid UTF-8, for error messages.
func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar): offset += scalar.count
        case .emptyInput, .error: return offset
        }
    }
}
