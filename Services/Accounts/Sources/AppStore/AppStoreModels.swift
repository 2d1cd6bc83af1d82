public import Foundation

// Values Apple documents as enumerations are modelled as extensible
// RawRepresentable structs: Apple adds values over time, and an unknown value
// must not make a correctly signed payload undecodable.

/// The server environment of a signed payload (`environment`).
public struct AppStoreEnvironment: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
    public var description: String { rawValue }

    public static let production = AppStoreEnvironment(rawValue: "Production")
    public static let sandbox = AppStoreEnvironment(rawValue: "Sandbox")
    /// StoreKit testing in Xcode (signed by Xcode's local certificate, not Apple's PKI).
    public static let xcode = AppStoreEnvironment(rawValue: "Xcode")
    /// Local StoreKit testing.
    public static let localTesting = AppStoreEnvironment(rawValue: "LocalTesting")
}

/// A point in time as Apple sends it: integer milliseconds since 1970 (UTC).
public struct AppStoreDate: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let millisecondsSince1970: Int64
    public init(millisecondsSince1970: Int64) { self.millisecondsSince1970 = millisecondsSince1970 }
    public init(_ date: Date) { millisecondsSince1970 = Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
    public init(from decoder: any Decoder) throws {
        millisecondsSince1970 = try decoder.singleValueContainer().decode(Int64.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(millisecondsSince1970)
    }
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }
    /// Whole seconds since 1970, rounded down (what X.509 validity uses).
    public var secondsSince1970: Int64 {
        millisecondsSince1970 >= 0 ? millisecondsSince1970 / 1000 : (millisecondsSince1970 - 999) / 1000
    }
    public static func < (a: AppStoreDate, b: AppStoreDate) -> Bool { a.millisecondsSince1970 < b.millisecondsSince1970 }
    public var description: String { "\(millisecondsSince1970)ms" }
}

/// Declares an extensible string-valued Apple enumeration.
public protocol AppStoreStringValue: RawRepresentable, Hashable, Sendable, Codable where RawValue == String {
    init(rawValue: String)
}

extension AppStoreStringValue {
    public init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// Declares an extensible integer-valued Apple enumeration.
public protocol AppStoreIntValue: RawRepresentable, Hashable, Sendable, Codable where RawValue == Int {
    init(rawValue: Int)
}

extension AppStoreIntValue {
    public init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(Int.self)) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// `type` of a transaction.
public struct AppStoreProductType: AppStoreStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let autoRenewableSubscription = Self(rawValue: "Auto-Renewable Subscription")
    public static let nonConsumable = Self(rawValue: "Non-Consumable")
    public static let consumable = Self(rawValue: "Consumable")
    public static let nonRenewingSubscription = Self(rawValue: "Non-Renewing Subscription")
}

/// `inAppOwnershipType`.
public struct AppStoreOwnershipType: AppStoreStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let purchased = Self(rawValue: "PURCHASED")
    public static let familyShared = Self(rawValue: "FAMILY_SHARED")
}

/// `transactionReason`.
public struct AppStoreTransactionReason: AppStoreStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let purchase = Self(rawValue: "PURCHASE")
    public static let renewal = Self(rawValue: "RENEWAL")
}

/// `offerType`.
public struct AppStoreOfferType: AppStoreIntValue {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let introductoryOffer = Self(rawValue: 1)
    public static let promotionalOffer = Self(rawValue: 2)
    public static let subscriptionOfferCode = Self(rawValue: 3)
    public static let winBackOffer = Self(rawValue: 4)
}

/// `revocationReason`.
public struct AppStoreRevocationReason: AppStoreIntValue {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Refunded for another reason, e.g. an accidental purchase.
    public static let other = Self(rawValue: 0)
    /// Refunded because of an actual or perceived issue within the app.
    public static let appIssue = Self(rawValue: 1)
}

/// `autoRenewStatus`.
public struct AppStoreAutoRenewStatus: AppStoreIntValue {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let off = Self(rawValue: 0)
    public static let on = Self(rawValue: 1)
}

/// `expirationIntent`.
public struct AppStoreExpirationIntent: AppStoreIntValue {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let customerCancelled = Self(rawValue: 1)
    public static let billingError = Self(rawValue: 2)
    public static let customerDidNotConsentToPriceIncrease = Self(rawValue: 3)
    public static let productNotAvailable = Self(rawValue: 4)
    public static let other = Self(rawValue: 5)
}

/// `status` of a subscription in a notification's `data`.
public struct AppStoreSubscriptionStatus: AppStoreIntValue {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let active = Self(rawValue: 1)
    public static let expired = Self(rawValue: 2)
    public static let billingRetry = Self(rawValue: 3)
    public static let billingGracePeriod = Self(rawValue: 4)
    public static let revoked = Self(rawValue: 5)
}

/// A verified StoreKit 2 transaction (`JWSTransactionDecodedPayload`).
///
/// Optional where Apple documents the field as optional or absent for some
/// product types. Unknown fields Apple adds are ignored.
public struct AppStoreTransaction: Sendable, Hashable, Codable {
    public var transactionId: String
    public var originalTransactionId: String
    public var webOrderLineItemId: String?
    public var bundleId: String
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: AppStoreDate
    public var originalPurchaseDate: AppStoreDate?
    public var expiresDate: AppStoreDate?
    public var quantity: Int?
    public var type: AppStoreProductType
    public var appAccountToken: UUID?
    public var inAppOwnershipType: AppStoreOwnershipType?
    public var signedDate: AppStoreDate
    public var revocationReason: AppStoreRevocationReason?
    public var revocationDate: AppStoreDate?
    public var isUpgraded: Bool?
    public var offerType: AppStoreOfferType?
    public var offerIdentifier: String?
    public var environment: AppStoreEnvironment
    public var storefront: String?
    public var storefrontId: String?
    public var transactionReason: AppStoreTransactionReason?
    /// Price in milliunits of `currency`.
    public var price: Int64?
    /// ISO 4217 currency code.
    public var currency: String?
    public var appTransactionId: String?
}

