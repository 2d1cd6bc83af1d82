import Foundation
import MailwakeAppStore
import Testing
import TestSupport

/// Every JWS failure mode maps to its exact problem code.
@Suite(.offPool) struct RefusalTests {  // chains are made with openssl, synchronously
    func transactionJWS() throws -> String { try Chains.good().jws(transactionPayload()) }

    func refuse(_ code: AppStoreVerificationError.Code, _ jws: String, verifier v: AppStoreJWSVerifier? = nil,
                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let v = try v ?? verifier()
        expectRefusal(code, jws: jws,
                      sourceLocation: sourceLocation) { () throws(AppStoreVerificationError) in try v.verifyTransaction(jws) }
    }

    // MARK: Signature

    @Test func bitFlipInSignatureIsRefused() throws {
        let jws = try transactionJWS()
        let parts = jws.split(separator: ".").map(String.init)
        var signature = try #require(Data(base64Encoded: base64(parts[2])))
        signature[17] ^= 0x01
        try refuse(.signatureInvalid, replacingPart(jws, 2, with: TestJWS.base64url(Array(signature))))
    }

    @Test func payloadChangedAfterSigningIsRefused() throws {
        let jws = try transactionJWS()
        var payload = transactionPayload()
        payload["productId"] = "app.mailwake.pro.lifetime"
        try refuse(.signatureInvalid, replacingPart(jws, 1, with: TestJWS.base64url(try TestJWS.json(payload))))
    }

    @Test func signatureOfWrongLengthIsMalformed() throws {
        try refuse(.jwsMalformed, replacingPart(try transactionJWS(), 2, with: TestJWS.base64url([UInt8](repeating: 7, count: 72))))
    }

    // MARK: Header

    @Test(arguments: ["HS256", "none", "ES384", "RS256", "es256"])
    func algorithmOtherThanES256IsRefused(alg: String) throws {
        try refuse(.jwsUnsupportedAlgorithm, try Chains.good().jws(transactionPayload(), alg: alg))
    }

    @Test func criticalHeaderParametersAreRefused() throws {
        let good = try Chains.good()
        let header = try TestJWS.json(["alg": "ES256", "x5c": good.chain.x5c(), "crit": ["exp"]])
        let jws = try TestJWS.compact(headerJSON: header, payloadJSON: try TestJWS.json(transactionPayload()), sign: good.sign)
        try refuse(.jwsUnsupportedAlgorithm, jws)
    }

    @Test func missingX5cIsRefused() throws {
        let good = try Chains.good()
        let jws = try TestJWS.compact(x5c: nil, payload: transactionPayload(), sign: good.sign)
        try refuse(.x5cMissing, jws)
    }

    @Test func emptyX5cIsRefused() throws {
        try refuse(.x5cMissing, try Chains.good().jws(transactionPayload(), x5c: []))
    }

    @Test func x5cWithTwoCertificatesIsRefused() throws {
        let good = try Chains.good()
        try refuse(.x5cMissing, try good.jws(transactionPayload(), x5c: Array(good.chain.x5c().prefix(2))))
    }

    @Test func x5cWithFourCertificatesIsRefused() throws {
        let good = try Chains.good()
        try refuse(.x5cMissing, try good.jws(transactionPayload(), x5c: good.chain.x5c() + [good.chain.x5c()[2]]))
    }

    @Test(arguments: [0, 1, 2])
    func x5cEntryThatIsNotBase64IsRefused(index: Int) throws {
        let good = try Chains.good()
        var x5c = good.chain.x5c()
        x5c[index] = "not*base64"
        try refuse(.certificateMalformed, try good.jws(transactionPayload(), x5c: x5c))
    }

    @Test(arguments: [0, 1, 2])
    func x5cEntryWithTrailingBytesIsRefused(index: Int) throws {
        let good = try Chains.good()
        let ders = [good.chain.leafDER, good.chain.intermediateDER, good.chain.rootDER]
        var x5c = good.chain.x5c()
        x5c[index] = Data(ders[index] + [0]).base64EncodedString()
        try refuse(.certificateMalformed, try good.jws(transactionPayload(), x5c: x5c))
    }

    @Test func x5cEntryThatIsBase64URLIsRefused() throws {
        // x5c is standard base64 (RFC 7515 §4.1.6), not base64url.
        let good = try Chains.good()
        var x5c = good.chain.x5c()
        x5c[0] = TestJWS.base64url(good.chain.leafDER)
        let jws = try good.jws(transactionPayload(), x5c: x5c)
        if x5c[0].contains(where: { $0 == "-" || $0 == "_" }) || good.chain.leafDER.count % 3 != 0 {
            try refuse(.certificateMalformed, jws)
        }
    }

    // MARK: Chain

