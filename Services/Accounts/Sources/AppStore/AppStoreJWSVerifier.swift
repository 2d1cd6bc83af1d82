public import Foundation
import MailwakeCrypto
import MailwakeProtocol

/// Verifies App Store signed data offline, the way Apple's
/// app-store-server-library does with online checks off: StoreKit 2 signed
/// transactions, signed renewal info and App Store Server Notifications V2.
///
/// Each JWS is checked in this order (the first failure decides the code):
/// size and compact form → header (`alg` = ES256, `x5c` = three standard-base64
/// DER certificates) → payload JSON → chain leaf ← intermediate ← a
/// *configured* root, valid at the payload's `signedDate` → Apple's marker
/// extensions on leaf and intermediate → the leaf's P-256 key → the ES256
/// signature over `header.payload` → bundle, environment (and, for
/// notifications, app Apple ID). The root sent in `x5c` is never trusted.
///
/// No CRL or OCSP request is made: verification is offline by design.
public struct AppStoreJWSVerifier: Sendable {
    /// What the verifier trusts and expects.
    public struct Configuration: Sendable {
        /// Trust anchors, DER. Default: Apple Root CA - G3 only.
        public var trustedRoots: [[UInt8]]
        /// The app's bundle identifier; every payload must carry it.
        public var bundleId: String
        /// The app's Apple ID. When set, notifications must carry it (a
        /// missing `appAppleId` is tolerated outside Production, where Apple
        /// omits it).
        public var appAppleId: Int64?
        /// The environment payloads must come from.
        public var environment: AppStoreEnvironment
        /// The clock, used only when a payload has no `signedDate`.
        public var now: @Sendable () -> Date
        /// The largest accepted JWS, in bytes (each nested JWS too).
        public var maxJWSBytes: Int

        public init(
            trustedRoots: [[UInt8]] = AppleRootCertificates.defaultRoots,
            bundleId: String,
            appAppleId: Int64? = nil,
            environment: AppStoreEnvironment,
            now: @escaping @Sendable () -> Date = { Date() },
            maxJWSBytes: Int = 64 * 1024
        ) {
            self.trustedRoots = trustedRoots
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.environment = environment
            self.now = now
            self.maxJWSBytes = maxJWSBytes
        }
    }

    /// Apple's marker extension on the App Store receipt-signing leaf.
    public static let leafOID = "1.2.840.113635.100.6.11.1"
    /// Apple's marker extension on the WWDR intermediate.
    public static let intermediateOID = "1.2.840.113635.100.6.2.1"

    public let configuration: Configuration
    private let roots: TrustedRoots

    /// Parses the roots; refuses an unusable configuration with `configuration-invalid`.
    public init(configuration: Configuration) throws(AppStoreVerificationError) {
        guard !configuration.bundleId.isEmpty else {
            throw AppStoreVerificationError(.configurationInvalid, "bundleId is empty")
        }
        guard configuration.maxJWSBytes > 0 else {
            throw AppStoreVerificationError(.configurationInvalid, "maxJWSBytes must be positive")
        }
        guard !configuration.trustedRoots.isEmpty else {
            throw AppStoreVerificationError(.configurationInvalid, "no trusted root certificate is configured")
        }
        do {
            roots = try TrustedRoots(der: configuration.trustedRoots)
        } catch {
            throw AppStoreVerificationError(.configurationInvalid, error.message)
        }
        self.configuration = configuration
    }

    // MARK: Public entry points

    /// Verifies a StoreKit 2 signed transaction (`signedTransactionInfo`, `jwsRepresentation`).
    public func verifyTransaction(_ jws: String) throws(AppStoreVerificationError) -> AppStoreTransaction {
        let transaction = try verifyJWS(jws, as: AppStoreTransaction.self, signedDate: \.signedDate)
        guard transaction.bundleId == configuration.bundleId else {
            throw AppStoreVerificationError(.bundleMismatch, "the transaction is for another bundle")
        }
        guard transaction.environment == configuration.environment else {
            throw AppStoreVerificationError(.environmentMismatch,
                                            "the transaction is from \(Self.name(transaction.environment)), expected " +
                                            "\(configuration.environment)")
        }
        return transaction
    }

    /// Verifies signed subscription renewal info (`signedRenewalInfo`).
    ///
    /// Renewal info carries no bundle identifier; only its environment is checked.
    public func verifyRenewalInfo(_ jws: String) throws(AppStoreVerificationError) -> AppStoreRenewalInfo {
        let info = try verifyJWS(jws, as: AppStoreRenewalInfo.self, signedDate: \.signedDate)
        guard info.environment == configuration.environment else {
            throw AppStoreVerificationError(.environmentMismatch,
                                            "the renewal info is from \(Self.name(info.environment)), expected " +
                                            "\(configuration.environment)")
        }
        return info
    }

