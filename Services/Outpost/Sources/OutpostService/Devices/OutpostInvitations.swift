import Foundation
public import MailwakeCore
import MailwakeCrypto
public import MailwakeProtocol

/// Management invitations (PROTOCOL.md §10): a one-time token, valid five
/// minutes, offering some of `manage`, `content` and `push`; redeemed by the
/// App at `POST /v1/management/redeem`.
public struct OutpostInvitations: Sendable {
    /// An invitation on offer.
    public struct Offer: Sendable {
        public let link: ManagementLink
        /// The push pairing offered with it (when `push` is offered).
        public let pairing: OutpostPairing.Offer?
        public var tokenHash: [UInt8] { SHA256.hash(link.token).bytes }
    }

    let store: OutpostStore
    let identity: OutpostIdentity
    let clock: @Sendable () -> Int64

    public init(store: OutpostStore, identity: OutpostIdentity, clock: @escaping @Sendable () -> Int64 = WallClock.seconds) {
        self.store = store
        self.identity = identity
        self.clock = clock
    }

    /// Creates and records an invitation.
    ///
    /// - Parameters:
    ///   - scopes: what it offers.
    ///   - mailboxIDs: mailboxes `content` is limited to (nil: all).
    ///   - origin: the outpost's HTTPS origin.
    ///   - pin: SHA-256 of its TLS key.
    ///   - pairing: registers the push pairing when `push` is offered.
    ///   - actor: who invited, for the administrator log.
    public func create(scopes: [ManagementScope], mailboxIDs: [Int64]?, origin: String, pin: [UInt8], pairing: OutpostPairing?,
                       actor: String = "cli") async throws -> Offer {
        guard !scopes.isEmpty else { throw OutpostError(.pairing, "an invitation offers at least one of manage, content, push") }
        var pairingOffer: OutpostPairing.Offer?
        if scopes.contains(.push) {
            guard let pairing else { throw OutpostError(.relayNotConfigured,
                                                        "offering push needs a relay (`mailwake-outpost relay set`)") }
            pairingOffer = try await pairing.offer()
        }
        let token = try SecureRandom.bytes(32)
        let expires = pairingOffer?.link.expiresAt ?? clock() + 300
        let push = pairingOffer.map { ManagementLink.PushOffer(relay: $0.link.relay, environment: $0.link.environment,
                                                               pairingID: $0.pairingID, credential: $0.link.credential) }
        let link = ManagementLink(outpostKey: identity.publicKey, url: origin, pin: pin, token: token, scopes: scopes, expiresAt: expires,
                                  push: push)
        try await store.createInvitation(Invitation(tokenHash: SHA256.hash(token).bytes, scopes: scopes, mailboxIDs: mailboxIDs,
                                                    pairingID: pairingOffer?.pairingID,
                                                    createdAt: clock(), expiresAt: expires), actor: actor)
        return Offer(link: link, pairing: pairingOffer)
    }

    /// Waits until the invitation is redeemed (polling the store) or expires.
    ///
    /// - Returns: the redeemed invitation, or nil when it expired unused.
    public func waitForRedemption(_ offer: Offer, poll: Duration = .milliseconds(250)) async throws -> Invitation? {
        while true {
            if let invitation = try await store.invitation(tokenHash: offer.tokenHash), invitation.redeemedAt != nil { return invitation }
            if clock() > offer.link.expiresAt { return nil }
            try await Task.sleep(for: poll)
        }
    }
}
