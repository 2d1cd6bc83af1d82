#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation

/// A plain TCP connection to a loopback port for tests that must send bytes
/// no HTTP client would (malformed requests, slow senders, early hang-ups).
///
/// Blocking socket calls run on GCD threads, never on Swift's cooperative
/// pool, so a test waiting for bytes cannot starve the server under test.
// Safe to send: `fd` is set once in init and closed once in `close()`;
// callers do not use one connection from two tasks at the same time.
public final class RawConnection: @unchecked Sendable {
    private var fd: Int32

    /// Connects to 127.0.0.1:`port`.
    public init(port: UInt16, receiveTimeoutSeconds: Int = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestHarnessError("socket() failed") }
        var tv = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let code = errno
            // Through close(), which marks the descriptor closed: a class whose init throws is deinitialized, and a
            // second close here would close whatever descriptor another test has opened under the same number since.
            close()
            throw TestHarnessError("connect to port \(port) failed: errno \(code)")
        }
    }

    deinit { close() }

    /// Sends all bytes; false when the peer has closed.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the peer closes or the receive timeout passes, off the cooperative pool.
    public func readToEnd() async -> [UInt8] {
        await Blocking.run {
                var out = [UInt8]()
                var buf = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = buf.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { break }
                    out.append(contentsOf: buf[0..<n])
                }
                return out
        }
    }

    /// Reads one HTTP/1.1 response (head plus Content-Length body), off the cooperative pool.
    public func readResponse() async -> RawResponse? {
        await Blocking.run {
                var data = [UInt8]()
                var buf = [UInt8](repeating: 0, count: 65536)
                func parsed() -> RawResponse? { RawResponse.parse(data) }
                while parsed() == nil {
                    let n = buf.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { break }
                    data.append(contentsOf: buf[0..<n])
                }
                return parsed()
        }
    }

    /// Whether the server has closed the connection (a read returns 0) within the receive timeout.
    public func waitForClose() async -> Bool {
        await Blocking.run {
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buf.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                if n == 0 { return true }
                if n < 0 { return errno == ECONNRESET }
            }
        }
    }

    /// Half-closes: a FIN after what was sent; reading goes on.
    public func finishSending() {
        if fd >= 0 { shutdown(fd, Int32(SHUT_WR)) }
    }

    /// Closes with a reset (RST) instead of a FIN, as a client that crashed or timed out would.
    public func reset() {
        guard fd >= 0 else { return }
        var abort = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    public func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }
}

/// A parsed HTTP/1.1 response.
public struct RawResponse: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Parses a complete response, or nil when more bytes are needed.
    static func parse(_ data: [UInt8]) -> RawResponse? {
        guard let end = data.indices.dropLast(3).first(where: { data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13
            && data[$0 + 3] == 10 }) else { return nil }
        let head = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        let bodyStart = end + 4
        guard data.count >= bodyStart + length else { return nil }
        return RawResponse(status: status, headers: headers, body: Array(data[bodyStart..<bodyStart + length]))
    }
}

/// Runs a command on a thread of its own (a `ChildProcess` waited for with
/// waitpid) and returns its exit status and combined output (stdout and
/// stderr in one stream; `stderr` is empty).
public enum Command {
    public static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: [UInt8], stderr: [UInt8]) {
        try await Blocking.run {
            let output = NSTemporaryDirectory() + "/mailwake-command-\(UUID().uuidString).log"
            defer { unlink(output) }
            let child = try ChildProcess.spawn(executable, arguments, directory: nil, outputPath: output)
            let status = child.waitForExit()
            let text = (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data()
            return (status, Array(text), [])
        }
    }
}
