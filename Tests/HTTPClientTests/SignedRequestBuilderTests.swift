import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeProtocol
import Testing

@Suite("HTTP client: requests signed for a receiver (PROTOCOL.md §8)")
struct SignedRequestBuilderTests {
    let origin = "https://relay.example:8443"
    let verifier = RequestVerifier(configuration: .init(origin: "https://relay.example:8443"), nonces: InMemoryNonceStore())

    @Test func aSignedRequestGoesToTheBaseURLAndVerifiesForTheOrigin() throws {
        let key = try P256.Signing.PrivateKey(), body = Array(#"{"a":1}"#.utf8)
        let request = try HTTPClient.Request.signed(.post, baseURL: "https://127.0.0.1:9000", "/v1/pairings?x=1", body: body, key: key,
                                                    origin: origin, timestamp: 1_764_400_000)
        #expect(request.url == "https://127.0.0.1:9000/v1/pairings?x=1")
        #expect(request.headers["Content-Type"] == "application/json")
        let header = try #require(request.headers[SignatureHeader.name])
        let parsed = try verifier.verifySignature(headerValue: header, method: "POST", pathAndQuery: "/v1/pairings?x=1", body: body,
                                                  publicKey: key.publicKey, now: 1_764_400_000)
        #expect(parsed.keyID == KeyIdentity.id(of: key.publicKey))
    }

    @Test func aFlippedBodyBitOrAnotherTargetDoesNotVerify() throws {
        let key = try P256.Signing.PrivateKey(), body = Array(#"{"a":1}"#.utf8)
        let request = try HTTPClient.Request.signed(.post, baseURL: origin, "/v1/pairings", body: body, key: key, origin: origin,
                                                    timestamp: 1_764_400_000)
        let header = try #require(request.headers[SignatureHeader.name])
        var flipped = body
        flipped[2] ^= 0x01
        #expect(throws: ProtocolError.self) {
            try verifier.verifySignature(headerValue: header, method: "POST", pathAndQuery: "/v1/pairings", body: flipped,
                                         publicKey: key.publicKey,
                                         now: 1_764_400_000)
        }
        let elsewhere = try HTTPClient.Request.signed(.post, baseURL: origin, "/v1/pairings", body: body, key: key, origin: origin,
                                                      timestamp: 1_764_400_000, signedTarget: "/v1/other")
        #expect(throws: ProtocolError.self) {
            try verifier.verifySignature(headerValue: elsewhere.headers[SignatureHeader.name] ?? "", method: "POST",
                                         pathAndQuery: "/v1/pairings",
                                         body: body, publicKey: key.publicKey, now: 1_764_400_000)
        }
    }

    @Test func aRequestWithoutBodyHasNoContentTypeAndKeepsTheGivenHeaders() throws {
        let key = try P256.Signing.PrivateKey()
        let request = try HTTPClient.Request.signed(.get, baseURL: origin, "/v1/status", key: key, origin: origin, timestamp: 1,
                                                    headers: ["Mailwake-Session": "s1"])
        #expect(request.body == nil)
        #expect(request.headers["Content-Type"] == nil)
        #expect(request.headers["Mailwake-Session"] == "s1")
        #expect(request.headers[SignatureHeader.name] != nil)
    }
}
