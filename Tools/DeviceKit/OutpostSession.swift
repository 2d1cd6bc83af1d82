import Foundation
import MailwakeCore
public import MailwakeCrypto
public import MailwakeHTTPClient
public import MailwakeHTTPTypes
public import MailwakeProtocol

/// The App's side of an outpost's HTTPS API: the outpost is trusted by the
/// SHA-256 of its TLS key from the invitation (no CA), and every request is
/// signed by the device (PROTOCOL.md §8, §10).
public struct OutpostSession: Sendable {
    /// The outpost's origin (from the invitation's `url`).
    public let origin: String
    /// Where requests go; the origin unless the outpost is reached another way (tests).
    public let baseURL: String
    let signing: P256.Signing.PrivateKey
    public let client: HTTPClient
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - origin: the outpost's origin.
    ///   - pin: SHA-256 of its TLS SubjectPublicKeyInfo.
    ///   - signing: the device's signing key.
    ///   - baseURL: where to send requests (default: `origin`).
    public init(origin: String, pin: [UInt8], signing: P256.Signing.PrivateKey, baseURL: String? = nil,
                clock: (@Sendable () -> Int64)? = nil) throws {
        self.origin = origin
        self.baseURL = baseURL ?? origin
        self.signing = signing
        self.clock = clock ?? WallClock.seconds
        var c = HTTPClient.Configuration()
        c.name = "device-outpost"
        c.httpVersion = .http1_1
        c.pinnedPublicKeys = ["sha256//" + Data(pin).base64EncodedString()]
        c.trustPinnedKeyAlone = true
        c.maxResponseBytes = 64 << 20
        client = try HTTPClient(configuration: c)
    }

    /// A request signed by the device.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - pathAndQuery: the target, exactly as signed.
    ///   - body: a JSON body.
    ///   - signer: another key to sign with (tests of refusals).
    ///   - signedTarget: sign another target than the one sent (tests of refusals).
    public func send(_ method: HTTPMethod, _ pathAndQuery: String, body: [UInt8]? = nil, signer: P256.Signing.PrivateKey? = nil,
                     timestamp: Int64? = nil, nonce: [UInt8]? = nil, signedTarget: String? = nil) async throws -> HTTPClient.Response {
        try await SignedHTTPClient(http: client, origin: origin, key: signing, baseURL: baseURL, clock: clock)
            .send(method, pathAndQuery, body: body, signer: signer, timestamp: timestamp, nonce: nonce, signedTarget: signedTarget)
    }

    /// Redeems an invitation (`POST /v1/management/redeem`) for `scopes` (all offered by default).
    public func redeem(_ link: ManagementLink, scopes: [ManagementScope]? = nil,
                       agreement: P256.KeyAgreement.PublicKey) async throws -> HTTPClient.Response {
        let consent = try ManagementConsent.create(for: link, scopes: scopes, signingKey: signing, agreementKey: agreement)
        return try await send(.post, "/v1/management/redeem", body: consent.jsonBytes)
    }

    /// `GET /v1/messages/body?ref=REF`.
    public func body(ref: String) async throws -> HTTPClient.Response {
        try await send(.get, "/v1/messages/body?ref=\(Self.encode(ref))")
    }

    /// `GET /v1/messages/part?ref=REF&cid=CID`.
    public func part(ref: String, contentID: String) async throws -> HTTPClient.Response {
        try await send(.get, "/v1/messages/part?ref=\(Self.encode(ref))&cid=\(Self.encode(contentID))")
    }

    public func shutdown() { client.shutdown() }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    public static func encode(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0" +
                                                                                  "123456789-._~")) ?? s
    }
}
