/// One event read from an inotify descriptor.
public struct InotifyEvent: Hashable, Sendable {
    /// The watch it belongs to; -1 for a queue overflow.
    public var watch: Int32
    public var mask: UInt32
    public var cookie: UInt32
    /// The file's name inside the watched directory; empty for events on the directory itself.
    public var name: String

    public init(watch: Int32, mask: UInt32, cookie: UInt32, name: String) {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    /// Parses what `read(2)` returned: a sequence of `struct inotify_event` records, each a
    /// 16-byte header followed by a NUL-padded name of `len` bytes. A truncated record (which the
    /// kernel never produces) ends the parse rather than reading past the buffer.
    public static func parse(_ bytes: some Collection<UInt8>) -> [InotifyEvent] {
        let bytes = Array(bytes)
        var events: [InotifyEvent] = []
        var offset = 0
        func word(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while offset + 16 <= bytes.count {
            let length = Int(word(offset + 12))
            guard offset + 16 + length <= bytes.count else { break }
            let nameBytes = bytes[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
            events.append(
                InotifyEvent(
                    watch: Int32(bitPattern: word(offset)),
                    mask: word(offset + 4),
                    cookie: word(offset + 8),
                    name: String(decoding: nameBytes, as: UTF8.self)
                )
            )
            offset += 16 + length
        }
        return events
    }
}
