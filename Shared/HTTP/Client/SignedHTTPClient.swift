import Foundation
public import MailwakeCore
public import MailwakeCrypto
public import MailwakeHTTPTypes

/// Sends requests signed by one key for one receiver (PROTOCOL.md §8): the
/// outpost to its relay, a device to accounts, the relay or an outpost.
public struct SignedHTTPClient: Sendable {
    /// The client that carries the requests (its TLS trust decides whom it talks to).
    public let http: HTTPClient
    /// Where requests go; usually the origin.
    public let baseURL: String
    /// The receiver's public origin, as it checks signatures.
    public let origin: String
    /// The key that signs.
    public let key: P256.Signing.PrivateKey
    /// Unix seconds for the signatures.
    public let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - http: the client to send with.
    ///   - origin: the receiver's public origin.
    ///   - key: the signer's key.
    ///   - baseURL: where requests go (default: `origin`).
    ///   - clock: Unix seconds for the signatures (default: the wall clock).
    public init(http: HTTPClient, origin: String, key: P256.Signing.PrivateKey, baseURL: String? = nil,
                clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
        self.http = http
        self.origin = origin
        self.key = key
        self.baseURL = baseURL ?? origin
        self.clock = clock
    }

    /// Sends a signed request.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - pathAndQuery: the target, sent and signed exactly as given.
    ///   - body: a JSON body, or nil for none.
    ///   - headers: further headers (a session).
    ///   - timeout: overrides the client's total timeout.
    ///   - signer: another key to sign with (tests of refusals).
    ///   - timestamp: another time than the clock's (tests of the window).
    ///   - nonce: a given nonce (tests of replays).
    ///   - signedTarget: sign another target than the one sent (tests of refusals).
    public func send(_ method: HTTPMethod, _ pathAndQuery: String, body: [UInt8]? = nil, headers: HTTPHeaders = [:],
                     timeout: Duration? = nil,
                     signer: P256.Signing.PrivateKey? = nil, timestamp: Int64? = nil, nonce: [UInt8]? = nil,
                     signedTarget: String? = nil) async throws -> HTTPClient.Response {
        try await http.execute(request(method, pathAndQuery, body: body, headers: headers, timeout: timeout, signer: signer,
                                       timestamp: timestamp, nonce: nonce, signedTarget: signedTarget))
    }

    /// The signed request `send` would send (for callers that send it later or elsewhere).
    public func request(_ method: HTTPMethod, _ pathAndQuery: String, body: [UInt8]? = nil, headers: HTTPHeaders = [:],
                        timeout: Duration? = nil,
                        signer: P256.Signing.PrivateKey? = nil, timestamp: Int64? = nil, nonce: [UInt8]? = nil,
                        signedTarget: String? = nil) throws -> HTTPClient.Request {
        try .signed(method, baseURL: baseURL, pathAndQuery, body: body, key: signer ?? key, origin: origin,
                    timestamp: timestamp ?? clock(),
                    nonce: nonce, signedTarget: signedTarget, headers: headers, timeout: timeout)
    }
}
