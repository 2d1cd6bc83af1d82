#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 with a port the kernel picked, for
/// test stand-ins that speak (or refuse to speak) a protocol by hand.
public enum LoopbackListeningSocket {
    /// Opens, binds and listens; close-on-exec always.
    ///
    /// - Parameters:
    ///   - backlog: connections the kernel completes before `accept`.
    ///   - nonBlocking: whether `accept` returns at once when none is waiting.
    /// - Returns: the descriptor (the caller closes it) and its port.
    public static func open(backlog: Int32, nonBlocking: Bool = false) throws -> (fd: Int32, port: UInt16) {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { throw TestHarnessError("socket() failed") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard ok else {
            close(fd)
            throw TestHarnessError("could not listen on 127.0.0.1")
        }
        return (fd, UInt16(bigEndian: addr.sin_port))
    }
}
