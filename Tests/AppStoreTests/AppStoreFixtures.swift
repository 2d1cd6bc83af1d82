import Foundation
import MailwakeAppStore
import MailwakeCrypto
import Testing
import TestSupport

let testBundleId = "app.mailwake.ios"
let testAppAppleId: Int64 = 1_234_567_890

/// A generated chain with its leaf key loaded, shared by the tests of one run.
struct SigningChain: Sendable {
    let chain: TestAppStoreChain
    let key: P256.Signing.PrivateKey?

    init(_ options: TestAppStoreChain.Options) throws {
        chain = try TestAppStoreChain.make(options)
        key = try? P256.Signing.PrivateKey(pemRepresentation: chain.leafKeyPEM)
    }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let key else { throw TestHarnessError("this chain's leaf key is not P-256") }
        return try key.signature(for: message).rawRepresentation
    }

    /// A JWS over `payload`, signed by this chain's leaf, with `x5c` = this chain.
    func jws(_ payload: [String: any Sendable], alg: String = "ES256", x5c: [String]? = nil) throws -> String {
        try TestJWS.compact(x5c: x5c ?? chain.x5c(), alg: alg, payload: payload, sign: sign)
    }
}

/// Chains generated once per test process (each takes a dozen `openssl` runs).
enum Chains {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [String: SigningChain] = [:]

    static func get(_ name: String, _ configure: (inout TestAppStoreChain.Options) -> Void = { _ in }) throws -> SigningChain {
        lock.lock()
        defer { lock.unlock() }
        if let chain = cache[name] { return chain }
        var options = TestAppStoreChain.Options()
        options.name = "Mailwake Test \(name)"
        configure(&options)
        let chain = try SigningChain(options)
        cache[name] = chain
        return chain
    }

    /// The chain the verifier trusts.
    static func good() throws -> SigningChain { try get("good") }
    /// A chain to another root that nobody configures.
    static func other() throws -> SigningChain { try get("other") }
}

func verifier(roots: [[UInt8]]? = nil, environment: AppStoreEnvironment = .sandbox, appAppleId: Int64? = testAppAppleId,
              now: Date = Date(), maxJWSBytes: Int = 64 * 1024) throws -> AppStoreJWSVerifier {
    let trusted = try roots ?? [Chains.good().chain.rootDER]
    return try AppStoreJWSVerifier(configuration: .init(
        trustedRoots: trusted, bundleId: testBundleId, appAppleId: appAppleId, environment: environment,
        now: { now }, maxJWSBytes: maxJWSBytes))
}

func transactionPayload(signedDate: Date = Date(), bundleId: String = testBundleId, environment: String = "Sandbox",
                        originalTransactionId: String = "2000000000000001") -> [String: any Sendable] {
    let ms = TestJWS.milliseconds(signedDate)
    return [
        "transactionId": "2000000000000042",
        "originalTransactionId": originalTransactionId,
        "webOrderLineItemId": "2000000000000099",
        "bundleId": bundleId,
        "productId": "app.mailwake.pro.monthly",
        "subscriptionGroupIdentifier": "21000001",
        "purchaseDate": ms - 60_000,
        "originalPurchaseDate": ms - 86_400_000,
        "expiresDate": ms + 30 * 86_400_000,
        "quantity": 1,
        "type": "Auto-Renewable Subscription",
        "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138",
        "inAppOwnershipType": "PURCHASED",
        "signedDate": ms,
        "isUpgraded": false,
        "offerType": 1,
        "environment": environment,
        "storefront": "USA",
        "storefrontId": "143441",
        "transactionReason": "RENEWAL",
        "price": 4990,
        "currency": "USD",
    ]
}

func renewalPayload(signedDate: Date = Date(), environment: String = "Sandbox",
                    originalTransactionId: String = "2000000000000001") -> [String: any Sendable] {
    let ms = TestJWS.milliseconds(signedDate)
    return [
        "originalTransactionId": originalTransactionId,
        "autoRenewProductId": "app.mailwake.pro.yearly",
        "productId": "app.mailwake.pro.monthly",
        "autoRenewStatus": 1,
        "isInBillingRetryPeriod": false,
        "signedDate": ms,
        "environment": environment,
        "recentSubscriptionStartDate": ms - 86_400_000,
        "renewalDate": ms + 30 * 86_400_000,
        "renewalPrice": 4990,
        "currency": "USD",
    ]
}

func notificationPayload(type: String, subtype: String? = nil, signedDate: Date = Date(),
                         data: [String: any Sendable]) -> [String: any Sendable] {
    var payload: [String: any Sendable] = [
        "notificationType": type,
        "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
        "version": "2.0",
        "signedDate": TestJWS.milliseconds(signedDate),
        "data": data,
    ]
    if let subtype { payload["subtype"] = subtype }
    return payload
}

func notificationData(bundleId: String = testBundleId, environment: String = "Sandbox", appAppleId: Int64? = testAppAppleId,
                      signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil,
                      status: Int? = nil) -> [String: any Sendable] {
    var data: [String: any Sendable] = ["bundleId": bundleId, "bundleVersion": "42", "environment": environment]
    if let appAppleId { data["appAppleId"] = appAppleId }
    if let signedTransactionInfo { data["signedTransactionInfo"] = signedTransactionInfo }
    if let signedRenewalInfo { data["signedRenewalInfo"] = signedRenewalInfo }
    if let status { data["status"] = status }
    return data
}

/// Expects `body` to be refused with `code`, and the message not to echo the JWS.
func expectRefusal<T>(_ code: AppStoreVerificationError.Code, jws: String, sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: () throws(AppStoreVerificationError) -> T) {
    do {
        _ = try body()
        Issue.record("accepted; expected \(code.rawValue)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        for part in jws.split(separator: ".") where part.count >= 12 {
            #expect(!error.message.contains(part.prefix(12)), "the message echoes the JWS", sourceLocation: sourceLocation)
        }
    }
}

/// Replaces part `index` (0 header, 1 payload, 2 signature) of a compact JWS.
func replacingPart(_ jws: String, _ index: Int, with part: String) -> String {
    var parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    parts[index] = part
    return parts.joined(separator: ".")
}
