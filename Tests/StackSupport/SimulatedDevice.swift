import Foundation
public import MailwakeCrypto
public import MailwakeHTTPClient
import MailwakeHTTPTypes
public import MailwakeProtocol
import TestSupport

/// A simulated iPhone: its keys and APNs tokens, registration at accounts,
/// pairing consent, and opening what APNs delivered, as the App does.
public struct SimulatedDevice: Sendable {
    public let signing: P256.Signing.PrivateKey
    public let agreement: P256.KeyAgreement.PrivateKey
    public let apnsToken: String
    public let pushToStartToken: String
    private let accountsSession = AccountsSessionBox()
    public var id: String { KeyIdentity.id(of: signing.publicKey) }

    public init() throws {
        signing = try .init()
        agreement = try .init()
        apnsToken = Hex.encode(try SecureRandom.bytes(32))
        pushToStartToken = Hex.encode(try SecureRandom.bytes(40))
    }

    /// Requests to accounts signed by this device.
    private func accountsClient(_ accounts: AccountsInstance, _ client: HTTPClient) -> SignedHTTPClient {
        SignedHTTPClient(http: client, origin: AccountsInstance.origin, key: signing, baseURL: accounts.url)
    }

    /// Registers at accounts (signed request, proof of possession).
    public func register(at accounts: AccountsInstance, client: HTTPClient, environment: String = "sandbox") async throws {
        let body = Array((#"{"signing_key":"\#(Base64URL.encode(signing.publicKey.x963Representation))","# +
                          #""agreement_key":"\#(Base64URL.encode(agreement.publicKey.x963Representation))","# +
                          #""apns_token":"\#(apnsToken)","apns_environment":"\#(environment)","# +
                          #""push_to_start_token":"\#(pushToStartToken)","bundle_id":"\#(RelayInstance.bundleID)","# +
                          #""app_version":"1.0 (42)"}"#).utf8)
        let headers: HTTPHeaders = accountsSession.session.map { ["Mailwake-Session": $0] } ?? [:]
        let response = try await accountsClient(accounts, client).send(.post, "/v1/devices", body: body, headers: headers)
        guard response.status == .created
            || response.status == .ok else { throw TestHarnessError("device registration answered \(response.status.code): " +
                                                                    "\(response.text)") }
        struct Registered: Decodable {
            let sessionID: String
            enum CodingKeys: String, CodingKey { case sessionID = "session_id" }
        }
        accountsSession.session = try response.decode(Registered.self).sessionID
    }

    /// Tells accounts the push-to-start token and one activity's update token.
    public func registerActivityToken(at accounts: AccountsInstance, client: HTTPClient, activityID: String, token: String) async throws {
        let path = "/v1/devices/\(id)/live-activity-tokens"
        let body = Array(#"{"activity_id":"\#(activityID)","token":"\#(token)"}"#.utf8)
        let response = try await accountsClient(accounts, client).send(.post, path, body: body,
                                                                       headers: ["Mailwake-Session": accountsSession.session ?? ""])
        guard response.status == .noContent else { throw TestHarnessError("activity token answered \(response.status.code)") }
    }

    /// The consent the App posts after the user confirms the pairing link.
    public func consent(to link: PairingLink) throws -> ConsentSubmission {
        try ConsentSubmission.create(for: link, signingKey: signing, agreementKey: agreement.publicKey)
    }

    /// Opens the `mw` envelope of an APNs payload (top level for alerts,
    /// `aps.content-state.mw` for Live Activities) and decodes the notification.
    public func open(payload: String, outpostKey: P256.Signing.PublicKey, pairingID: String) throws -> NotificationContent {
        let envelope = try Self.envelope(inPayload: payload)
        let opener = EnvelopeOpener(agreementKey: agreement, outpostKey: outpostKey, audience: RelayInstance.origin, pairingID: pairingID)
        return try NotificationContent.decode(try opener.open(envelope))
    }

    /// The envelope carried by an APNs payload.
    public static func envelope(inPayload payload: String) throws -> Envelope {
        guard let object =
            try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] else { throw TestHarnessError("payload is not " +
                "an object") }
        let aps = object["aps"] as? [String: Any]
        guard let mw = (object["mw"]
            ?? (aps?["content-state"] as? [String: Any])?["mw"]) else { throw TestHarnessError("payload carries no mw envelope") }
        return try Envelope.decode(Array(try JSONSerialization.data(withJSONObject: mw)))
    }
}
