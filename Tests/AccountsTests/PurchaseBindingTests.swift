import AccountsService
import Foundation
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
import StackSupport
import TestSupport
import Testing

/// One purchase, bound to the device that bought it and shared by at most the limit of devices (issue 16 §2).
@Suite("Accounts: purchases bound to devices", .serialized, .awaitedCleanup)
struct PurchaseBindingTests {
    static func store(limit: Int = 5) async throws -> (StoreKitSigner, AccountsFixture) {
        let signer = try await Blocking.run { try StoreKitSigner.make() }
        return (signer, try await AccountsFixture.start(appStore: signer.configuration, purchaseDeviceLimit: limit))
    }

    static func device(_ f: AccountsFixture) async throws -> AccountsFixture.Device {
        let device = try AccountsFixture.Device.make()
        #expect(try await f.register(device).status == .created)
        return device
    }

    static func entitled(_ f: AccountsFixture, _ device: AccountsFixture.Device) async throws -> Bool {
        try await f.authorization(of: device).entitled
    }

    static func links(_ f: AccountsFixture, _ original: String) async throws -> Int64 {
        try await f.app.database.query("""
                                       SELECT count(*)::bigint FROM purchase_links WHERE original_transaction_id = \
                                       \(original)
                                       """).single().decode(Int64.self, at: 0)
    }

    /// The derivation written out again, independently of `AppAccountToken`.
    static func token(of deviceID: String) -> UUID {
        let label = Array("mailwake/app-account-token/v1".utf8)
        var bytes = Array(SHA256.hash([0, 0, 0, UInt8(label.count)] + label + Array(deviceID.utf8)).bytes.prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x80
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                           bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    @Test func aTransactionBoughtOnAnotherDeviceIsRefusedAndLinksNothing() async throws {
        let (signer, f) = try await Self.store()
        let buyer = try await Self.device(f), other = try await Self.device(f)
        let expires = Date(timeIntervalSince1970: Double(f.clock + 30 * 86400))
        let bought = try signer.transaction(original: "4000000001", expires: expires, appAccountToken: Self.token(of: buyer.id))

        let refused = try await PurchaseTests.purchase(f, other, bought)
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("urn:mailwake:problem:app-account-token-mismatch"))
        #expect(try await Self.entitled(f, other) == false)
        #expect(try await Self.links(f, "4000000001") == 0, "nothing linked")

        let accepted = try await PurchaseTests.purchase(f, buyer, bought)
        #expect(accepted.status == .ok)
        #expect(try await Self.entitled(f, buyer) == true)
        #expect(try await Self.links(f, "4000000001") == 1)
        let shared = try await PurchaseTests.purchase(f, other, bought)
        #expect(shared.status == .ok,
                "once the buyer linked it, the purchase is shared (Family Sharing, the same Apple ID): \(shared.text)")
        #expect(try await Self.links(f, "4000000001") == 2)
    }

    @Test func aPurchaseSharedFromItsBuyerCountsAgainstTheLimit() async throws {
        let (signer, f) = try await Self.store(limit: 2)
        let buyer = try await Self.device(f), second = try await Self.device(f), third = try await Self.device(f)
        let bought = try signer.transaction(original: "4000000009", expires: Date(timeIntervalSince1970: Double(f.clock + 30 * 86400)),
                                            appAccountToken: Self.token(of: buyer.id))
        #expect(try await PurchaseTests.purchase(f, buyer, bought).status == .ok)
        #expect(try await PurchaseTests.purchase(f, second, bought).status == .ok)
        let over = try await PurchaseTests.purchase(f, third, bought)
        #expect(over.status == .conflict)
        #expect(over.text.contains("urn:mailwake:problem:purchase-device-limit"))
        #expect(try await Self.entitled(f, third) == false)
    }

