public import Foundation
public import MailwakeAppStore
public import MailwakeCrypto
public import TestSupport

/// A StoreKit-like signer: a generated chain whose root the instance trusts.
public struct StoreKitSigner: Sendable {
    public static let bundleID = "net.mailwake.app"
    public let chain: TestAppStoreChain
    public let key: P256.Signing.PrivateKey

    public static func make() throws -> StoreKitSigner {
        let chain = try TestAppStoreChain.make()
        return StoreKitSigner(chain: chain, key: try P256.Signing.PrivateKey(pemRepresentation: chain.leafKeyPEM))
    }

    public var configuration: AppStoreJWSVerifier.Configuration {
        .init(trustedRoots: [chain.rootDER], bundleId: Self.bundleID, environment: .sandbox)
    }

    public func jws(_ payload: [String: any Sendable]) throws -> String {
        try TestJWS.compact(x5c: chain.x5c(), payload: payload) { try key.signature(for: $0).rawRepresentation }
    }

    /// A signed transaction; `appAccountToken` is what the App set at purchase (`AppAccountToken.of(deviceID:)`), none for older Apps.
    public func transaction(original: String, product: String = "net.mailwake.push.monthly", expires: Date, signed: Date = Date(),
                            revoked: Date? = nil, appAccountToken: UUID? = nil) throws -> String {
        var payload: [String: any Sendable] = [
            "transactionId": original + "1", "originalTransactionId": original, "bundleId": Self.bundleID, "productId": product,
            "purchaseDate": TestJWS.milliseconds(signed) - 1000, "expiresDate": TestJWS.milliseconds(expires),
            "type": "Auto-Renewable Subscription",
            "inAppOwnershipType": "PURCHASED", "signedDate": TestJWS.milliseconds(signed), "environment": "Sandbox",
        ]
        if let appAccountToken { payload["appAccountToken"] = appAccountToken.uuidString.lowercased() }
        if let revoked {
            payload["revocationDate"] = TestJWS.milliseconds(revoked)
            payload["revocationReason"] = 0
        }
        return try jws(payload)
    }

    /// A transaction the App on `deviceID` bought: its `appAccountToken` is that device's.
    public func transaction(original: String, boughtBy deviceID: String, expires: Date, signed: Date = Date()) throws -> String {
        try transaction(original: original, expires: expires, signed: signed, appAccountToken: AppAccountToken.of(deviceID: deviceID))
    }

    public func notification(type: String, uuid: String = UUID().uuidString.lowercased(), transaction: String?,
                             signed: Date = Date()) throws -> String {
        var data: [String: any Sendable] = ["bundleId": Self.bundleID, "environment": "Sandbox"]
        if let transaction { data["signedTransactionInfo"] = transaction }
        return try jws(["notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": TestJWS.milliseconds(signed),
                        "data": data])
    }
}

