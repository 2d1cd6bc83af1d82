#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Free loopback TCP ports for test servers.
///
/// The ports come from below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`). A port from inside it
/// (what binding port 0 gives) can be taken as the source port of any outgoing connection (a PostgreSQL client, a
/// libcurl request) between the moment it is handed out and the moment the server binds it; a relay's admin listener
/// once failed that way ("Address already in use") with the public one already up.
public enum PortAllocator {
    /// Ports already handed out in this process: the kernel may give a just-closed port again, and two ports asked for
    /// one server (Dovecot's IMAP and IMAPS) once came out equal ("duplicate listener").
    private static let handedOut = Mutex<Set<UInt16>>([])

    /// The lowest port handed out: above the registered services most machines run.
    static let lowestPort: UInt16 = 15_000

    /// The ports to choose from: `lowestPort` up to the ephemeral range's start, or nil when that leaves too few.
    static let range: Range<UInt16>? = {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
              let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first,
              let ephemeralStart = UInt16(first), ephemeralStart > lowestPort + 1_000
        else { return nil }
        return lowestPort..<ephemeralStart
    }()

    /// A port that was free a moment ago, outside the ephemeral range, and that no earlier call in this process returned.
    public static func freePort() throws -> UInt16 {
        for _ in 0..<200 {
            let port: UInt16
            if let range {
                port = UInt16.random(in: range)
                guard canBind(port) else { continue }
            } else {
                port = try bound(port: 0)
            }
            if handedOut.withLock({ $0.insert(port).inserted }) { return port }
        }
        throw TestHarnessError("no loopback port that was free and not handed out before, in 200 tries")
    }

    /// Whether `port` on loopback can be bound now (without `SO_REUSEADDR`, so a port in TIME_WAIT is refused too).
    static func canBind(_ port: UInt16) -> Bool {
        (try? bound(port: port)) == port
    }

    /// Binds `port` on loopback (0: any the kernel picks), reads the bound port back and closes.
    private static func bound(port: UInt16) throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestHarnessError("socket() failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
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
