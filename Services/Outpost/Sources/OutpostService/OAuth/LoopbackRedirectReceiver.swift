import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The loopback redirect of a native app (RFC 8252 §7.3): an HTTP listener on
/// 127.0.0.1 at an ephemeral port that takes the one redirect carrying the
/// authorization code. It runs on a thread of its own.
public final class LoopbackRedirectReceiver: Sendable {
    public let port: UInt16
    private let socket: Int32
    private let closed = Atomic<Bool>(false)

    /// `http://127.0.0.1:<port>/`, the redirect URI to register in the request.
    public var redirectURI: String { "http://127.0.0.1:\(port)/" }

    /// Listens on 127.0.0.1 at a port the kernel picks.
    public init() throws(OAuthError) {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw OAuthError("listen", "cannot open a socket for the redirect: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0,
              withUnsafeMutablePointer(to: &address,
                                       { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }) == 0
        else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw OAuthError("listen", "cannot listen on 127.0.0.1 for the redirect: \(reason)")
        }
        socket = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { stop() }

    /// Stops listening.
    public func stop() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { close(socket) }
    }

    /// Waits (on a thread of its own) for the redirect and returns its code;
    /// a wrong `state` or an `error` ends the wait with that error.
    public func code(expectedState: String, timeout: Duration) async throws(OAuthError) -> String {
        let result: Result<String, OAuthError> = await withCheckedContinuation { continuation in
            let thread = Thread { [self] in continuation.resume(returning: self.serve(expectedState: expectedState, timeout: timeout)) }
            thread.name = "oauth-redirect"
            thread.start()
        }
        return try result.get()
    }

    private func serve(expectedState: String, timeout: Duration) -> Result<String, OAuthError> {
        defer { stop() }
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero, !closed.load(ordering: .acquiring) else {
                return .failure(OAuthError("timeout", "no redirect arrived from the browser within \(timeout.components.seconds) s"))
            }
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let r = poll(&ready, 1, Int32(min(left.components.seconds * 1000 + 1, 1000)))
            if r < 0 && errno != EINTR { return .failure(OAuthError("listen",
                                                                    "the redirect listener failed: \(String(cString: strerror(errno)))")) }
            guard r > 0 else { continue }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            defer { close(client) }
            guard let target = Self.readRequestTarget(client) else { continue }
            guard AuthorizationRedirect.isResponse(target) else {
                Self.respond(client, status: "404 Not Found", text: "Not found.")
                continue
            }
            do throws(OAuthError) {
                let code = try AuthorizationRedirect.code(from: target, expectedState: expectedState)
                Self.respond(client, status: "200 OK",
                             text: "Mailwake outpost: authorized. You can close this window and return to the terminal.")
                return .success(code)
            } catch {
                Self.respond(client, status: "400 Bad Request", text: "Mailwake outpost: \(error.message)")
                return .failure(error)
            }
        }
    }

    /// The request target of a `GET` (the head read within 5 s, at most 16 KiB); nil for anything else.
    private static func readRequestTarget(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(5)
        while data.count < 16 << 10, !data.containsHeadEnd {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard ContinuousClock.now < deadline, poll(&ready, 1, 500) >= 0 else { return nil }
            if ready.revents == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            data.append(contentsOf: chunk[0..<n])
        }
        let line = String(decoding: data.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        guard line.count == 3, line[0] == "GET" else { return nil }
        return String(line[1])
    }

    private static func respond(_ fd: Int32, status: String, text: String) {
        let escaped = text.replacingOccurrences(of: "<", with: "&lt;")
        let body = Array("<!doctype html><meta charset=utf-8><title>Mailwake</title><p>\(escaped)</p>\n".utf8)
        let head = Array(("HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n" +
                          "Connection: close\r\nCache-Control: no-store\r\n\r\n").utf8)
        let all = head + body
        var sent = 0
        while sent < all.count {
            let n = all[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }
}

private extension Array where Element == UInt8 {
    var containsHeadEnd: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 { return true }
        return false
    }
}