    @Test func chainToAnotherRootIsRefused() throws {
        try refuse(.chainUntrusted, try Chains.other().jws(transactionPayload()))
    }

    @Test func trustNeverComesFromTheSentRoot() throws {
        // Signed by another chain that sends its own (self-consistent) root: still untrusted.
        let other = try Chains.other()
        let jws = try other.jws(transactionPayload(), x5c: other.chain.x5c(sentRoot: other.chain.rootDER))
        try refuse(.chainUntrusted, jws)
        // Even when the configured root is sent as x5c[2].
        let good = try Chains.good()
        try refuse(.chainUntrusted, try other.jws(transactionPayload(), x5c: other.chain.x5c(sentRoot: good.chain.rootDER)))
    }

    @Test func intermediateFromAnotherChainIsRefused() throws {
        let good = try Chains.good(), other = try Chains.other()
        let x5c = [good.chain.leafDER, other.chain.intermediateDER, good.chain.rootDER].map { Data($0).base64EncodedString() }
        try refuse(.chainUntrusted, try good.jws(transactionPayload(), x5c: x5c))
    }

    @Test func leafSignedDirectlyByTheRootIsRefused() throws {
        // A configured root placed as the "intermediate": the path is not leaf ← intermediate ← root.
        let good = try Chains.good()
        let x5c = [good.chain.intermediateDER, good.chain.rootDER, good.chain.rootDER].map { Data($0).base64EncodedString() }
        let header = try TestJWS.json(["alg": "ES256", "x5c": x5c])
        let jws = try TestJWS.compact(headerJSON: header, payloadJSON: try TestJWS.json(transactionPayload()), sign: good.sign)
        let v = try verifier()
        do {
            _ = try v.verifyTransaction(jws)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .chainUntrusted || error.code == .oidMissing || error.code == .certificateMalformed, "\(error)")
        }
    }

    @Test func leafWithoutAppleOIDIsRefused() throws {
        let chain = try Chains.get("no-leaf-oid") { $0.leafOID = false }
        try refuse(.oidMissing, try chain.jws(transactionPayload()), verifier: try verifier(roots: [chain.chain.rootDER]))
    }

    @Test func intermediateWithoutAppleOIDIsRefused() throws {
        let chain = try Chains.get("no-intermediate-oid") { $0.intermediateOID = false }
        try refuse(.oidMissing, try chain.jws(transactionPayload()), verifier: try verifier(roots: [chain.chain.rootDER]))
    }

    @Test func leafExpiredAtSignedDateIsRefusedThoughValidNow() throws {
        // The leaf is valid now (good chain: ±30 days) but signedDate lies after its notAfter.
        let jws = try Chains.good().jws(transactionPayload(signedDate: Date().addingTimeInterval(40 * 86_400)))
        try refuse(.certificateExpired, jws)
    }

    @Test func leafNotYetValidAtSignedDateIsRefusedThoughValidNow() throws {
        let jws = try Chains.good().jws(transactionPayload(signedDate: Date().addingTimeInterval(-40 * 86_400)))
        try refuse(.certificateExpired, jws)
    }

    @Test func leafExpiredBeforeSignedDateIsRefused() throws {
        let now = Date()
        let old = try Chains.get("expired-now") {
            $0.leafValidity = .init(notBefore: now.addingTimeInterval(-90 * 86_400), notAfter: now.addingTimeInterval(-60 * 86_400))
        }
        try refuse(.certificateExpired, try old.jws(transactionPayload(signedDate: now)),
                   verifier: try verifier(roots: [old.chain.rootDER]))
    }

    @Test func leafKeyOtherThanP256IsRefused() throws {
        let chain = try Chains.get("p384-leaf") { $0.leafCurve = "P-384" }
        // Any 64 bytes: the key check comes before the signature check.
        let jws = try TestJWS.compact(x5c: chain.chain.x5c(), payload: transactionPayload()) { _ in [UInt8](repeating: 1, count: 64) }
        try refuse(.certificateMalformed, jws, verifier: try verifier(roots: [chain.chain.rootDER]))
    }

    // MARK: Claims

    @Test func wrongBundleIsRefused() throws {
        try refuse(.bundleMismatch, try Chains.good().jws(transactionPayload(bundleId: "com.example.other")))
    }

    @Test func wrongEnvironmentIsRefused() throws {
        try refuse(.environmentMismatch, try Chains.good().jws(transactionPayload(environment: "Production")))
        try refuse(.environmentMismatch, try Chains.good().jws(transactionPayload(environment: "Xcode")))
    }

    @Test func renewalInfoFromAnotherEnvironmentIsRefused() throws {
        let jws = try Chains.good().jws(renewalPayload(environment: "Production"))
        let v = try verifier()
        expectRefusal(.environmentMismatch, jws: jws) { () throws(AppStoreVerificationError) in try v.verifyRenewalInfo(jws) }
    }

    // MARK: Encoding

    @Test(arguments: [0, 1, 2])
    func malformedBase64InEachPartIsRefused(index: Int) throws {
        let jws = try transactionJWS()
        let parts = jws.split(separator: ".").map(String.init)
        for broken in [parts[index] + "=", "*" + parts[index].dropFirst(), parts[index] + "+", "/" + parts[index].dropFirst(),
                       parts[index] + " "] {
            try refuse(.jwsMalformed, replacingPart(jws, index, with: broken))
        }
    }

    @Test(arguments: ["", "a", "a.b", "a.b.c.d", "..", "a..c", ".b.c"])
    func wrongNumberOfPartsIsRefused(jws: String) throws {
        try refuse(.jwsMalformed, jws)
    }

    @Test func headerThatIsNotJSONIsRefused() throws {
        let good = try Chains.good()
        let jws = try TestJWS.compact(headerJSON: Array("{\"alg\":\"ES256\",".utf8), payloadJSON: try TestJWS.json(transactionPayload()),
                                      sign: good.sign)
        try refuse(.jwsMalformed, jws)
    }

    @Test func headerWithDuplicateAlgIsRefused() throws {
        let good = try Chains.good()
        let x5c = good.chain.x5c().map { "\"\($0)\"" }.joined(separator: ",")
        let header = Array("{\"alg\":\"none\",\"alg\":\"ES256\",\"x5c\":[\(x5c)]}".utf8)
        let jws = try TestJWS.compact(headerJSON: header, payloadJSON: try TestJWS.json(transactionPayload()), sign: good.sign)
        try refuse(.jwsMalformed, jws)
    }

    @Test func payloadThatIsNotJSONIsRefused() throws {
        let good = try Chains.good()
        let header = try TestJWS.json(["alg": "ES256", "x5c": good.chain.x5c()])
        let jws = try TestJWS.compact(headerJSON: header, payloadJSON: Array("{\"transactionId\":".utf8), sign: good.sign)
        try refuse(.payloadMalformed, jws)
    }

    @Test func payloadWithDuplicateKeysIsRefused() throws {
        let good = try Chains.good()
        let header = try TestJWS.json(["alg": "ES256", "x5c": good.chain.x5c()])
        var json = String(decoding: try TestJWS.json(transactionPayload()), as: UTF8.self)
        json.removeLast()
        json += ",\"bundleId\":\"com.example.other\"}"
        let jws = try TestJWS.compact(headerJSON: header, payloadJSON: Array(json.utf8), sign: good.sign)
        try refuse(.payloadMalformed, jws)
    }

    @Test(arguments: ["transactionId", "bundleId", "signedDate", "environment"])
    func payloadMissingARequiredFieldIsRefused(field: String) throws {
        var payload = transactionPayload()
        payload.removeValue(forKey: field)
        try refuse(.payloadMalformed, try Chains.good().jws(payload))
    }

    @Test func payloadWithWrongTypesIsRefused() throws {
        var payload = transactionPayload()
        payload["purchaseDate"] = "yesterday"
        try refuse(.payloadMalformed, try Chains.good().jws(payload))
        payload = transactionPayload()
        payload["appAccountToken"] = "not-a-uuid"
        try refuse(.payloadMalformed, try Chains.good().jws(payload))
    }

    @Test func oversizeJWSIsRefused() throws {
        let jws = try transactionJWS()
        try refuse(.jwsMalformed, jws, verifier: try verifier(maxJWSBytes: jws.utf8.count - 1))
        #expect(try verifier(maxJWSBytes: jws.utf8.count).verifyTransaction(jws).bundleId == testBundleId)
    }

    // MARK: Configuration

    @Test func configurationWithoutRootsIsRefused() {
        #expect(throws: AppStoreVerificationError.self) { try verifier(roots: []) }
        do {
            _ = try AppStoreJWSVerifier(configuration: .init(trustedRoots: [], bundleId: testBundleId, environment: .sandbox))
        } catch {
            #expect(error.code == .configurationInvalid)
        }
    }

    @Test func configurationWithMalformedRootIsRefused() throws {
        let root = try Chains.good().chain.rootDER
        for bad in [[UInt8](), Array(root.dropLast()), root + [0]] {
            do {
                _ = try AppStoreJWSVerifier(configuration: .init(trustedRoots: [bad], bundleId: testBundleId, environment: .sandbox))
                Issue.record("accepted a malformed root")
            } catch {
                #expect(error.code == .configurationInvalid)
            }
        }
    }
}

/// Standard base64 from base64url (test helper).
func base64(_ url: String) -> String {
    var s = url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while s.count % 4 != 0 { s += "=" }
    return s
}