    /// Verifies an App Store Server Notification V2 `signedPayload` and the
    /// signed transaction and renewal info nested in it.
    ///
    /// Notifications without a `data` object (summary and external purchase
    /// token notifications) are refused with `payload-malformed`.
    public func verifyNotification(_ signedPayload: String) throws(AppStoreVerificationError) -> AppStoreNotification {
        let payload = try verifyJWS(signedPayload, as: NotificationPayload.self, signedDate: \.signedDate)
        guard let data = payload.data else {
            throw AppStoreVerificationError(.payloadMalformed, "notifications without a data object are not supported")
        }
        guard data.bundleId == configuration.bundleId else {
            throw AppStoreVerificationError(.bundleMismatch, "the notification is for another bundle")
        }
        if let expected = configuration.appAppleId {
            let tolerated = data.appAppleId == nil && data.environment != .production
            guard data.appAppleId == expected || tolerated else {
                throw AppStoreVerificationError(.appAppleIdMismatch, "the notification is for another app")
            }
        }
        guard data.environment == configuration.environment else {
            throw AppStoreVerificationError(.environmentMismatch,
                                            "the notification is from \(Self.name(data.environment)), expected " +
                                            "\(configuration.environment)")
        }
        var transaction: AppStoreTransaction?
        var renewalInfo: AppStoreRenewalInfo?
        do throws(AppStoreVerificationError) {
            if let signed = data.signedTransactionInfo { transaction = try verifyTransaction(signed) }
        } catch {
            throw error.within("signedTransactionInfo")
        }
        do throws(AppStoreVerificationError) {
            if let signed = data.signedRenewalInfo { renewalInfo = try verifyRenewalInfo(signed) }
        } catch {
            throw error.within("signedRenewalInfo")
        }
        if payload.notificationType != .test, transaction == nil {
            throw AppStoreVerificationError(.payloadMalformed,
                                            "a \(payload.notificationType.rawValue) notification must carry signedTransactionInfo")
        }
        if let transaction, let renewalInfo, transaction.originalTransactionId != renewalInfo.originalTransactionId {
            throw AppStoreVerificationError(.payloadMalformed,
                                            "signedTransactionInfo and signedRenewalInfo name different original transactions")
        }
        return AppStoreNotification(
            notificationType: payload.notificationType, subtype: payload.subtype, notificationUUID: payload.notificationUUID,
            version: payload.version, signedDate: payload.signedDate,
            data: .init(appAppleId: data.appAppleId, bundleId: data.bundleId, bundleVersion: data.bundleVersion,
                        environment: data.environment, status: data.status, transaction: transaction, renewalInfo: renewalInfo))
    }

    // MARK: The JWS checks

    private struct Header: Decodable {
        var alg: String?
        var x5c: [String]?
        var crit: [String]?
    }

    /// A compact JWS split into its decoded parts.
    private struct CompactJWS {
        var header: [UInt8]
        var payload: [UInt8]
        var signature: [UInt8]
        /// ASCII `header.payload` as received: what the signature signs.
        var signingInput: [UInt8]
    }

    /// Checks one compact JWS and returns its decoded payload, in the order the type's documentation gives.
    private func verifyJWS<T: Decodable>(_ jws: String, as type: T.Type,
                                         signedDate: (T) -> AppStoreDate?) throws(AppStoreVerificationError) -> T {
        let parts = try split(jws)
        let certificates = try certificateChain(fromHeader: parts.header)
        guard parts.signature.count == 64 else {
            throw AppStoreVerificationError(.jwsMalformed, "an ES256 signature is 64 bytes, got \(parts.signature.count)")
        }
        // 3. Payload (needed for signedDate; parsed strictly, unknown keys ignored).
        let payload = try decodeJSON(T.self, from: parts.payload)
        try verifyChain(certificates, at: signedDate(payload) ?? AppStoreDate(configuration.now()))
        try verifySignature(parts, leaf: certificates[0])
        return payload
    }

    /// 1. Size and form: three non-empty base64url parts.
    private func split(_ jws: String) throws(AppStoreVerificationError) -> CompactJWS {
        let bytes = Array(jws.utf8)
        guard bytes.count <= configuration.maxJWSBytes else {
            throw AppStoreVerificationError(.jwsMalformed, "the JWS is larger than \(configuration.maxJWSBytes) bytes")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw AppStoreVerificationError(.jwsMalformed, "a compact JWS has three non-empty parts")
        }
        guard let header = Self.base64url(parts[0]) else {
            throw AppStoreVerificationError(.jwsMalformed, "the header is not base64url")
        }
        guard let payload = Self.base64url(parts[1]) else {
            throw AppStoreVerificationError(.jwsMalformed, "the payload is not base64url")
        }
        guard let signature = Self.base64url(parts[2]) else {
            throw AppStoreVerificationError(.jwsMalformed, "the signature is not base64url")
        }
        return CompactJWS(header: header, payload: payload, signature: signature,
                          signingInput: Array(bytes[..<(parts[0].count + 1 + parts[1].count)]))
    }

