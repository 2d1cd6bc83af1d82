import MailwakeCrypto
import MailwakeProtocol
import TestSupport
import Testing

@Suite("Signed requests (PROTOCOL §8)")
struct SignedRequestTests {
    let key: P256.Signing.PrivateKey
    let origin = "https://push.example.net"
    let body = Array(#"{"pairing_id":"abc"}"#.utf8)
    let now: Int64 = 1_764_400_000

    init() throws { key = try P256.Signing.PrivateKey() }

    func header(ts: Int64? = nil) throws -> SignatureHeader {
        try RequestSigner(key: key).sign(method: "post", origin: origin, pathAndQuery: "/v1/pairings", body: body, timestamp: ts ?? now)
    }

    func verifier() -> RequestVerifier {
        RequestVerifier(configuration: .init(origin: origin), nonces: InMemoryNonceStore())
    }

    @Test func aSignedRequestVerifiesOnceAndIsThenAReplay() async throws {
        let v = verifier()
        let h = try header()
        let parsed = try await v.verify(headerValue: h.value, method: "POST", pathAndQuery: "/v1/pairings", body: body,
                                        publicKey: key.publicKey, now: now)
        #expect(parsed.keyID == KeyIdentity.id(of: key.publicKey))
        await #expect(throws: ProtocolError(.replayed, "nonce already used within the replay window")) {
            _ = try await v.verify(headerValue: h.value, method: "POST", pathAndQuery: "/v1/pairings", body: body,
                                   publicKey: key.publicKey, now: now)
        }
    }

    @Test func aForgedRequestDoesNotConsumeItsNonce() async throws {
        let v = verifier()
        let h = try header()
        var forged = h
        forged.signature = h.signature.flippingBit(9)
        await #expect(throws: ProtocolError.self) {
            _ = try await v.verify(headerValue: forged.value, method: "POST", pathAndQuery: "/v1/pairings", body: body,
                                   publicKey: key.publicKey, now: now)
        }
        _ = try await v.verify(headerValue: h.value, method: "POST", pathAndQuery: "/v1/pairings", body: body, publicKey: key.publicKey,
                               now: now)
    }

    @Test func theClockSkewBoundaryIs300Seconds() throws {
        for (ts, expected) in [(now - 300, nil), (now + 300, nil), (now - 301, "clock_skew"),
                               (now + 301, "clock_skew")] as [(Int64, String?)] {
            let h = try header(ts: ts)
            #expect(protocolErrorCode {
                _ = try verifier().verifySignature(headerValue: h.value, method: "POST", pathAndQuery: "/v1/pairings", body: body,
                                                   publicKey: key.publicKey, now: now)
            } == expected, "ts offset \(ts - now)")
        }
    }

    @Test func theHeaderHasExactlyOneSpelling() throws {
        let h = try header()
        #expect(try SignatureHeader.parse(h.value) == h)
        let reordered = "sig=\"\(Base64URL.encode(h.signature))\", nonce=\"\(Base64URL.encode(h.nonce))\", ts=\"\(h.timestamp)\", " +
                        "keyid=\"\(h.keyID)\""
        #expect(protocolErrorCode { _ = try SignatureHeader.parse(reordered) } == "malformed")
        #expect(protocolErrorCode { _ = try SignatureHeader.parse(h.value.replacingOccurrences(of: ", ", with: ",")) } == "malformed")
    }

    @Test func theHeaderParserRejectsAmbiguity() throws {
        let h = try header()
        #expect(protocolErrorCode { _ = try SignatureHeader.parse(h.value + ", ts=\"1\"") } == "malformed")
        #expect(protocolErrorCode { _ = try SignatureHeader.parse(h.value + ", extra=\"1\"") } == "malformed")
        let padded = h.value.replacingOccurrences(of: "ts=\"\(h.timestamp)\"", with: "ts=\"0\(h.timestamp)\"")
        #expect(protocolErrorCode { _ = try SignatureHeader.parse(padded) } == "malformed")
        #expect(protocolErrorCode { _ = try SignatureHeader.parse(h.value.replacingOccurrences(of: "ts=\"\(h.timestamp)\"",
                                                                                               with: "ts=\"-5\"")) } == "malformed")
        #expect(protocolErrorCode { _ = try SignatureHeader.parse(String(repeating: "a", count: 600)) } == "too_large")
    }

    @Test func methodCaseIsNormalisedButPathsAreExact() throws {
        let h = try header()
        #expect(protocolErrorCode { try RequestVerifier.verify(h, method: "POST", origin: origin, pathAndQuery: "/v1/pairings", body: body,
                                                               publicKey: key.publicKey, now: now) } == nil)
        #expect(protocolErrorCode { try RequestVerifier.verify(h, method: "POST", origin: origin, pathAndQuery: "/v1/pairings/",
                                                               body: body, publicKey: key.publicKey, now: now) } == "bad_signature")
        #expect(protocolErrorCode { try RequestVerifier.verify(h, method: "POST", origin: origin + ":443", pathAndQuery: "/v1/pairings",
                                                               body: body, publicKey: key.publicKey, now: now) } == "bad_signature")
    }

    @Test func theNonceStoreForgetsExpiredNonces() async throws {
        let store = InMemoryNonceStore(capacity: 2)
        #expect(try await store.insertIfAbsent(keyID: "k", nonce: [1], expiresAt: 10, now: 0))
        #expect(try await store.insertIfAbsent(keyID: "k", nonce: [2], expiresAt: 10, now: 0))
        await #expect(throws: NonceStoreFullError.self) { _ = try await store.insertIfAbsent(keyID: "k", nonce: [3], expiresAt: 10,
                                                                                             now: 5) }
        #expect(try await store.insertIfAbsent(keyID: "k", nonce: [3], expiresAt: 30, now: 11))
        #expect(try await store.insertIfAbsent(keyID: "k", nonce: [1], expiresAt: 30, now: 11), "an expired nonce may be seen again")
        #expect(!(try await store.insertIfAbsent(keyID: "k", nonce: [3], expiresAt: 30, now: 12)))
    }
}
