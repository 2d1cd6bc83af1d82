public import MailwakeCrypto

/// Signs HTTP requests for an outpost or a device (PROTOCOL.md §8).
public struct RequestSigner: Sendable {
    public let key: P256.Signing.PrivateKey
    /// The signer's id (§2), derived from the key.
    public let keyID: String

    public init(key: P256.Signing.PrivateKey) {
        self.key = key
        keyID = KeyIdentity.id(of: key.publicKey)
    }

    /// Returns the `Mailwake-Signature` header for a request.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - origin: the receiver's public origin.
    ///   - pathAndQuery: the request target exactly as it will be sent.
    ///   - body: the exact body bytes (empty for none).
    ///   - timestamp: Unix seconds, now by default.
    ///   - nonce: 16 bytes, fresh random by default.
    public func sign(method: String, origin: String, pathAndQuery: String, body: [UInt8], timestamp: Int64,
                     nonce: [UInt8]? = nil) throws(ProtocolError) -> SignatureHeader {
        let n: [UInt8]
        do { n = try nonce ?? SecureRandom.bytes(16) } catch { throw ProtocolError(.internalFailure, "random generator failed") }
        guard n.count == 16 else { throw .malformed("nonce must be 16 bytes") }
        let input = RequestSigningInput.build(method: method.uppercased(), origin: origin, pathAndQuery: pathAndQuery,
                                              timestamp: timestamp, nonce: n, bodyDigest: SHA256.hash(body))
        do {
            let sig = try key.signature(for: input)
            return SignatureHeader(keyID: keyID, timestamp: timestamp, nonce: n, signature: sig.rawRepresentation)
        } catch {
            throw ProtocolError(.internalFailure, "signing the request failed")
        }
    }
}
