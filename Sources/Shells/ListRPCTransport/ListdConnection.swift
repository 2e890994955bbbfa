// A connection to listd's socket, framed in lines: how ListClient (listctl's async side, the
// tests, any Swift program) and listd-web's PageRelay (one per open page) each open theirs, and
// the `hello` line a client opens with.
import ErrnoText
import ListRPC
import NIOCore
import NIOPosix

package enum ListdConnection {
    /// listd's socket could not be connected to: where, and why in a short phrase ("no such file
    /// or directory", "connection refused").
    package struct Unreachable: Error, Sendable, CustomStringConvertible {
        package var socketPath: String
        package var detail: String

        package var description: String { "listd cannot be reached at \(socketPath): \(detail)" }
    }

    /// Connects to listd at `socketPath`; inbound elements are lines without their `\n`,
    /// outbound ones are written as given.
    /// - Parameter maximumLineLength: the longest line taken from listd (a list, a history);
    ///   longer, the connection fails.
    package static func open(
        socketPath: String,
        maximumLineLength: Int = LineFraming.defaultMaximumLineLength
    ) async throws(Unreachable) -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture { try LineFraming.wrap(channel, maximumLineLength: maximumLineLength) }
                }
        } catch let error as IOError {
            throw Unreachable(socketPath: socketPath, detail: errorText(error.errnoCode).lowercased())
        } catch {
            throw Unreachable(socketPath: socketPath, detail: "\(error)")
        }
    }

    /// Connects as `open` does, for a relay: a line from listd longer than `maximumLineLength`
    /// comes as `.oversized` (its start and length) and the lines after it go on.
    package static func openForRelay(
        socketPath: String,
        maximumLineLength: Int
    ) async throws(Unreachable) -> NIOAsyncChannel<RelayedLine, ByteBuffer> {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try LineFraming.wrapSkippingOversized(channel, maximumLineLength: maximumLineLength)
                    }
                }
        } catch let error as IOError {
            throw Unreachable(socketPath: socketPath, detail: errorText(error.errnoCode).lowercased())
        } catch {
            throw Unreachable(socketPath: socketPath, detail: "\(error)")
        }
    }

    /// The `hello` request a client opens with, as a line: its name (shown in the origin of every
    /// change it makes) and what it declares of itself (brief replies, fewer rights).
    package static func helloLine(id: RPCRequestID, _ params: Hello.Params) throws -> ByteBuffer {
        try RPCOutgoing.request(id: id, method: Hello.name, params: params)
    }
}
