public import MailwakeCrypto

/// Verifies signed requests as a receiving service (PROTOCOL.md §8).
///
/// Checks, in order: header shape, key id matches the key, clock skew,
/// signature, nonce not seen within the window. The nonce is recorded only
/// after the signature verifies, so forged requests cannot fill the store.
public struct RequestVerifier: Sendable {
    /// Settings of a verifier.
    public struct Configuration: Sendable {
        /// This service's public origin as configured on it.
        public var origin: String
        /// The largest accepted `|now − ts|`, 300 s by default.
        public var maxClockSkew: Int64

        public init(origin: String, maxClockSkew: Int64 = 300) {
            self.origin = origin
            self.maxClockSkew = maxClockSkew
        }
    }

    public let configuration: Configuration
    public let nonces: any NonceStore

    public init(configuration: Configuration, nonces: any NonceStore) {
        self.configuration = configuration
        self.nonces = nonces
    }

    /// Checks everything but the nonce and returns the parsed header.
    ///
    /// - Parameters:
    ///   - headerValue: the `Mailwake-Signature` value.
    ///   - method: the request method.
    ///   - pathAndQuery: the request target as received.
    ///   - body: the body bytes.
    ///   - publicKey: the signer's key: known, or from the body on first contact.
    ///   - now: Unix seconds.
    public func verifySignature(headerValue: String, method: String, pathAndQuery: String, body: [UInt8],
                                publicKey: P256.Signing.PublicKey, now: Int64) throws(ProtocolError) -> SignatureHeader {
        let header = try SignatureHeader.parse(headerValue)
        try Self.verify(header, method: method, origin: configuration.origin, pathAndQuery: pathAndQuery, body: body, publicKey: publicKey,
                        now: now, maxSkew: configuration.maxClockSkew)
        return header
    }

    /// Verifies the request completely, recording its nonce.
    public func verify(headerValue: String, method: String, pathAndQuery: String, body: [UInt8], publicKey: P256.Signing.PublicKey,
                       now: Int64) async throws -> SignatureHeader {
        let header = try verifySignature(headerValue: headerValue, method: method, pathAndQuery: pathAndQuery, body: body,
                                         publicKey: publicKey, now: now)
        let fresh = try await nonces.insertIfAbsent(keyID: header.keyID, nonce: header.nonce,
                                                    expiresAt: header.timestamp + configuration.maxClockSkew + 1, now: now)
        guard fresh else { throw ProtocolError(.replayed, "nonce already used within the replay window") }
        return header
    }

    /// The stateless checks of §8 for a parsed header.
    public static func verify(_ header: SignatureHeader, method: String, origin: String, pathAndQuery: String, body: [UInt8],
                              publicKey: P256.Signing.PublicKey, now: Int64, maxSkew: Int64 = 300) throws(ProtocolError) {
        guard header.keyID == KeyIdentity.id(of: publicKey) else {
            throw ProtocolError(.wrongKey, "keyid does not match the signing key")
        }
        guard abs(now - header.timestamp) <= maxSkew else {
            throw ProtocolError(.clockSkew, "ts is more than \(maxSkew) s from the receiver's clock")
        }
        let input = RequestSigningInput.build(method: method.uppercased(), origin: origin, pathAndQuery: pathAndQuery,
                                              timestamp: header.timestamp, nonce: header.nonce, bodyDigest: SHA256.hash(body))
        guard let sig = try? P256.Signing.ECDSASignature(rawRepresentation: header.signature),
              publicKey.isValidSignature(sig, for: input)
        else {
            throw ProtocolError(.badSignature, "request signature does not verify")
        }
    }
}
