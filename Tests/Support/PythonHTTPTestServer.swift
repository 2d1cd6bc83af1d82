import Foundation

/// A scripted HTTPS test server in Python (Debian's `python3` with
/// `python3-h2`): HTTP/2 and HTTP/1.1 chosen by ALPN, or cleartext with
/// HTTP/2 by prior knowledge. It echoes requests and misbehaves on demand
/// (delays, refused streams, GOAWAY, closed connections); the paths are
/// listed at the top of `Tests/Fixtures/http/test_server.py`. Each connection gets a number, reported in
/// echoes and in `logText()` ("connection N h2", "request N stream METHOD path").
public final class PythonHTTPTestServer: Sendable {
    /// Debian's interpreter, where `python3-h2` is installed.
    public static let python = "/usr/bin/python3"

    public let port: UInt16
    public let isTLS: Bool
    private let process: TestServerProcess

    /// `https://127.0.0.1:<port>` (or `http://` without TLS).
    public var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// - Parameters:
    ///   - certificates: the server certificate to use; nil serves cleartext.
    ///   - alpn: protocols offered, in preference order.
    ///   - maxConcurrentStreams: the HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS.
    public init(certificates: TestCertificates?, alpn: [String] = ["h2", "http/1.1"], maxConcurrentStreams: Int = 100) throws {
        var arguments = [RepositoryPaths.file("Tests/Fixtures/http/test_server.py").path, "--max-streams", String(maxConcurrentStreams)]
        if let certificates {
            arguments += ["--cert", certificates.serverCertificate.path, "--key", certificates.serverKey.path, "--alpn",
                          alpn.joined(separator: ",")]
        } else {
            arguments.append("--plain")
        }
        isTLS = certificates != nil
        process = try TestServerProcess(executable: Self.python, arguments: arguments, logName: "python-http", pipeStdout: true)
        let line = process.readStdoutLine() ?? ""
        guard let port = UInt16(line) else {
            let log = process.logText()
            process.stop()
            throw TestHarnessError("the Python test server did not start (is python3-h2 installed? run scripts/bootstrap): \(log)")
        }
        self.port = port
    }

    /// `init` run off the cooperative thread pool (`Blocking.run`).
    public static func start(certificates: TestCertificates?, alpn: [String] = ["h2", "http/1.1"],
                             maxConcurrentStreams: Int = 100) async throws -> PythonHTTPTestServer {
        try await Blocking.run { try PythonHTTPTestServer(certificates: certificates, alpn: alpn,
                                                          maxConcurrentStreams: maxConcurrentStreams) }
    }

    /// One line per connection and request, in order.
    public func logText() -> String { process.logText() }

    /// Connections accepted so far (TLS handshake done).
    public var connectionCount: Int {
        logText().split(separator: "\n").filter { $0.hasPrefix("connection ") }.count
    }

    /// Connections accepted so far, read once the log shows each of `connections` (ids the answers named). The server
    /// logs a connection before it answers on it, but its log reaches this process later, through a pipe.
    public func connectionCount(including connections: some Sequence<Int>) async throws -> Int {
        for id in connections { try await waitForLog("connection \(id) ") }
        return connectionCount
    }

    /// Waits until `logText()` contains `text` (a request or reset the server has logged).
    public func waitForLog(_ text: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !logText().contains(text) {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("the test server never logged \(text)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops the server (blocks up to 2 s; from async code use `Blocking.run`).
    public func stop() { process.stop() }
}
