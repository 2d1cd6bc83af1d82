import CTLSStreamShims
import Foundation
import TestSupport
import Testing

@Suite("IMAP transport: a TLS setup step that fails is reported")
struct TLSStreamSetupTests {
    /// A listener on a loopback port that accepts connections and never answers.
    final class SilentListener: Sendable {
        let fd: Int32
        let port: UInt16

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self,
                                                                               capacity: 1) { bind(fd, $0,
                                                                                   socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { throw TestHarnessError("cannot listen on loopback") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self,
                                                                              capacity: 1) { getsockname(fd, $0, &length) } }
            self.fd = fd
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(fd) }
    }

    @Test func aMinimumTLSVersionOpenSSLRefusesFailsStartTLSAtOnceWithTheReason() async throws {
        let listener = try SilentListener()
        let port = String(listener.port)
        let (rc, message) = await Blocking.run { () -> (Int32, String) in
            guard let stream = mw_tls_stream_new() else { return (-99, "no stream") }
            defer { mw_tls_stream_close(stream) }
            guard mw_tls_stream_connect(stream, "127.0.0.1", port,
                                        5000) == 0 else { return (-98, String(cString: mw_tls_stream_error(stream))) }
            mw_tls_stream_set_min_version(stream, 0x7777)  // no such protocol version
            // Ignoring the refused setting would send a ClientHello and wait for the silent peer until the timeout.
            let rc = mw_tls_stream_start_tls(stream, "localhost", nil, 3000)
            return (rc, String(cString: mw_tls_stream_error(stream)))
        }
        withExtendedLifetime(listener) {}
        #expect(rc == Int32(MW_STREAM_ERROR), "start_tls answered \(rc): \(message)")
        #expect(message.contains("minimum TLS version"), "\(message)")
    }
}
