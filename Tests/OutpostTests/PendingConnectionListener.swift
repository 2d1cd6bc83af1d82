#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A TCP listener on 127.0.0.1 that answers nothing and counts the
/// connections the kernel completed for it: something that must never be
/// contacted (a proxy from the environment) can show it was not.
final class PendingConnectionListener: Sendable {
    let port: UInt16
    private let fd: Int32

    init() throws {
        (fd, port) = try LoopbackListeningSocket.open(backlog: 64, nonBlocking: true)
    }

    deinit { close(fd) }

    /// Accepts (without waiting) and closes every connection made so far; returns how many there were.
    func takeConnections() -> Int {
        var n = 0
        while true {
            let c = accept(fd, nil, nil)
            guard c >= 0 else { return n }
            close(c)
            n += 1
        }
    }
}
