import Foundation
import MailwakeCrypto
import MailwakeDeviceKit
import MailwakeProtocol

/// A simulated iPhone's state on disk (`device.json`, mode 0600): its keys,
/// APNs tokens, pairings and the event ids it has already shown.
struct DeviceState: Codable {
    struct Pairing: Codable {
        var pairingID: String
        /// X9.63 outpost key, base64url, locked when the user confirmed the fingerprint.
        var outpostKey: String
        /// The relay origin (the envelope `aud`).
        var relay: String
    }

    /// An outpost whose invitation the device redeemed.
    struct Outpost: Codable {
        var outpostID: String
        /// X9.63 outpost key, base64url.
        var outpostKey: String
        /// The outpost's HTTPS origin.
        var url: String
        /// SHA-256 of its TLS key, base64url (the pin of the invitation).
        var pin: String
        var scopes: [String]
    }

    var signingKey: String
    var agreementKey: String
    var apnsToken: String
    var pushToStartToken: String
    var environment: String
    var pairings: [Pairing] = []
    /// What the inbox has shown, as `pairing_id/event_id` (files written before catch-up hold bare event ids).
    var seenEventIDs: [String] = []
    /// Receipts (PROTOCOL.md §13) the relay has not acknowledged yet; absent in files written before receipts.
    var pendingReceipts: [PendingReceipt]? = nil
    /// `pairing_id/event_id` the relay acknowledged a receipt for (a later duplicate of one is not receipted again).
    var receiptedKeys: [String]? = nil
    /// Absent in files written before management invitations existed.
    var outposts: [Outpost]? = nil
    /// The session accounts answered the last registration (`Mailwake-Session` on later calls); absent before `register`.
    var accountsSession: String? = nil

    static func path(_ dir: String) -> String { dir + "/device.json" }

    static func create(environment: String) throws -> DeviceState {
        let hex = { (n: Int) throws -> String in try SecureRandom.bytes(n).map { String(format: "%02x", $0) }.joined() }
        return DeviceState(signingKey: Base64URL.encode(try P256.Signing.PrivateKey().pkcs8DERRepresentation),
                           agreementKey: Base64URL.encode(try P256.KeyAgreement.PrivateKey().pkcs8DERRepresentation),
                           apnsToken: try hex(32), pushToStartToken: try hex(40), environment: environment)
    }

    static func load(_ dir: String) throws -> DeviceState {
        guard let data = FileManager.default.contents(atPath: path(dir)) else {
            throw DeviceError("no device in \(dir): run `mailwake-device init --dir \(dir)`")
        }
        return try JSONDecoder().decode(DeviceState.self, from: data)
    }

    func save(_ dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard FileManager.default.createFile(atPath: Self.path(dir), contents: try encoder.encode(self),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw DeviceError("cannot write \(Self.path(dir))")
        }
    }

    var signing: P256.Signing.PrivateKey {
        get throws { try P256.Signing.PrivateKey(pkcs8DERRepresentation: Base64URL.decode(signingKey) ?? []) }
    }
    var agreement: P256.KeyAgreement.PrivateKey {
        get throws { try P256.KeyAgreement.PrivateKey(pkcs8DERRepresentation: Base64URL.decode(agreementKey) ?? []) }
    }
    /// A signed, pinned session with an outpost this device redeemed an invitation of.
    func session(with outpost: Outpost, baseURL: String?) throws -> OutpostSession {
        try OutpostSession(origin: outpost.url, pin: Base64URL.decode(outpost.pin) ?? [], signing: try signing, baseURL: baseURL)
    }

    var deviceID: String {
        get throws { KeyIdentity.id(of: try signing.publicKey) }
    }
}

/// A device simulator failure, printed as one line.
struct DeviceError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
