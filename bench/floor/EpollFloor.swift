// listd-floor --epoll: the same floor without SwiftNIO: one thread, a raw epoll loop over
// non-blocking Unix sockets, each connection's bytes in a buffer kept for its life, lines cut by
// listd's own `LineRule`. After each `epoll_wait` it writes the lines of the wakeup in one
// `write`, makes them durable with one `fdatasync`, then answers each connection in one `write`
// — what Redis does before it sleeps (`appendfsync always`). Its distance to the NIO floor is
// what SwiftNIO's pipeline costs a request; its distance to Redis, what is left of Swift's.
import CLinux
import Glibc
import ListRPC

/// One client connection: what it sent that is not a whole line yet, and what it is owed.
struct EpollConnection {
    var input: [UInt8] = []
    /// Lines taken from it in this wakeup, each owed a reply once they are durable.
    var owed = 0
    /// Replies the socket did not take yet (it was full): sent when it can take more.
    var output: [UInt8] = []
}

struct EpollFloor {
    let listener: Int32
    let poll: Int32
    let file: Int32
    let durable: Bool
    /// By descriptor: a connection's state, nil for a descriptor that is not one.
    var connections: [EpollConnection?] = []
    /// The descriptors owed replies in this wakeup, in the order they were read.
    var owing: [Int32] = []
    var pending: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    static let reply = Array(#"{"jsonrpc":"2.0","id":0,"result":true}"#.utf8) + [UInt8(ascii: "\n")]

    init(socketPath: String, file: Int32, durable: Bool) {
        self.file = file
        self.durable = durable
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(listener >= 0, "socket: \(String(cString: strerror(errno)))")
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            let bytes = Array(socketPath.utf8.prefix(path.count - 1))
            path.copyBytes(from: bytes)
            path[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        precondition(bound == 0 && listen(listener, 4096) == 0, "bind/listen: \(String(cString: strerror(errno)))")
        let poll = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(poll >= 0, "epoll_create1: \(String(cString: strerror(errno)))")
        self.listener = listener
        self.poll = poll
        watch(listener, EPOLLIN.rawValue)
        pending.reserveCapacity(64 * 1024)
    }

    func watch(_ descriptor: Int32, _ events: UInt32, change: Int32 = EPOLL_CTL_ADD) {
        var event = epoll_event(events: events, data: epoll_data_t(fd: descriptor))
        precondition(epoll_ctl(poll, change, descriptor, &event) == 0, "epoll_ctl: \(String(cString: strerror(errno)))")
    }

    mutating func run() -> Never {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let count = epoll_wait(poll, &events, Int32(events.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("epoll_wait: \(String(cString: strerror(errno)))")
            }
            for index in 0..<Int(count) {
                let descriptor = events[index].data.fd
                if descriptor == listener {
                    acceptAll()
                } else if events[index].events & EPOLLOUT.rawValue != 0 {
                    flushOutput(descriptor)
                } else {
                    readFrom(descriptor)
                }
            }
            endWakeup()
        }
    }

    mutating func acceptAll() {
        while true {
            let client = listd_accept4(listener, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            guard client >= 0 else { return }
            if connections.count <= Int(client) { connections += Array(repeating: nil, count: Int(client) + 1 - connections.count) }
            connections[Int(client)] = EpollConnection()
            watch(client, EPOLLIN.rawValue)
        }
    }

    mutating func readFrom(_ descriptor: Int32) {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EAGAIN || errno == EINTR { return }
        guard count > 0 else { return drop(descriptor) }
        let slot = Int(descriptor)
        connections[slot]!.input.append(contentsOf: chunk[..<count])
        var taken = 0
        var lines = 0
        connections[slot]!.input.withUnsafeBytes { bytes in
            while case .line(let text, let next) = LineRule.cut(UnsafeRawBufferPointer(rebasing: bytes[taken...])) {
                pending.append(contentsOf: bytes[(taken + text.lowerBound)..<(taken + text.upperBound)])
                pending.append(UInt8(ascii: "\n"))
                taken += next
                lines += 1
            }
        }
        connections[slot]!.input.removeFirst(taken)
        if lines > 0 {
            if connections[slot]!.owed == 0 { owing.append(descriptor) }
            connections[slot]!.owed += lines
        }
    }

    /// The wakeup's lines made durable, then every reply owed, one write per connection.
    mutating func endWakeup() {
        guard !owing.isEmpty else { return }
        if durable { pending.withUnsafeBytes { appendDurably($0, to: file) } }
        pending.removeAll(keepingCapacity: true)
        for descriptor in owing {
            let slot = Int(descriptor)
            guard connections.indices.contains(slot), connections[slot] != nil else { continue }
            let waiting = connections[slot]!.output.isEmpty
            for _ in 0..<connections[slot]!.owed { connections[slot]!.output.append(contentsOf: Self.reply) }
            connections[slot]!.owed = 0
            if waiting { flushOutput(descriptor) }
        }
        owing.removeAll(keepingCapacity: true)
    }

    mutating func flushOutput(_ descriptor: Int32) {
        let slot = Int(descriptor)
        guard connections.indices.contains(slot), connections[slot] != nil else { return }
        let written = connections[slot]!.output.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0, errno != EAGAIN, errno != EINTR { return drop(descriptor) }
        if written > 0 { connections[slot]!.output.removeFirst(written) }
        // What the socket did not take waits for it to drain.
        watch(descriptor, connections[slot]!.output.isEmpty ? EPOLLIN.rawValue : EPOLLIN.rawValue | EPOLLOUT.rawValue, change: EPOLL_CTL_MOD)
    }

    mutating func drop(_ descriptor: Int32) {
        close(descriptor)
        connections[Int(descriptor)] = nil
    }
}
