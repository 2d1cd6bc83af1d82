import Foundation
public import MailwakeCore
import MailwakeCrypto
import MailwakeHTTPClient
import MailwakeHTTPTypes
public import MailwakeProtocol

/// Push pairing from the outpost's side (PROTOCOL.md §9, revision 2): register
/// a pending pairing at the relay with `SHA-256(relay_token)`, show the link,
/// wait for the device's consent, verify its `mac` (which only a device that
/// scanned the link can make) and then its signature, audience and expiry, have
/// it approved, lock the device's keys, then confirm at the relay. A consent
/// that fails a check or is not approved ends the pairing; nothing is stored.
public struct OutpostPairing: Sendable {
    /// A registered pairing waiting for a device.
    public struct Offer: Sendable {
        public let link: PairingLink
        public var pairingID: String { link.pairingID }
    }

    let store: OutpostStore
    let client: OutpostRelayClient
    let identity: OutpostIdentity
    let clock: @Sendable () -> Int64

    public init(store: OutpostStore, client: OutpostRelayClient, identity: OutpostIdentity,
                clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
        self.store = store
        self.client = client
        self.identity = identity
        self.clock = clock
    }

    /// Registers a pending pairing valid `lifetime` seconds (at most 300).
    public func offer(lifetime: Int64 = 300) async throws -> Offer {
        let credential = try SecureRandom.bytes(32)
        let expires = clock() + min(lifetime, 300)
        let pairingID = try PairingID.generate()
        let registration = PairingRegistration(pairingID: pairingID, outpostKey: identity.publicKey,
                                               relayTokenHash: try PairingSecrets(credential: credential).relayTokenHash,
                                               expiresAt: expires)
        let response: MailwakeHTTPClient.HTTPClient.Response
        do {
            response = try await client.signed(.post, "/v1/pairings", body: registration.jsonBytes)
        } catch {
            throw OutpostError(.relay, "cannot reach the relay at \(client.relay.url): \(error)")
        }
        guard response.status == .created || response.status == .ok else {
            throw OutpostError(.relay, "the relay refused the pairing: \(Self.describe(OutpostRelayClient.answer(response)))")
        }
        return Offer(link: PairingLink(outpostKey: identity.publicKey, relay: client.relay.origin, environment: client.relay.environment,
                                       pairingID: pairingID, credential: credential, expiresAt: expires))
    }

    /// Waits for the consent until the offer expires, verifies it, has it approved, locks the device and confirms.
    ///
    /// - Parameters:
    ///   - offer: the registered pairing.
    ///   - approval: who confirms a consent that passed every check.
    public func complete(_ offer: Offer, approval: ConsentApproval) async throws -> PairedDevice {
        let link = offer.link
        var consent: PairingConsent?
        while consent == nil {
            let left = link.expiresAt - clock()
            guard left > 0 else { throw OutpostError(.pairing, "the pairing expired before a device consented; run `pair` again") }
            let wait = min(25, left)
            let response: MailwakeHTTPClient.HTTPClient.Response
            do {
                response = try await client.signed(.get, "/v1/pairings/\(link.pairingID)/consent?wait=\(wait)",
                                                   timeout: .seconds(Double(wait + 20)))
            } catch {
                try await Task.sleep(for: .seconds(2))
                continue
            }
            switch response.status {
            case .ok:
                guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                      let c = object["consent"],
                      let bytes = try? JSONSerialization.data(withJSONObject: c), let decoded = try? PairingConsent.decode(Array(bytes))
                else { throw OutpostError(.pairing, "the relay sent a consent that is not well formed") }
                consent = decoded
            case .accepted:
                continue
            default:
                throw OutpostError(.pairing, "the relay ended the pairing: \(Self.describe(OutpostRelayClient.answer(response)))")
            }
        }
        guard let consent else { throw OutpostError(.pairing, "no consent") }
        do {
            try consent.verify(outpostKey: identity.publicKey, secrets: try PairingSecrets(credential: link.credential),
                               audience: link.relay,
                               pairingID: link.pairingID, expectedExpiry: link.expiresAt, now: clock())
        } catch {
            let ended = await endQuietly(link.pairingID)
            if error.code == .badMAC {
                throw OutpostError(.pairing, """
                    refused a forged consent: its MAC does not verify, so it was not made by a device that scanned this outpost's code \
                    (the relay, or someone between the App and the relay, made it). \(ended) Nothing was stored; check the relay and run \
                    `pair` again.
                    """)
            }
            throw OutpostError(.pairing,
                               "the device's consent does not verify (\(error.code)): \(error.message). \(ended) Nothing was stored.")
        }
        try await approve(consent, approval, link: link)
        let device = PairedDevice(pairingID: link.pairingID, deviceID: consent.deviceID, signingKey: consent.deviceSigningKey,
                                  agreementKey: consent.deviceAgreementKey, relayURL: client.relay.origin,
                                  environment: client.relay.environment,
                                  active: true, pairedAt: clock(), unpairedAt: nil)
        try await store.insertPairing(device)
        let confirmed: MailwakeHTTPClient.HTTPClient.Response
        do {
            confirmed = try await client.signed(.post, "/v1/pairings/\(link.pairingID)/confirm")
        } catch {
            try? await store.deletePairing(link.pairingID)
            throw OutpostError(.relay, "cannot reach the relay to confirm the pairing; nothing was stored")
        }
        guard confirmed.status == .ok else {
            try? await store.deletePairing(link.pairingID)
            throw OutpostError(.relay,
                               "the relay refused the confirmation: \(Self.describe(OutpostRelayClient.answer(confirmed))); nothing " +
                               "was stored")
        }
        return device
    }