    /// 2. Header: ES256, no critical parameters, and an `x5c` of exactly three DER certificates, which it returns.
    private func certificateChain(fromHeader headerBytes: [UInt8]) throws(AppStoreVerificationError) -> [[UInt8]] {
        let header: Header
        do throws(AppStoreVerificationError) {
            header = try decodeJSON(Header.self, from: headerBytes)
        } catch {
            throw AppStoreVerificationError(.jwsMalformed, "the header is not a JSON object: \(error.message)")
        }
        guard header.alg == "ES256" else {
            throw AppStoreVerificationError(.jwsUnsupportedAlgorithm, "alg must be ES256")
        }
        guard header.crit == nil else {
            throw AppStoreVerificationError(.jwsUnsupportedAlgorithm, "critical header parameters are not supported")
        }
        guard let x5c = header.x5c, !x5c.isEmpty else {
            throw AppStoreVerificationError(.x5cMissing, "the header has no x5c certificate chain")
        }
        guard x5c.count == 3 else {
            throw AppStoreVerificationError(.x5cMissing, "x5c must hold exactly three certificates, got \(x5c.count)")
        }
        var certificates: [[UInt8]] = []
        for (index, encoded) in x5c.enumerated() {
            guard encoded.utf8.count <= configuration.maxJWSBytes,
                  let der = Data(base64Encoded: encoded), X509DER.isCertificate(Array(der))
            else {
                throw AppStoreVerificationError(.certificateMalformed, "x5c[\(index)] is not base64 of one DER certificate")
            }
            certificates.append(Array(der))
        }
        return certificates
    }

    /// 4. Chain to a configured root at `date` (x5c[2] is never used for trust); 5. Apple's marker extensions.
    private func verifyChain(_ certificates: [[UInt8]], at date: AppStoreDate) throws(AppStoreVerificationError) {
        switch roots.verify(leaf: certificates[0], intermediate: certificates[1], atSeconds: date.secondsSince1970) {
        case .trusted?: break
        case .expired(let reason)?, .notYetValid(let reason)?:
            throw AppStoreVerificationError(.certificateExpired, "the chain was not valid at signedDate: \(reason)")
        case .untrusted(let reason)?:
            throw AppStoreVerificationError(.chainUntrusted, "the chain does not lead to a trusted root: \(reason)")
        case nil:
            throw AppStoreVerificationError(.certificateMalformed, "the chain could not be parsed")
        }
        guard X509DER.hasExtension(certificates[0], oid: Self.leafOID) == true else {
            throw AppStoreVerificationError(.oidMissing, "the leaf certificate lacks \(Self.leafOID)")
        }
        guard X509DER.hasExtension(certificates[1], oid: Self.intermediateOID) == true else {
            throw AppStoreVerificationError(.oidMissing, "the intermediate certificate lacks \(Self.intermediateOID)")
        }
    }

    /// 6. Signature with the leaf's P-256 key over ASCII "header.payload".
    private func verifySignature(_ jws: CompactJWS, leaf: [UInt8]) throws(AppStoreVerificationError) {
        guard let point = X509DER.p256PublicKey(leaf),
              let key = try? P256.Signing.PublicKey(x963Representation: point)
        else {
            throw AppStoreVerificationError(.certificateMalformed, "the leaf key is not a P-256 key")
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
              key.isValidSignature(signature, for: jws.signingInput)
        else {
            throw AppStoreVerificationError(.signatureInvalid, "the ES256 signature does not verify")
        }
    }

    /// Strict JSON (duplicate keys, depth, size refused) that ignores unknown keys.
    private func decodeJSON<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(AppStoreVerificationError) -> T {
        do {
            try StrictJSON.validate(bytes, limits: .init(maxBytes: configuration.maxJWSBytes, maxDepth: 16, allowFractions: true))
        } catch {
            throw AppStoreVerificationError(.payloadMalformed, "not strict JSON: \(error.message)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw AppStoreVerificationError(.payloadMalformed, "missing field \(key.stringValue)")
        } catch let DecodingError.typeMismatch(_, context) {
            throw AppStoreVerificationError(.payloadMalformed, "wrong type at \(Self.path(context))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw AppStoreVerificationError(.payloadMalformed, "null at \(Self.path(context))")
        } catch let DecodingError.dataCorrupted(context) {
            throw AppStoreVerificationError(.payloadMalformed, "invalid value at \(Self.path(context))")
        } catch {
            throw AppStoreVerificationError(.payloadMalformed, "not the expected JSON object")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let p = context.codingPath.map(\.stringValue).joined(separator: ".")
        return p.isEmpty ? "the top level" : p
    }

    private static func base64url(_ part: ArraySlice<UInt8>) -> [UInt8]? {
        Array(part).withUnsafeBufferPointer { Base64URL.decode($0) }
    }

    /// An environment name safe to echo (Apple's names, or "another environment").
    private static func name(_ environment: AppStoreEnvironment) -> String {
        [.production, .sandbox, .xcode, .localTesting].contains(environment) ? environment.rawValue : "another environment"
    }
}
