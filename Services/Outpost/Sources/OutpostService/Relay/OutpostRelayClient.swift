import Foundation
public import MailwakeCore
public import MailwakeHTTPClient
public import MailwakeHTTPTypes
import MailwakeProtocol

/// The outpost's calls to its relay: signed requests (PROTOCOL.md §8) for
/// pairing and status, and envelope submission.
public final class OutpostRelayClient: Sendable {
    public let relay: RelaySettingsRecord
    let identity: OutpostIdentity
    let http: HTTPClient
    let clock: @Sendable () -> Int64
    /// Requests signed by the outpost identity for the relay's origin.
    let signedClient: SignedHTTPClient

    public init(relay: RelaySettingsRecord, identity: OutpostIdentity, clock: @escaping @Sendable () -> Int64 = WallClock.seconds) throws {
        self.relay = relay
        self.identity = identity
        self.clock = clock
        var c = HTTPClient.Configuration()
        c.name = "relay"
        c.caFile = relay.caFile
        c.httpVersion = .http1_1
        c.connectTimeout = .seconds(10)
        c.totalTimeout = .seconds(Double(60))
        http = try HTTPClient(configuration: c)
        signedClient = SignedHTTPClient(http: http, origin: relay.origin, key: identity.signingKey, baseURL: relay.url, clock: clock)
    }

    public func shutdown() { http.shutdown() }

    /// Sends a request signed with the outpost identity.
    public func signed(_ method: HTTPMethod, _ path: String, body: [UInt8]? = nil,
                       timeout: Duration? = nil) async throws -> HTTPClient.Response {
        try await signedClient.send(method, path, body: body, timeout: timeout)
    }

    /// Submits one stored envelope.
    public func submit(_ envelope: [UInt8]) async -> RelayAnswer {
        let response: HTTPClient.Response
        do {
            response = try await http.execute(.init(method: .post, url: relay.url + "/v1/envelopes",
                                                    headers: ["Content-Type": "application/json"], body: envelope))
        } catch {
            return .retry(after: 0, reason: "relay unreachable")
        }
        return Self.answer(response)
    }

    /// How the outpost acts on a relay response.
    static func answer(_ response: HTTPClient.Response) -> RelayAnswer {
        let status = Int(response.status.code)
        if (200..<300).contains(status) { return .accepted }
        let problem = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        let code = (problem?["type"] as? String).map { String($0.dropFirst("urn:mailwake:problem:".count)) } ?? "http-\(status)"
        if status == 429 || status >= 500 {
            return .retry(after: Int64(response.headers["Retry-After"] ?? "") ?? 0, reason: code)
        }
        return .refused(status: status, code: code, detail: problem?["detail"] as? String ?? response.text)
    }
}