/// Verified subscription renewal information (`JWSRenewalInfoDecodedPayload`).
public struct AppStoreRenewalInfo: Sendable, Hashable, Codable {
    public var originalTransactionId: String
    public var autoRenewProductId: String?
    public var productId: String
    public var autoRenewStatus: AppStoreAutoRenewStatus
    public var expirationIntent: AppStoreExpirationIntent?
    public var gracePeriodExpiresDate: AppStoreDate?
    public var isInBillingRetryPeriod: Bool?
    public var offerType: AppStoreOfferType?
    public var offerIdentifier: String?
    public var priceIncreaseStatus: Int?
    public var signedDate: AppStoreDate
    public var environment: AppStoreEnvironment
    public var recentSubscriptionStartDate: AppStoreDate?
    public var renewalDate: AppStoreDate?
    public var renewalPrice: Int64?
    public var currency: String?
    public var appAccountToken: UUID?
    public var appTransactionId: String?
}

/// `notificationType` of an App Store Server Notification V2.
public struct AppStoreNotificationType: AppStoreStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let subscribed = Self(rawValue: "SUBSCRIBED")
    public static let didRenew = Self(rawValue: "DID_RENEW")
    public static let didFailToRenew = Self(rawValue: "DID_FAIL_TO_RENEW")
    public static let didChangeRenewalStatus = Self(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    public static let didChangeRenewalPref = Self(rawValue: "DID_CHANGE_RENEWAL_PREF")
    public static let expired = Self(rawValue: "EXPIRED")
    public static let gracePeriodExpired = Self(rawValue: "GRACE_PERIOD_EXPIRED")
    public static let offerRedeemed = Self(rawValue: "OFFER_REDEEMED")
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    public static let refund = Self(rawValue: "REFUND")
    public static let refundDeclined = Self(rawValue: "REFUND_DECLINED")
    public static let refundReversed = Self(rawValue: "REFUND_REVERSED")
    public static let renewalExtended = Self(rawValue: "RENEWAL_EXTENDED")
    public static let revoke = Self(rawValue: "REVOKE")
    public static let consumptionRequest = Self(rawValue: "CONSUMPTION_REQUEST")
    public static let oneTimeCharge = Self(rawValue: "ONE_TIME_CHARGE")
    public static let test = Self(rawValue: "TEST")
}

/// `subtype` of a notification.
public struct AppStoreNotificationSubtype: AppStoreStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let initialBuy = Self(rawValue: "INITIAL_BUY")
    public static let resubscribe = Self(rawValue: "RESUBSCRIBE")
    public static let downgrade = Self(rawValue: "DOWNGRADE")
    public static let upgrade = Self(rawValue: "UPGRADE")
    public static let autoRenewEnabled = Self(rawValue: "AUTO_RENEW_ENABLED")
    public static let autoRenewDisabled = Self(rawValue: "AUTO_RENEW_DISABLED")
    public static let voluntary = Self(rawValue: "VOLUNTARY")
    public static let billingRetry = Self(rawValue: "BILLING_RETRY")
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
    public static let gracePeriod = Self(rawValue: "GRACE_PERIOD")
    public static let billingRecovery = Self(rawValue: "BILLING_RECOVERY")
    public static let pending = Self(rawValue: "PENDING")
    public static let accepted = Self(rawValue: "ACCEPTED")
    public static let productNotForSale = Self(rawValue: "PRODUCT_NOT_FOR_SALE")
}

/// A verified App Store Server Notification V2 (`responseBodyV2DecodedPayload`),
/// with its nested signed transaction and renewal info verified too.
public struct AppStoreNotification: Sendable, Hashable {
    public var notificationType: AppStoreNotificationType
    public var subtype: AppStoreNotificationSubtype?
    public var notificationUUID: String
    public var version: String?
    public var signedDate: AppStoreDate
    public var data: NotificationData

    /// The notification's `data` object; `transaction` and `renewalInfo` are
    /// the verified decodings of `signedTransactionInfo` / `signedRenewalInfo`.
    public struct NotificationData: Sendable, Hashable {
        public var appAppleId: Int64?
        public var bundleId: String
        public var bundleVersion: String?
        public var environment: AppStoreEnvironment
        public var status: AppStoreSubscriptionStatus?
        /// Absent for TEST notifications.
        public var transaction: AppStoreTransaction?
        public var renewalInfo: AppStoreRenewalInfo?
    }
}

/// The raw decoded notification payload, before the nested JWS are verified.
struct NotificationPayload: Decodable {
    var notificationType: AppStoreNotificationType
    var subtype: AppStoreNotificationSubtype?
    var notificationUUID: String
    var version: String?
    var signedDate: AppStoreDate
    var data: NotificationData?

    struct NotificationData: Decodable {
        var appAppleId: Int64?
        var bundleId: String
        var bundleVersion: String?
        var environment: AppStoreEnvironment
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        var status: AppStoreSubscriptionStatus?
    }
}
