import Foundation
import MailwakeCrypto
import MailwakeProtocol
import Synchronization

/// The provider authentication token (an ES256 JWT) for APNs, made from the
/// team's `.p8` key and reused until it is `refreshAfter` old: Apple refuses
/// tokens older than an hour and throttles ones renewed more than every 20
/// minutes, so it is never made per request.
final class APNsProviderToken: Sendable {
    /// One issued token.
    struct Issued: Sendable, Hashable {
        let value: String
        let issuedAt: Int64
        /// The `authorization` field that sends it, made once rather than for every push.
        let authorization: String

        init(value: String, issuedAt: Int64) {
            self.value = value
            self.issuedAt = issuedAt
            authorization = "bearer " + value
        }
    }

    let key: P256.Signing.PrivateKey
    let keyID: String
    let teamID: String
    let refreshAfter: Int64
    private let clock: @Sendable () -> Int64
    private let current = Mutex<Issued?>(nil)
    private let onRefresh: @Sendable () -> Void

    /// - Parameters:
    ///   - keyPEM: the `.p8` file's text (PKCS#8 PEM).
    ///   - keyID: the JWT `kid`.
    ///   - teamID: the JWT `iss`.
    ///   - refreshAfter: seconds after which a new token is made.
    ///   - clock: Unix seconds (real time: APNs checks `iat` against its clock; tests may offset it).
    ///   - onRefresh: called each time a token is made (metrics).
    init(keyPEM: String, keyID: String, teamID: String, refreshAfter: Int64, clock: @escaping @Sendable () -> Int64,
         onRefresh: @escaping @Sendable () -> Void = {}) throws {
        key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        self.keyID = keyID
        self.teamID = teamID
        self.refreshAfter = refreshAfter
        self.clock = clock
        self.onRefresh = onRefresh
    }

    /// Reads the key file, refusing one that others may read.
    convenience init(keyFile: String, keyID: String, teamID: String, refreshAfter: Int64, clock: @escaping @Sendable () -> Int64,
                     onRefresh: @escaping @Sendable () -> Void = {}) throws {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: keyFile),
              let data = FileManager.default.contents(atPath: keyFile)
        else { throw APNsKeyError(message: "cannot read the APNs key file \(keyFile)") }
        if let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw APNsKeyError(message: "the APNs key file \(keyFile) may be read by others (mode \(String(mode, radix: 8))): " +
                                        "chmod 600 it")
        }
        try self.init(keyPEM: String(decoding: data, as: UTF8.self), keyID: keyID, teamID: teamID, refreshAfter: refreshAfter,
                      clock: clock, onRefresh: onRefresh)
    }

    /// The token to send now (made when missing or due).
    func token() throws -> Issued {
        let now = clock()
        if let issued = current.withLock({ $0 }), now - issued.issuedAt < refreshAfter, issued.issuedAt <= now + 60 {
            return issued
        }
        return try renew(replacing: current.withLock { $0 }).issued
    }

    /// Replaces the token after APNs refused it (`ExpiredProviderToken`,
    /// `InvalidProviderToken`); concurrent callers that saw the same refused
    /// token share one renewal.
    /// - Returns: the token to use, and whether this call made it.
    @discardableResult
    func renew(replacing refused: Issued?) throws -> (issued: Issued, renewed: Bool) {
        let now = clock()
        return try current.withLock { current in
            if let existing = current, existing != refused { return (existing, false) }
            let issued = try sign(at: now)
            current = issued
            return (issued, true)
        }
    }

    /// Now, in Unix seconds, on the token's clock.
    func now() -> Int64 { clock() }

    /// The token held in memory, if any (no renewal).
    var cached: Issued? { current.withLock { $0 } }

    /// Holds `issued` from now on (the shared token another instance signed,
    /// or one this instance signed under the lease).
    func adopt(_ issued: Issued) { current.withLock { $0 = issued } }

    /// Signs a new token issued now, without holding it (counted in `onRefresh`).
    func signNew() throws -> Issued { try sign(at: clock()) }

    private func sign(at now: Int64) throws -> Issued {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"\#(teamID)","iat":\#(now)}"#.utf8))
        let signingInput = header + "." + claims
        let signature = try key.signature(for: Array(signingInput.utf8)).rawRepresentation
        onRefresh()
        return Issued(value: signingInput + "." + Base64URL.encode(signature), issuedAt: now)
    }
}
