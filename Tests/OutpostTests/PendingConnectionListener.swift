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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw TestHarnessError("socket() failed") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard ok else {
            close(fd)
            throw TestHarnessError("could not listen on 127.0.0.1")
        }
        self.fd = fd
        port = UInt16(bigEndian: addr.sin_port)
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
