// A connection to listd for a program that needs no event loop: a call writes its request and
// blocks until the reply, on the caller's thread; what listd sends on its own is read the same
// way. No threads to start: `listctl add` spends its few milliseconds on the request, not on
// setting up concurrency it would use once.
import Glibc
import ListModel
import ListRPC
import Synchronization

/// One connection to listd's socket, read and called from one thread (answers to questions may
/// come from any: `answers`); closed when released.
///
/// ```swift
/// let client = try BlockingListClient(socketPath: path, name: "shopper")
/// let list = try client.call(AddItem.self, .init(list: .name("Groceries"), item: "milk"))
/// _ = try client.call(Subscribe.self, .init())
/// while let message = client.next() { … }
/// ```
public final class BlockingListClient {
    private typealias Reply = Result<JSONValue, RPCError>

    private let socket: LineSocket
    /// Writes answers to listd's questions, from whatever thread found them.
    public var answers: Answers { Answers(socket: socket) }
    private var nextID: Int64 = 1
    /// The hello that names this client, sent together with the first call (one round trip).
    private var pendingHello: (id: RPCRequestID, line: [UInt8])?
    /// Bytes read: whole lines from `unreadStart` on, then the start of the next.
    private var unread: [UInt8] = []
    private var unreadStart = 0
    /// What each `read` fills.
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)
    /// Replies read while waiting for others, by id.
    private var replies: [RPCRequestID: Reply] = [:]
    /// What listd sent on its own while a call waited for its reply, in order.
    private var received: [ListdMessage] = []
    private var receivedTaken = 0
    /// An error listd sent for the connection itself (not allowed, too many connections…) just
    /// before it closed it.
    private var connectionError: RPCError?

    /// Connects to listd at `socketPath`.
    ///
    /// - Parameters:
    ///   - name: shown in the origin of every change this client makes.
    ///   - timeLimit: how long one read or write may wait before the call fails with
    ///     `connectionClosed` (none by default: a delegate may take its time).
    ///   - brief: edits are confirmed with a `ListSummary`, not the whole list (decode them with
    ///     `batch(_:_:decoding:)`), and notifications are `BriefChangeParams`.
    public init(
        socketPath: String,
        name: String? = nil,
        timeLimit: Duration? = nil,
        brief: Bool = false
    ) throws(ListClientError) {
        let descriptor = try connectToUnixSocket(socketPath)
        if let timeLimit {
            let (seconds, attoseconds) = timeLimit.components
            var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
                setsockopt(descriptor, SOL_SOCKET, option, &limit, socklen_t(MemoryLayout<timeval>.size))
            }
        }
        socket = LineSocket(descriptor)
        if name != nil || brief {
            let id = takeID()
            let params = Hello.Params(name: name, brief: brief ? true : nil)
            // Hello's params never fail to encode (a string and a flag in a struct).
            if let line = try? RPCEncoding.requestBytes(id: id, method: Hello.name, params: params) {
                pendingHello = (id, line + [UInt8(ascii: "\n")])
            }
        }
    }

    deinit { chunk.deallocate() }

    /// Sends one request and waits for its reply.
    public func call<M: RPCMethod>(_ method: M.Type, _ params: M.Params) throws(ListClientError) -> M.Result {
        try call(method, params, decoding: M.Result.self)
    }

    /// The same, its result decoded as `result` (`ConfirmedEdit`, to see what an edit did now),
    /// with what the edit says besides its params (`editId`: sent again, it is applied once).
    public func call<M: RPCMethod, R: Decodable>(
        _ method: M.Type,
        _ params: M.Params,
        provenance: EditProvenance? = nil,
        decoding result: R.Type
    ) throws(ListClientError) -> R {
        let id = takeID()
        let line: [UInt8]
        do {
            line =
                try provenance.map { try RPCEncoding.requestBytes(id: id, method: M.name, params: $0.params(params)) }
                ?? RPCEncoding.requestBytes(id: id, method: M.name, params: params)
        } catch {
            throw .invalidReply("\(error)")
        }
        return try decodeReply(R.self, exchange(line, awaiting: [id])[0])
    }

    /// Sends one JSON-RPC batch of the same method and returns each element's outcome, in order.
    public func batch<M: RPCMethod>(
        _ method: M.Type,
        _ params: [M.Params]
    ) throws(ListClientError) -> [Result<M.Result, ListClientError>] {
        try batch(method, params, decoding: M.Result.self)
    }

    /// The same, each result decoded as `result` (a brief connection's `ListSummary`). More
    /// requests than listd takes in one batch go as several, one after the other.
    public func batch<M: RPCMethod, R: Decodable>(
        _ method: M.Type,
        _ params: [M.Params],
        provenance: [EditProvenance]? = nil,
        decoding result: R.Type
    ) throws(ListClientError) -> [Result<R, ListClientError>] {
        var results: [Result<R, ListClientError>] = []
        results.reserveCapacity(params.count)
        var start = 0
        while start < params.count {
            let chunk = params[start..<min(start + batchSize, params.count)]
            do throws(ListClientError) {
                let outcomes = try oneBatch(method, chunk, provenance: provenance.map { Array($0[chunk.indices]) }, decoding: result)
                for index in outcomes.indices { results.append(outcomes[index]) }
                start = chunk.endIndex
            } catch .protocolError(let error) where error.maximumBatch.map({ $0 < chunk.count }) == true {
                // A listd that takes fewer at once (`--max-batch`) refused it whole: nothing of it
                // was done; it goes again in batches of the size listd said.
                batchSize = error.maximumBatch!
            }
        }
        return results
    }

    /// Requests sent in one batch at most: listd's default, or what a listd that takes fewer said.
    private var batchSize = RPCLine.Limits.default.maximumBatch

    private func oneBatch<M: RPCMethod, R: Decodable>(
        _ method: M.Type,
        _ params: ArraySlice<M.Params>,
        provenance: [EditProvenance]?,
        decoding result: R.Type
    ) throws(ListClientError) -> [Result<R, ListClientError>] {
        guard !params.isEmpty else { return [] }
        let ids = params.map { _ in takeID() }
        var line: [UInt8] = [UInt8(ascii: "[")]
        do {
            // Loops by position, not over `zip(…).enumerated()`: in this generic function, those
            // types' iterators are looked up at run time, scanning every conformance record of a
            // one-shot client's binary (likewise `outcomes` above, not `+=`).
            for index in ids.indices {
                let (id, element) = (ids[index], params[params.startIndex + index])
                if index > 0 { line.append(UInt8(ascii: ",")) }
                if let said = provenance?[index] {
                    try RPCEncoding.writeRequest(id: id, method: M.name, params: said.params(element), into: &line)
                } else {
                    try RPCEncoding.writeRequest(id: id, method: M.name, params: element, into: &line)
                }
            }
        } catch {
            throw .invalidReply("\(error)")
        }
        line.append(UInt8(ascii: "]"))
        return try exchange(line, awaiting: ids).map { reply in
            do throws(ListClientError) {
                return .success(try decodeReply(R.self, reply))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The next notification or question from listd, waiting for it; nil once the connection is
    /// closed (`closingError` says why).
    public func next() -> ListdMessage? {
        while receivedTaken == received.count {
            received.removeAll(keepingCapacity: true)
            receivedTaken = 0
            guard let line = readLine() else { return nil }
            deliver(RPCLine.parse(line))
        }
        defer { receivedTaken += 1 }
        return received[receivedTaken]
    }

    /// Why the connection ended: listd's reason when it sent one.
    public var closingError: ListClientError {
        connectionError.map { .protocolError($0) } ?? .connectionClosed
    }

    private func takeID() -> RPCRequestID {
        defer { nextID += 1 }
        return .number(nextID)
    }

    // MARK: Writing and reading

    /// Writes `line` (after the hello, the first time) and reads until every reply in `ids` is in.
    private func exchange(_ line: [UInt8], awaiting ids: [RPCRequestID]) throws(ListClientError) -> [Reply] {
        var bytes = line
        bytes.append(UInt8(ascii: "\n"))
        var awaited = ids
        if let hello = pendingHello {
            bytes = hello.line + bytes
            awaited.append(hello.id)
            pendingHello = nil
        }
        guard socket.write(bytes) else {
            // listd closed the connection; the line it sent first says why, when there is one.
            while let line = readLine() { deliver(RPCLine.parse(line)) }
            throw closingError
        }
        connectionError = nil
        while !awaited.allSatisfy({ replies[$0] != nil }) {
            guard let line = readLine() else { throw closingError }
            deliver(RPCLine.parse(line))
            // An error naming no request (a line listd could not take): what was sent failed,
            // and no reply to it will come.
            if let error = connectionError { throw .protocolError(error) }
        }
        if awaited.count > ids.count, case .failure(let error) = replies.removeValue(forKey: awaited.last!) {
            throw ListClientError(error)
        }
        return ids.map { replies.removeValue(forKey: $0)! }
    }

    private func deliver(_ line: RPCLine) {
        switch line {
        case .empty: break
        case .single(let message): deliver(message)
        case .batch(let messages): messages.forEach(deliver)
        }
    }

    private func deliver(_ message: Result<RPCMessage, RPCLine.InvalidMessage>) {
        switch message {
        case .success(.response(let response)):
            if let id = response.id, id != .null {
                replies[id] = response.outcome
            } else if case .failure(let error) = response.outcome {
                connectionError = error
            }
        case .success(.request(let request)):
            if let message = ListdMessage(request) { received.append(message) }
        case .failure(let invalid):
            // A reply listd could not even frame: it fails the request it names, if any.
            if let id = invalid.id { replies[id] = .failure(invalid.error) }
        }
    }

    /// The next line without its terminator (`LineRule`), or nil at the end of the connection.
    /// Lines are as long as listd makes them: a reply carries a whole list.
    private func readLine() -> ArraySlice<UInt8>? {
        // Lines already read are dropped only when a read needs the room, not one by one; what was
        // searched for a newline is not searched again.
        var searchFrom = unreadStart
        while true {
            if case .line(let text, let next) = LineRule.cut(unread[unreadStart...], maximumLength: .max, searchFrom: searchFrom) {
                unreadStart = next
                return unread[text]
            }
            unread.removeSubrange(..<unreadStart)
            unreadStart = 0
            searchFrom = unread.count
            let count = read(socket.descriptor, chunk.baseAddress, chunk.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return nil }
            unread.append(contentsOf: chunk[..<count])
        }
    }
}

/// The answers to listd's questions, written from any thread.
public struct Answers: Sendable {
    fileprivate let socket: LineSocket

    /// Sends `answer` for the question `id`; false when the connection is gone.
    @discardableResult
    public func send(_ answer: DelegateAnswer, to id: RPCRequestID) -> Bool {
        guard let line = try? RPCEncoding.result(id: id, answer) else { return false }
        return socket.write(Array(line) + [UInt8(ascii: "\n")])
    }
}

/// The connected socket: whole lines written under a lock (answers come from several threads);
/// closed when the client and every `Answers` are gone.
private final class LineSocket: Sendable {
    let descriptor: Int32
    private let writing = Mutex(())

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// False when listd is gone (the socket is closed or reset).
    func write(_ bytes: [UInt8]) -> Bool {
        writing.withLock { _ in
            var written = 0
            while written < bytes.count {
                // MSG_NOSIGNAL: a closed peer is an error here, not a SIGPIPE that ends the process.
                let count = bytes[written...].withUnsafeBytes {
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return false }
                written += count
            }
            return true
        }
    }
}

/// A connected stream socket to `path`, or why not as a short phrase ("no such file or directory").
private func connectToUnixSocket(_ path: String) throws(ListClientError) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let pathBytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard !pathBytes.isEmpty, pathBytes.count < capacity else {
        throw .cannotConnect(socketPath: path, detail: "a socket path has 1 to \(capacity - 1) bytes")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
    let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard socket >= 0 else { throw .cannotConnect(socketPath: path, detail: errorPhrase(errno)) }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard connected == 0 else {
        let failure = errno
        close(socket)
        throw .cannotConnect(socketPath: path, detail: errorPhrase(failure))
    }
    return socket
}

/// `strerror` as a phrase within a sentence: "connection refused".
package func errorPhrase(_ code: Int32) -> String {
    String(cString: strerror(code)).lowercased()
}
