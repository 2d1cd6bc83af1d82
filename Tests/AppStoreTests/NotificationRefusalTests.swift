import Foundation
import MailwakeAppStore
import Testing
import TestSupport

@Suite(.offPool) struct NotificationRefusalTests {  // chains are made with openssl, synchronously
    func refuse(_ code: AppStoreVerificationError.Code, _ jws: String, verifier v: AppStoreJWSVerifier? = nil,
                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let v = try v ?? verifier()
        expectRefusal(code, jws: jws,
                      sourceLocation: sourceLocation) { () throws(AppStoreVerificationError) in try v.verifyNotification(jws) }
    }

    func signed(_ data: [String: any Sendable], type: String = "DID_RENEW") throws -> String {
        try Chains.good().jws(notificationPayload(type: type, data: data))
    }

    func nested(transaction: [String: any Sendable] = transactionPayload(), renewal: [String: any Sendable]? = renewalPayload(),
                by chain: SigningChain? = nil) throws -> (String, String?) {
        let c = try chain ?? Chains.good()
        return (try c.jws(transaction), try renewal.map { try c.jws($0) })
    }

    @Test func notificationForAnotherBundleIsRefused() throws {
        try refuse(.bundleMismatch, try signed(notificationData(bundleId: "com.example.other"), type: "TEST"))
    }

    @Test func notificationFromAnotherEnvironmentIsRefused() throws {
        try refuse(.environmentMismatch, try signed(notificationData(environment: "Production"), type: "TEST"))
    }

    @Test func notificationForAnotherAppAppleIdIsRefused() throws {
        try refuse(.appAppleIdMismatch, try signed(notificationData(appAppleId: 42), type: "TEST"))
    }

    @Test func missingAppAppleIdIsRefusedInProductionOnly() throws {
        let production = try verifier(environment: .production)
        try refuse(.appAppleIdMismatch, try signed(notificationData(environment: "Production", appAppleId: nil), type: "TEST"),
                   verifier: production)
        // Apple omits appAppleId in the sandbox.
        let n = try verifier().verifyNotification(try signed(notificationData(appAppleId: nil), type: "TEST"))
        #expect(n.data.appAppleId == nil)
    }

    @Test func appAppleIdIsNotCheckedWhenNotConfigured() throws {
        let n = try verifier(appAppleId: nil).verifyNotification(try signed(notificationData(appAppleId: 42), type: "TEST"))
        #expect(n.data.appAppleId == 42)
    }

    @Test func nestedTransactionWithBadSignatureIsRefused() throws {
        let (transaction, renewal) = try nested()
        let parts = transaction.split(separator: ".").map(String.init)
        var signature = try #require(Data(base64Encoded: base64(parts[2])))
        signature[3] ^= 0x80
        let broken = replacingPart(transaction, 2, with: TestJWS.base64url(Array(signature)))
        try refuse(.signatureInvalid, try signed(notificationData(signedTransactionInfo: broken, signedRenewalInfo: renewal)))
    }

    @Test func nestedTransactionFromAnotherRootIsRefused() throws {
        let (transaction, _) = try nested(by: try Chains.other())
        let (_, renewal) = try nested()
        try refuse(.chainUntrusted, try signed(notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal)))
    }

    @Test func nestedRenewalInfoFromAnotherRootIsRefused() throws {
        let (transaction, _) = try nested()
        let (_, renewal) = try nested(by: try Chains.other())
        try refuse(.chainUntrusted, try signed(notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal)))
    }

    @Test func nestedTransactionForAnotherBundleIsRefused() throws {
        let (transaction, renewal) = try nested(transaction: transactionPayload(bundleId: "com.example.other"))
        try refuse(.bundleMismatch, try signed(notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal)))
    }

    @Test func nestedTransactionFromAnotherEnvironmentIsRefused() throws {
        let (transaction, renewal) = try nested(transaction: transactionPayload(environment: "Production"))
        try refuse(.environmentMismatch, try signed(notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal)))
    }

    @Test func nestedRenewalInfoFromAnotherEnvironmentIsRefused() throws {
        let (transaction, renewal) = try nested(renewal: renewalPayload(environment: "Production"))
        try refuse(.environmentMismatch, try signed(notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal)))
    }

    @Test func nestedMalformedJWSIsRefused() throws {
        try refuse(.jwsMalformed, try signed(notificationData(signedTransactionInfo: "not.a-jws", signedRenewalInfo: nil)))
    }

    @Test func nestedTransactionAndRenewalForDifferentSubscriptionsAreRefused() throws {
        let (transaction, renewal) = try nested(renewal: renewalPayload(originalTransactionId: "2000000000000777"))
        try refuse(.payloadMalformed, try signed(notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal)))
    }

    @Test func nonTestNotificationWithoutTransactionIsRefused() throws {
        try refuse(.payloadMalformed, try signed(notificationData(), type: "DID_RENEW"))
    }

    @Test func notificationWithoutDataIsRefused() throws {
        var payload = notificationPayload(type: "RENEWAL_EXTENSION", data: [:])
        payload.removeValue(forKey: "data")
        payload["summary"] = ["bundleId": testBundleId, "environment": "Sandbox"] as [String: any Sendable]
        try refuse(.payloadMalformed, try Chains.good().jws(payload))
    }

    @Test func outerNotificationSignedByAnotherRootIsRefused() throws {
        let (transaction, renewal) = try nested()
        let payload = notificationPayload(type: "DID_RENEW",
                                          data: notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal))
        try refuse(.chainUntrusted, try Chains.other().jws(payload))
    }

    @Test func errorsInNestedJWSNameTheField() throws {
        let (transaction, renewal) = try nested(transaction: transactionPayload(bundleId: "com.example.other"))
        let v = try verifier()
        let jws = try signed(notificationData(signedTransactionInfo: transaction, signedRenewalInfo: renewal))
        do {
            _ = try v.verifyNotification(jws)
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix("signedTransactionInfo: "))
        }
    }
}