    @Test func onePurchaseEntitlesAtMostTheLimitOfDevices() async throws {
        let (signer, f) = try await Self.store(limit: 2)
        let a = try await Self.device(f), b = try await Self.device(f), c = try await Self.device(f)
        // An older App sets no appAccountToken: the transaction counts against the same limit.
        let shared = try signer.transaction(original: "4000000002", expires: Date(timeIntervalSince1970: Double(f.clock + 30 * 86400)))
        #expect(try await PurchaseTests.purchase(f, a, shared).status == .ok)
        #expect(try await PurchaseTests.purchase(f, b, shared).status == .ok)
        let third = try await PurchaseTests.purchase(f, c, shared)
        #expect(third.status == .conflict)
        #expect(third.text.contains("urn:mailwake:problem:purchase-device-limit"))
        #expect(try await Self.entitled(f, c) == false)
        #expect(try await PurchaseTests.purchase(f, a, shared).status == .ok, "a linked device posting again is not a new device")
        #expect(try await Self.links(f, "4000000002") == 2)

        // Deleting a device frees its place.
        #expect(try await f.send(.delete, "/v1/devices/\(b.id)", signer: b.signing).status == .ok)
        #expect(try await PurchaseTests.purchase(f, c, shared).status == .ok)
        #expect(try await Self.entitled(f, c) == true)
    }

    @Test func devicesRacingForTheLastPlaceDoNotPassTheLimitTogether() async throws {
        let (signer, f) = try await Self.store(limit: 2)
        var devices: [AccountsFixture.Device] = []
        for _ in 0..<6 { devices.append(try await Self.device(f)) }
        let shared = try signer.transaction(original: "4000000004", expires: Date(timeIntervalSince1970: Double(f.clock + 30 * 86400)))
        let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
            for device in devices { group.addTask { try await PurchaseTests.purchase(f, device, shared).status } }
            return try await group.reduce(into: [HTTPStatus]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == .ok }.count == 2)
        #expect(statuses.filter { $0 == .conflict }.count == 4)
        #expect(try await Self.links(f, "4000000004") == 2)
    }

    @Test func theDeviceAndTheOperatorSeeWhichDevicesShareAPurchase() async throws {
        let (signer, f) = try await Self.store(limit: 3)
        let a = try await Self.device(f), b = try await Self.device(f), loner = try await Self.device(f)
        let expires = f.clock + 30 * 86400
        let shared = try signer.transaction(original: "4000000003", expires: Date(timeIntervalSince1970: Double(expires)))
        #expect(try await PurchaseTests.purchase(f, a, shared).status == .ok)
        f.advance(5)
        #expect(try await PurchaseTests.purchase(f, b, shared).status == .ok)

        let view = try await f.send(.get, "/v1/devices/\(b.id)/purchases", signer: b.signing)
        #expect(view.status == .ok)
        let body = try view.decode(AccountsResponses.DevicePurchases.self)
        #expect(body.deviceID == b.id)
        let purchase = try #require(body.purchases.first)
        #expect(purchase.originalTransactionID == "4000000003")
        #expect(purchase.deviceLimit == 3)
        #expect(purchase.expiresAt == expires)
        #expect(purchase.devices.map(\.deviceID) == [a.id, b.id])
        let none = try await f.send(.get, "/v1/devices/\(loner.id)/purchases", signer: loner.signing)
            .decode(AccountsResponses.DevicePurchases.self)
        #expect(none.purchases.isEmpty)
        #expect(try await f.send(.get, "/v1/devices/\(b.id)/purchases", signer: loner.signing).status == .forbidden,
                "only a device's own view")

        let operatorView = try await f.send(.get, "/operator/v1/purchases/4000000003", bearer: AccountsFixture.operatorToken)
        #expect(operatorView.status == .ok)
        #expect(try operatorView.decode(AccountsResponses.Purchase.self).devices.map(\.deviceID) == [a.id, b.id])
        #expect(try await f.send(.get, "/operator/v1/purchases/4000000003").status == .unauthorized)
        #expect(try await f.send(.get, "/operator/v1/purchases/4999999999", bearer: AccountsFixture.operatorToken).status == .notFound)
    }
}
