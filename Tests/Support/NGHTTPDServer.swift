public import Foundation

/// nghttpd (Debian `nghttp2-server`): an HTTP/2-only TLS server on
/// 127.0.0.1 serving static files from a document root. With `echoUpload`
/// it answers POST and PUT with the uploaded body; with `verbose` its log
/// shows every frame and header it received (`logText()`).
public final class NGHTTPDServer: Sendable {
    public static let executable = "/usr/sbin/nghttpd"

    public let port: UInt16
    public let docroot: URL
    private let process: TestServerProcess
    private let ownsDocroot: Bool

    /// `https://127.0.0.1:<port>`.
    public var baseURL: String { "https://127.0.0.1:\(port)" }

    /// Starts nghttpd with the server certificate of `certificates`.
    ///
    /// - Parameters:
    ///   - docroot: directory to serve; a fresh empty temporary one when nil
    ///     (removed by `stop()`).
    ///   - maxConcurrentStreams: the SETTINGS_MAX_CONCURRENT_STREAMS it announces.
    public init(certificates: TestCertificates, docroot: URL? = nil, echoUpload: Bool = false, verbose: Bool = false,
                maxConcurrentStreams: Int = 100, extraArguments: [String] = []) throws {
        if let docroot {
            self.docroot = docroot
            ownsDocroot = false
        } else {
            self.docroot = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-nghttpd-\(UUID().uuidString)",
                                                                                         isDirectory: true)
            try FileManager.default.createDirectory(at: self.docroot, withIntermediateDirectories: true)
            ownsDocroot = true
        }
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try PortAllocator.freePort()
            var arguments = ["--address=127.0.0.1", "--htdocs=\(self.docroot.path)", "--max-concurrent-streams=\(maxConcurrentStreams)"]
            if echoUpload { arguments.append("--echo-upload") }
            if verbose { arguments.append("--verbose") }
            arguments += extraArguments
            arguments += [String(port), certificates.serverKey.path, certificates.serverCertificate.path]
            let candidate = try TestServerProcess(executable: Self.executable, arguments: arguments, logName: "nghttpd")
            if candidate.waitForListener(port: port) {
                self.port = port
                process = candidate
                return
            }
            lastError = TestHarnessError("nghttpd did not start on port \(port): \(candidate.logText())")
            candidate.stop()
        }
        if ownsDocroot { try? FileManager.default.removeItem(at: self.docroot) }
        throw lastError ?? TestHarnessError("nghttpd did not start")
    }

    // The process ends from a thread of its own (TestServerProcess's deinit): never block the releasing thread.
    deinit { if ownsDocroot { try? FileManager.default.removeItem(at: docroot) } }

    /// `init` run off the cooperative thread pool (`Blocking.run`).
    public static func start(certificates: TestCertificates, echoUpload: Bool = false, verbose: Bool = false,
                             maxConcurrentStreams: Int = 100) async throws -> NGHTTPDServer {
        try await Blocking.run {
            try NGHTTPDServer(certificates: certificates, echoUpload: echoUpload, verbose: verbose,
                              maxConcurrentStreams: maxConcurrentStreams)
        }
    }

    /// Writes a file below the document root.
    public func addFile(_ relativePath: String, _ bytes: [UInt8]) throws {
        let url = docroot.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// What nghttpd printed (frames and headers with `verbose`).
    public func logText() -> String { process.logText() }

    public func stop() {
        process.stop()
        if ownsDocroot { try? FileManager.default.removeItem(at: docroot) }
    }
}
