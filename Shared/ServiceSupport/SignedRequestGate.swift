public import MailwakeCrypto
public import MailwakeHTTPServer
public import MailwakeProtocol
import MailwakeHTTPTypes

/// Checks the `Mailwake-Signature` of incoming requests (PROTOCOL.md §8) for a
/// service whose public origin is `origin`.
public struct SignedRequestGate: Sendable {
    public let verifier: RequestVerifier
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - origin: this service's public origin as configured.
    ///   - nonces: the replay store shared by all instances.
    ///   - clock: Unix seconds (injectable for tests).
    public init(origin: String, nonces: any NonceStore, maxClockSkew: Int64 = 300, clock: @escaping @Sendable () -> Int64) {
        verifier = RequestVerifier(configuration: .init(origin: origin, maxClockSkew: maxClockSkew), nonces: nonces)
        self.clock = clock
    }

    /// The parsed header, or a 401 problem when it is missing or malformed.
    public func header(of request: HTTPRequest) throws -> SignatureHeader {
        guard let value = request.headers[SignatureHeader.name] else {
            throw HTTPError(.unauthorized, code: "signature-required", detail: "this endpoint needs a Mailwake-Signature header")
        }
        do {
            return try SignatureHeader.parse(value)
        } catch {
            throw HTTPError(.unauthorized, code: error.code.rawValue, detail: error.message)
        }
    }

    /// Verifies the request with the signer's key and records its nonce.
    ///
    /// Failures are `ProtocolError`s (answered as problems: `bad_signature`,
    /// `clock_skew`, `replayed`, `wrong_key`).
    @discardableResult
    public func verify(_ request: HTTPRequest, key: P256.Signing.PublicKey) async throws -> SignatureHeader {
        guard let value = request.headers[SignatureHeader.name] else {
            throw HTTPError(.unauthorized, code: "signature-required", detail: "this endpoint needs a Mailwake-Signature header")
        }
        return try await verifier.verify(headerValue: value, method: request.method.rawValue, pathAndQuery: request.target,
                                         body: request.body, publicKey: key, now: clock())
    }
}
