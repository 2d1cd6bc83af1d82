#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A plaintext IMAP server stand-in on 127.0.0.1 for one connection: it
/// greets offering STARTTLS, answers the client's STARTTLS with OK followed,
/// in the same TCP segment, by whatever bytes a network attacker would
/// append, and records what the client sends next (a TLS ClientHello starts
/// with 0x16) until the client hangs up.
final class STARTTLSStandIn: Sendable {
    /// What the stand-in saw after its OK.
    struct Observation: Sendable {
        /// The STARTTLS command line, as received.
        var command: String
        /// Bytes the client sent after the OK, up to its hang-up (or 10 s).
        var afterOK: [UInt8]
        /// Whether the client began a TLS handshake (a record of type 22).
        var startedTLS: Bool { afterOK.first == 0x16 }
    }

    let port: UInt16
    private let fd: Int32

    init() throws {
        (fd, port) = try LoopbackListeningSocket.open(backlog: 4)
    }

    deinit { close(fd) }

    /// Serves one connection on a thread of its own; `injected` follows the OK.
    func serve(injecting injected: String) async throws -> Observation {
        try await Blocking.run { try self.serveBlocking(injected: Array(injected.utf8)) }
    }

    private func serveBlocking(injected: [UInt8]) throws -> Observation {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 20_000) == 1 else { throw TestHarnessError("no client connected within 20 s") }
        let client = accept(fd, nil, nil)
        guard client >= 0 else { throw TestHarnessError("accept failed: errno \(errno)") }
        defer { close(client) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try send(client, Array("* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] stand-in ready\r\n".utf8))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains(0x0A) {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw TestHarnessError("the client sent no command") }
            received += buffer[0..<n]
        }
        let command = String(decoding: received.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let words = command.split(separator: " ")
        guard words.count == 2,
              words[1].uppercased() == "STARTTLS" else { throw TestHarnessError("expected STARTTLS first, got \(command)") }
        try send(client, Array("\(words[0]) OK Begin TLS negotiation now\r\n".utf8) + injected)
        var after: [UInt8] = []
        while after.count < 65536 {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            after += buffer[0..<n]
            if after.first == 0x16 { break }   // a ClientHello: the client went on to TLS
        }
        return Observation(command: command, afterOK: after)
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) throws {
        let n = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n == bytes.count else { throw TestHarnessError("send failed") }
    }
}
