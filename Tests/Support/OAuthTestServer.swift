import Foundation
import MailwakeHTTPClient
import MailwakeHTTPTypes

/// The test OAuth 2 authorization server (`Tests/Fixtures/oauth/authorization_server.py`,
/// Python standard library): device grant, authorization code with PKCE,
/// refresh, revocation and introspection on 127.0.0.1, with hooks to approve
/// a device code or revoke a user's tokens. Its log has one line per event, never a token.
public final class OAuthTestServer: Sendable {
    public let port: UInt16
    private let process: TestServerProcess
    private let http: HTTPClient
    private let tokenFile: String

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var deviceAuthorizationURL: String { baseURL + "/device_authorization" }
    public var authorizationURL: String { baseURL + "/authorize" }
    public var tokenURL: String { baseURL + "/token" }
    public var introspectionURL: String { baseURL + "/introspect" }

    /// - Parameters:
    ///   - clients: registered clients: id and secret (nil: a public client).
    ///   - accessExpires: `expires_in` of every access token.
    ///   - interval: the device polling interval.
    ///   - slowDownOnce: answer `slow_down` on the first poll after approval.
    ///   - rotate: issue a new refresh token on each refresh (Microsoft does).
    public static func start(clients: [(String, String?)], accessExpires: Int = 3600, interval: Int = 1, deviceExpires: Int = 600,
                             slowDownOnce: Bool = false, rotate: Bool = false) async throws -> OAuthTestServer {
        let server = try await Blocking.run {
            let tokenFile = NSTemporaryDirectory() + "/mailwake-oauth-tokens-\(UUID().uuidString)"
            var arguments = [RepositoryPaths.file("Tests/Fixtures/oauth/authorization_server.py").path, "--token-file", tokenFile,
                             "--access-expires", String(accessExpires),
                             "--interval", String(interval), "--device-expires", String(deviceExpires)]
            for (id, secret) in clients { arguments += ["--client", secret.map { "\(id):\($0)" } ?? id] }
            if slowDownOnce { arguments.append("--slow-down-once") }
            if rotate { arguments.append("--rotate") }
            let process = try TestServerProcess(executable: "/usr/bin/python3", arguments: arguments, logName: "oauth-server",
                                                pipeStdout: true)
            guard let port = UInt16(process.readStdoutLine() ?? "") else {
                let log = process.logText()
                process.stop()
                throw TestHarnessError("the OAuth test server did not start: \(log)")
            }
            var configuration = HTTPClient.Configuration()
            configuration.httpVersion = .http1_1
            configuration.usesEnvironmentProxy = false
            return OAuthTestServer(port: port, process: process, http: try HTTPClient(configuration: configuration), tokenFile: tokenFile)
        }
        AwaitedCleanup.register { await Blocking.run { server.stop() } }
        return server
    }

    private init(port: UInt16, process: TestServerProcess, http: HTTPClient, tokenFile: String) {
        self.tokenFile = tokenFile
        self.port = port
        self.process = process
        self.http = http
    }

    /// One line per event (device_authorization, device_poll …, token …, introspect …, revoke …).
    public func logText() -> String { process.logText() }

    /// The log lines starting with `prefix`.
    public func events(_ prefix: String) -> [String] { logText().split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) } }

    /// Waits until the log has a line starting with `prefix` (a deadline, not a sleep).
    public func waitForEvent(_ prefix: String, count: Int = 1, timeout: Double = 60) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while events(prefix).count < count {
            guard ContinuousClock.now < deadline else { throw TestHarnessError("""
                                                                               the OAuth server never logged '\(prefix)' ×\(count): \
                                                                               \(logText().suffix(2000))
                                                                               """) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// POSTs a form to `path` (a hook or an endpoint); returns status and body.
    @discardableResult
    public func post(_ path: String, _ fields: [String: String]) async throws -> (Int, String) {
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&")
        let response = try await http.execute(.init(method: .post, url: baseURL + path,
                                                    headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                    body: Array(body.utf8)))
        return (Int(response.status.code), String(decoding: response.body, as: UTF8.self))
    }

    /// GETs `url` as a browser would, without following redirects; returns status and `Location`.
    public func browse(_ url: String) async throws -> (Int, String?) {
        let response = try await http.execute(.init(method: .get, url: url, followRedirects: false))
        return (Int(response.status.code), response.headers["Location"] ?? response.headers["location"])
    }

    /// GETs any URL (the outpost's loopback redirect); returns status and body.
    public func get(_ url: String) async throws -> (Int, String) {
        let response = try await http.execute(.init(method: .get, url: url, followRedirects: false))
        return (Int(response.status.code), String(decoding: response.body, as: UTF8.self))
    }

    /// Every token issued so far (kind "access" or "refresh", value), in order.
    public func issuedTokens() -> [(kind: String, value: String)] {
        ((try? String(contentsOfFile: tokenFile, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }
    }

    public func stop() {
        try? FileManager.default.removeItem(atPath: tokenFile)
        http.shutdown()
        process.stop()
    }
}
