import AccountsService
import Foundation
import MailwakeAppStore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeProtocol
import StackSupport
import TestSupport
import Testing

@Suite("Accounts: purchases and App Store notifications", .serialized, .awaitedCleanup)
struct PurchaseTests {

    /// An accounts instance trusting a fresh StoreKit chain, and a registered device.
    static func storeWithDevice() async throws -> (StoreKitSigner, AccountsFixture, AccountsFixture.Device) {
        let signer = try await Blocking.run { try StoreKitSigner.make() }
        let f = try await AccountsFixture.start(appStore: signer.configuration)
        let device = try AccountsFixture.Device.make()
        _ = try await f.register(device)
        return (signer, f, device)
    }

    /// `POST /v1/purchases` by `device` with a signed transaction.
    static func purchase(_ f: AccountsFixture, _ device: AccountsFixture.Device,
                         _ transaction: String) async throws -> HTTPClient.Response {
        try await f.send(.post, "/v1/purchases", json: #"{"signed_transaction":"\#(transaction)"}"#, signer: device.signing)
    }
    func entitled(_ f: AccountsFixture, _ device: AccountsFixture.Device) async throws -> Bool {
        try await f.authorization(of: device).entitled
    }

    @Test func aVerifiedPurchaseEntitlesTheDeviceAndARefundEndsIt() async throws {
        let (signer, f, device) = try await Self.storeWithDevice()
        #expect(try await entitled(f, device) == false)
        let expires = Date(timeIntervalSince1970: Double(f.clock + 30 * 86400))
        let purchase = try await f.send(.post, "/v1/purchases",
                                        json: #"{"signed_transaction":"# +
                                              #""\#(try signer.transaction(original: "3000000001", expires: expires))"}"#,
                                        signer: device.signing)
        #expect(purchase.status == .ok)
        #expect(try purchase.decode(AccountsResponses.Entitlement.self).entitled)
        #expect(try await entitled(f, device) == true)

        let refund = try signer.notification(type: "REFUND",
                                             transaction: try signer.transaction(original: "3000000001", expires: expires,
                                                                                 signed: Date().addingTimeInterval(5),
                                                                                                  revoked: Date()))
        let posted = try await f.send(.post, "/v1/app-store/notifications", json: #"{"signedPayload":"\#(refund)"}"#)
        #expect(posted.status == .ok)
        #expect(try await entitled(f, device) == false)
    }

    @Test func aReplayedNotificationIsAppliedOnce() async throws {
        let (signer, f, device) = try await Self.storeWithDevice()
        let expires = Date(timeIntervalSince1970: Double(f.clock + 30 * 86400))
        _ = try await Self.purchase(f, device, try signer.transaction(original: "3000000002", expires: expires))
        let uuid = UUID().uuidString.lowercased()
        let expired = try signer.notification(type: "EXPIRED", uuid: uuid, transaction: try signer.transaction(
            original: "3000000002", expires: Date(timeIntervalSince1970: Double(f.clock - 1)), signed: Date().addingTimeInterval(5)))
        #expect(try await f.send(.post, "/v1/app-store/notifications", json: #"{"signedPayload":"\#(expired)"}"#).status == .ok)
        #expect(try await entitled(f, device) == false)
        // A renewal, then the old EXPIRED replayed: the replay changes nothing.
        let renewal = try signer.notification(type: "DID_RENEW", transaction: try signer.transaction(
            original: "3000000002", expires: Date(timeIntervalSince1970: Double(f.clock + 60 * 86400)),
            signed: Date().addingTimeInterval(10)))
        #expect(try await f.send(.post, "/v1/app-store/notifications", json: #"{"signedPayload":"\#(renewal)"}"#).status == .ok)
        #expect(try await entitled(f, device) == true)
        #expect(try await f.send(.post, "/v1/app-store/notifications", json: #"{"signedPayload":"\#(expired)"}"#).status == .ok)
        #expect(try await entitled(f, device) == true)
        let count = try await f.app.database.query("SELECT count(*)::bigint FROM app_store_notifications").single().decode(Int64.self,
            at: 0)
        #expect(count == 2)
    }

    @Test func aTransactionFromAnotherChainIsRefusedWithItsProblemType() async throws {
        let (_, f, device) = try await Self.storeWithDevice()
        let stranger = try await Blocking.run { try StoreKitSigner.make() }
        let forged = try stranger.transaction(original: "3000000003", expires: Date().addingTimeInterval(86400))
        let response = try await f.send(.post, "/v1/purchases", json: #"{"signed_transaction":"\#(forged)"}"#, signer: device.signing)
        #expect(response.status == .unprocessableContent)
        #expect(String(decoding: response.body, as: UTF8.self).contains("urn:mailwake:problem:chain-untrusted"))
        #expect(try await entitled(f, device) == false)
    }

    @Test func aRevokeWithoutRevocationDateEndsTheEntitlementAtItsSignedDate() async throws {
        let (signer, f, device) = try await Self.storeWithDevice()
        let expires = Date(timeIntervalSince1970: Double(f.clock + 30 * 86400))
        _ = try await Self.purchase(f, device, try signer.transaction(original: "3000000005", expires: expires))
        #expect(try await entitled(f, device) == true)
        let revoke = try signer.notification(type: "REVOKE",
                                             transaction: try signer.transaction(original: "3000000005", expires: expires,
                                                                                 signed: Date().addingTimeInterval(5)))
        #expect(try await f.send(.post, "/v1/app-store/notifications", json: #"{"signedPayload":"\#(revoke)"}"#).status == .ok)
        #expect(try await entitled(f, device) == false)
    }

    @Test func aSubscriptionNotifiedBeforeThePurchaseIsLinkedLaterAndTESTIsRecorded() async throws {
        let (signer, f, device) = try await Self.storeWithDevice()
        let expires = Date(timeIntervalSince1970: Double(f.clock + 30 * 86400))
        let subscribed = try signer.notification(type: "SUBSCRIBED",
                                                 transaction: try signer.transaction(original: "3000000006", expires: expires))
        #expect(try await f.send(.post, "/v1/app-store/notifications", json: #"{"signedPayload":"\#(subscribed)"}"#).status == .ok)
        #expect(try await entitled(f, device) == false, "an App Store notification alone links no device")
        _ = try await Self.purchase(f, device, try signer.transaction(original: "3000000006", expires: expires))
        #expect(try await entitled(f, device) == true)
        let test = try signer.notification(type: "TEST", transaction: nil)
        #expect(try await f.send(.post, "/v1/app-store/notifications", json: #"{"signedPayload":"\#(test)"}"#).status == .ok)
        let types = try await f.app.database.query("""
                                                   SELECT notification_type FROM app_store_notifications ORDER BY \
                                                   notification_type
                                                   """).map { try $0.decode(String.self, at: 0) }
        #expect(types == ["SUBSCRIBED", "TEST"])
    }

    @Test func aPurchaseNeedsTheDevicesSignature() async throws {
        let (signer, f, _) = try await Self.storeWithDevice()
        let jws = try signer.transaction(original: "3000000004", expires: Date().addingTimeInterval(86400))
        #expect(try await f.send(.post, "/v1/purchases", json: #"{"signed_transaction":"\#(jws)"}"#).status == .unauthorized)
    }

    @Test func purchasesAreDisabledWithoutAnAppStoreConfiguration() async throws {
        let f = try await AccountsFixture.start()
        #expect(try await f.send(.post, "/v1/app-store/notifications", json: #"{"signedPayload":"x.y.z"}"#).status == .notFound)
    }
}