    /// Applies `approval` to a verified consent; a consent it does not approve ends the pairing.
    func approve(_ consent: PairingConsent, _ approval: ConsentApproval, link: PairingLink) async throws {
        switch approval {
        case .owner(let ask):
            guard try await ask(consent) else {
                throw OutpostError(.pairing,
                                   "device \(consent.deviceID) was not confirmed. \(await endQuietly(link.pairingID)) Nothing was stored.")
            }
        case .redeemer(let tokenHash):
            var invitation = try await store.invitation(tokenHash: tokenHash)
            while invitation?.redeemedAt == nil, clock() <= link.expiresAt {
                try await Task.sleep(for: .milliseconds(250))
                invitation = try await store.invitation(tokenHash: tokenHash)
            }
            var redeemer: KnownDevice?
            if let id = invitation?.redeemedBy { redeemer = try await store.knownDevice(id) }
            guard let redeemer, redeemer.deviceID == consent.deviceID, ConstantTime.equals(redeemer.signingKey, consent.deviceSigningKey),
                  ConstantTime.equals(redeemer.agreementKey, consent.deviceAgreementKey)
            else {
                let who = redeemer.map { "the device that redeemed the invitation (\($0.deviceID))" }
                    ?? "a device that redeemed the invitation"
                throw OutpostError(.pairing, """
                    refused the push consent of device \(consent.deviceID): it is not \(who) with the same keys. \
                    \(await endQuietly(link.pairingID)) Nothing was stored.
                    """)
            }
        }
    }

    /// Ends a pairing at the relay, best effort, and says how it went.
    func endQuietly(_ pairingID: String) async -> String {
        do {
            let response = try await client.signed(.delete, "/v1/pairings/\(pairingID)")
            return response.status == .noContent || response.status == .notFound ? "The pairing was ended at the relay." :
                "Ending the pairing at the relay failed (\(response.status.code)); it expires unconfirmed."
        } catch {
            return "The relay could not be reached to end the pairing; it expires unconfirmed."
        }
    }

    /// Ends a pairing at the relay and keeps the local record as history.
    public func unpair(_ pairingID: String) async throws {
        let response: MailwakeHTTPClient.HTTPClient.Response
        do {
            response = try await client.signed(.delete, "/v1/pairings/\(pairingID)")
        } catch {
            throw OutpostError(.relay, "cannot reach the relay to end the pairing: \(error)")
        }
        guard response.status == .noContent || response.status == .notFound else {
            throw OutpostError(.relay, "the relay refused to end the pairing: \(Self.describe(OutpostRelayClient.answer(response)))")
        }
        try await store.markUnpaired(pairingID)
    }

    static func describe(_ answer: RelayAnswer) -> String {
        switch answer {
        case .accepted: "accepted"
        case .retry(_, let reason): "try again later (\(reason))"
        case .refused(let status, let code, let detail): "\(status) \(code): \(detail)"
        }
    }
}
