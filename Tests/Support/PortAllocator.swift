#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Free loopback TCP ports for test servers.
public enum PortAllocator {
    /// Ports already handed out in this process: the kernel may give a just-closed port again, and two ports asked for
    /// one server (Dovecot's IMAP and IMAPS) once came out equal ("duplicate listener").
    private static let handedOut = Mutex<Set<UInt16>>([])

    /// A port that was free a moment ago and that no earlier call in this process returned.
    public static func freePort() throws -> UInt16 {
        for _ in 0..<100 {
            let port = try unboundPort()
            if handedOut.withLock({ $0.insert(port).inserted }) { return port }
        }
        throw TestHarnessError("no loopback port that was not handed out before, in 100 tries")
    }

    /// Binds to port 0 on loopback, reads the port back and closes.
    private static func unboundPort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestHarnessError("socket() failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw TestHarnessError("bind() failed") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard named == 0 else { throw TestHarnessError("getsockname() failed") }
        return UInt16(bigEndian: addr.sin_port)
    }
}
