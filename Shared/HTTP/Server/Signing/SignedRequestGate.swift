public import MailwakeCrypto
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
            throw HTTPError(.unauthorized, code: .signatureRequired, detail: "this endpoint needs a Mailwake-Signature header")
        }
        do {
            return try SignatureHeader.parse(value)
        } catch {
            throw HTTPError(.unauthorized, code: ProblemCode(error.code), detail: error.message)
        }
    }

    /// Verifies the request with the signer's key and records its nonce.
    ///
    /// Failures are `ProtocolError`s (answered as problems: `bad_signature`,
    /// `clock_skew`, `replayed`, `wrong_key`).
    @discardableResult
    public func verify(_ request: HTTPRequest, key: P256.Signing.PublicKey) async throws -> SignatureHeader {
        guard let value = request.headers[SignatureHeader.name] else {
            throw HTTPError(.unauthorized, code: .signatureRequired, detail: "this endpoint needs a Mailwake-Signature header")
        }
        return try await verifier.verify(headerValue: value, method: request.method.rawValue, pathAndQuery: request.target,
                                         body: request.body, publicKey: key, now: clock())
    }

    /// First contact (PROTOCOL.md §8): the body carries the signer's public
    /// key, the header's `keyid` must be that key's id, and the request must
    /// verify under it (proof of possession).
    ///
    /// - Parameters:
    ///   - request: the signed request.
    ///   - x963: the public key from the body (X9.63).
    ///   - field: the body field's name, for messages.
    /// - Returns: the verified key.
    @discardableResult
    public func verifyFirstContact(_ request: HTTPRequest, key x963: [UInt8], field: String) async throws -> P256.Signing.PublicKey {
        let header = try header(of: request)
        guard let key = try? P256.Signing.PublicKey(x963Representation: x963) else {
            throw ProtocolError(.invalidKey, "\(field) is not a point on P-256")
        }
        guard header.keyID == KeyIdentity.id(of: key) else {
            throw ProtocolError(.wrongKey, "keyid must be the id of \(field) (proof of possession)")
        }
        try await verify(request, key: key)
        return key
    }
}
