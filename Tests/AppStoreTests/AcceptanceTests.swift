import Foundation
import MailwakeAppStore
import Testing
import TestSupport

@Suite(.offPool) struct AcceptanceTests {  // chains are made with openssl, synchronously
    @Test func validTransactionVerifiesAndDecodes() throws {
        let seconds = Int64(Date().timeIntervalSince1970) - 3600
        let signed = Date(timeIntervalSince1970: Double(seconds) + 0.123)
        let ms = seconds * 1000 + 123
        let jws = try Chains.good().jws(transactionPayload(signedDate: signed))
        let t = try verifier().verifyTransaction(jws)
        #expect(t.transactionId == "2000000000000042")
        #expect(t.originalTransactionId == "2000000000000001")
        #expect(t.webOrderLineItemId == "2000000000000099")
        #expect(t.bundleId == testBundleId)
        #expect(t.productId == "app.mailwake.pro.monthly")
        #expect(t.subscriptionGroupIdentifier == "21000001")
        #expect(t.signedDate.millisecondsSince1970 == ms)
        #expect(t.purchaseDate.millisecondsSince1970 == ms - 60_000)
        #expect(t.expiresDate?.millisecondsSince1970 == ms + 30 * 86_400_000)
        #expect(t.quantity == 1)
        #expect(t.type == .autoRenewableSubscription)
        #expect(t.appAccountToken == UUID(uuidString: "7E3FB20B-4CDB-47CC-936D-99D65F608138"))
        #expect(t.inAppOwnershipType == .purchased)
        #expect(t.isUpgraded == false)
        #expect(t.offerType == .introductoryOffer)
        #expect(t.environment == .sandbox)
        #expect(t.storefront == "USA")
        #expect(t.transactionReason == .renewal)
        #expect(t.price == 4990)
        #expect(t.currency == "USD")
        #expect(t.revocationDate == nil && t.revocationReason == nil)
    }

    @Test func validRenewalInfoVerifiesAndDecodes() throws {
        let jws = try Chains.good().jws(renewalPayload())
        let r = try verifier().verifyRenewalInfo(jws)
        #expect(r.originalTransactionId == "2000000000000001")
        #expect(r.autoRenewProductId == "app.mailwake.pro.yearly")
        #expect(r.productId == "app.mailwake.pro.monthly")
        #expect(r.autoRenewStatus == .on)
        #expect(r.isInBillingRetryPeriod == false)
        #expect(r.environment == .sandbox)
        #expect(r.renewalPrice == 4990)
        #expect(r.expirationIntent == nil && r.gracePeriodExpiresDate == nil)
    }

    @Test(arguments: [
        ("SUBSCRIBED", "INITIAL_BUY", 1),
        ("DID_RENEW", nil, 1),
        ("DID_RENEW", "BILLING_RECOVERY", 1),
        ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", 1),
        ("EXPIRED", "VOLUNTARY", 2),
        ("GRACE_PERIOD_EXPIRED", nil, 3),
        ("REFUND", nil, 5),
        ("REVOKE", nil, 5),
    ] as [(String, String?, Int)])
    func notificationVerifiesWithNestedData(type: String, subtype: String?, status: Int) throws {
        let chain = try Chains.good()
        var transaction = transactionPayload()
        if type == "REFUND" || type == "REVOKE" {
            transaction["revocationDate"] = TestJWS.milliseconds(Date())
            transaction["revocationReason"] = 1
        }
        let data = notificationData(signedTransactionInfo: try chain.jws(transaction),
                                    signedRenewalInfo: try chain.jws(renewalPayload()), status: status)
        let signedPayload = try chain.jws(notificationPayload(type: type, subtype: subtype, data: data))
        let n = try verifier().verifyNotification(signedPayload)
        #expect(n.notificationType.rawValue == type)
        #expect(n.subtype?.rawValue == subtype)
        #expect(n.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(n.version == "2.0")
        #expect(n.data.bundleId == testBundleId)
        #expect(n.data.appAppleId == testAppAppleId)
        #expect(n.data.bundleVersion == "42")
        #expect(n.data.environment == .sandbox)
        #expect(n.data.status?.rawValue == status)
        #expect(n.data.transaction?.transactionId == "2000000000000042")
        #expect(n.data.renewalInfo?.originalTransactionId == "2000000000000001")
        if type == "REFUND" || type == "REVOKE" {
            #expect(n.data.transaction?.revocationReason == .appIssue)
            #expect(n.data.transaction?.revocationDate != nil)
        }
    }

    @Test func testNotificationHasNoTransaction() throws {
        let signedPayload = try Chains.good().jws(notificationPayload(type: "TEST", data: notificationData()))
        let n = try verifier().verifyNotification(signedPayload)
        #expect(n.notificationType == .test)
        #expect(n.data.transaction == nil && n.data.renewalInfo == nil)
    }

    @Test func unknownFieldsAreIgnored() throws {
        var payload = transactionPayload()
        payload["someFieldAppleAddsLater"] = ["nested": [1, 2.5, "x"] as [any Sendable]] as [String: any Sendable]
        payload["offerType"] = 9 // an offer type this code does not know yet
        let t = try verifier().verifyTransaction(try Chains.good().jws(payload))
        #expect(t.offerType?.rawValue == 9)
    }

    @Test func sentRootIsIgnoredWhenTheChainLeadsToAConfiguredRoot() throws {
        let good = try Chains.good(), other = try Chains.other()
        let jws = try good.jws(transactionPayload(), x5c: good.chain.x5c(sentRoot: other.chain.rootDER))
        #expect(try verifier().verifyTransaction(jws).bundleId == testBundleId)
    }

    @Test func anyOfSeveralConfiguredRootsIsAccepted() throws {
        let good = try Chains.good(), other = try Chains.other()
        let v = try verifier(roots: [other.chain.rootDER, good.chain.rootDER])
        #expect(try v.verifyTransaction(good.jws(transactionPayload())).bundleId == testBundleId)
        #expect(try v.verifyTransaction(other.jws(transactionPayload())).bundleId == testBundleId)
    }

    @Test func leafExpiredNowStillVerifiesAtItsSignedDate() throws {
        let now = Date()
        let old = try Chains.get("expired-now") {
            $0.leafValidity = .init(notBefore: now.addingTimeInterval(-90 * 86_400), notAfter: now.addingTimeInterval(-60 * 86_400))
        }
        let jws = try old.jws(transactionPayload(signedDate: now.addingTimeInterval(-75 * 86_400)))
        #expect(try verifier(roots: [old.chain.rootDER]).verifyTransaction(jws).bundleId == testBundleId)
    }

    @Test func missingSignedDateIsRefused() throws {
        // Apple always sends signedDate; without it there is no time to check the chain at.
        var payload = renewalPayload()
        payload.removeValue(forKey: "signedDate")
        let jws = try Chains.good().jws(payload), v = try verifier()
        expectRefusal(.payloadMalformed, jws: jws) { () throws(AppStoreVerificationError) in try v.verifyRenewalInfo(jws) }
    }
}
