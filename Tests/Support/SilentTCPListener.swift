#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on 127.0.0.1 that never accepts: the kernel completes
/// connections into the backlog and nothing ever answers, so a client waits
/// until its own timeout (a server that "accepts and sleeps").
public final class SilentTCPListener: Sendable {
    public let port: UInt16
    private let fd: Int32

    public init() throws {
        (fd, port) = try LoopbackListeningSocket.open(backlog: 128)
    }

    deinit { close(fd) }
}
