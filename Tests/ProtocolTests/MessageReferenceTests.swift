import MailwakeCrypto
import MailwakeProtocol
import Testing

@Suite("Message references (PROTOCOL §7)")
struct MessageReferenceTests {
    let f: Fixtures
    init() throws { f = try Fixtures() }

    var reference: MessageReference {
        MessageReference(outpostID: KeyIdentity.id(of: f.outpost.publicKey), deviceID: KeyIdentity.id(of: f.deviceSigning.publicKey),
                         mailboxID: "mbx_1", folder: "INBOX", uidValidity: 3_000_000_000, uid: 17, iat: 1_764_400_000)
    }

    @Test func aSignedReferenceVerifiesForItsDevice() throws {
        let ref = try reference.sign(with: f.outpost)
        #expect(try MessageReference.verify(ref, outpostKey: f.outpost.publicKey, deviceID: reference.deviceID) == reference)
    }

    @Test func thePayloadIsCompactJSONInTheSpecifiedKeyOrder() {
        let text = String(decoding: reference.payloadBytes, as: UTF8.self)
        #expect(text == #"{"v":1,"o":"\#(reference.outpostID)","d":"\#(reference.deviceID)","m":"mbx_1","f":"INBOX","uv":3000000000,"# +
                        #""u":17,"iat":1764400000}"#)
    }

    @Test func aReferenceFromAnotherOutpostIsRefusedEvenWhenSelfConsistent() throws {
        let other = try P256.Signing.PrivateKey()
        var r = reference
        r.outpostID = KeyIdentity.id(of: other.publicKey)
        let ref = try r.sign(with: other)
        #expect(protocolErrorCode { _ = try MessageReference.verify(ref, outpostKey: f.outpost.publicKey,
                                                                    deviceID: r.deviceID) } == "bad_signature")
        // Signed by us but naming another outpost id.
        let confused = try r.sign(with: f.outpost)
        #expect(protocolErrorCode { _ = try MessageReference.verify(confused, outpostKey: f.outpost.publicKey,
                                                                    deviceID: r.deviceID) } == "wrong_key")
    }

    @Test func overlongReferencesAreRefusedBeforeAnyWork() {
        #expect(protocolErrorCode { _ = try MessageReference.verify(String(repeating: "A", count: 2000), outpostKey: f.outpost.publicKey,
                                                                    deviceID: "x") } == "too_large")
        var r = reference
        r.folder = String(repeating: "f", count: 900)
        #expect(protocolErrorCode { _ = try r.sign(with: f.outpost) } == "too_large")
    }
}
