import Foundation
import MailwakeCore
public import MailwakeCrypto
public import MailwakeHTTPClient
public import MailwakeHTTPTypes
public import MailwakePostgres
public import MailwakeProtocol

/// One outpost–device pairing made through the relay, and envelopes for it.
public struct BenchPairing: Sendable {
    public let outpost: P256.Signing.PrivateKey, deviceAgreement: P256.KeyAgreement.PublicKey, pairingID: String
    /// The simulated device's signing key, for its receipts (PROTOCOL §13).
    public let deviceSigning: P256.Signing.PrivateKey
    public var deviceID: String { KeyIdentity.id(of: deviceSigning.publicKey) }

    /// Registers a device at accounts (directly in its database) and pairs it with `outpost` through the relay (PROTOCOL §9).
    public static func make(outpost: P256.Signing.PrivateKey, accountsPool: PostgresClient, relayURL: String,
                            client: HTTPClient) async throws -> BenchPairing {
        let signing = try P256.Signing.PrivateKey(), agreement = try P256.KeyAgreement.PrivateKey()
        let now = WallClock.seconds()
        let token = try SecureRandom.bytes(32).map { String(format: "%02x", $0) }.joined()
        try await accountsPool.execute("""
            INSERT INTO devices (device_id, signing_key, agreement_key, apns_token, apns_environment, apns_token_updated_at, bundle_id,
                app_version, created_at, updated_at)
            VALUES (\(KeyIdentity.id(of: signing.publicKey)), \(signing.publicKey.x963Representation),
                \(agreement.publicKey.x963Representation), \(token),
                    'production', \(now), \(BenchStack.bundleID), '1.0', \(now), \(now))
            """)
        let credential = try SecureRandom.bytes(32)
        let pairingID = try PairingID.generate()
        let registration = PairingRegistration(pairingID: pairingID, outpostKey: outpost.publicKey.x963Representation,
                                               relayTokenHash: try PairingSecrets(credential: credential).relayTokenHash,
                                               expiresAt: now + 300)
        try await signed(.post, "/v1/pairings", body: registration.jsonBytes, key: outpost, relayURL: relayURL, client: client,
                         expect: 201)
        let link = PairingLink(outpostKey: outpost.publicKey.x963Representation, relay: BenchStack.origin, environment: .production,
                               pairingID: pairingID, credential: credential, expiresAt: now + 300)
        let consent = try ConsentSubmission.create(for: link, signingKey: signing, agreementKey: agreement.publicKey)
        let r = try await client.execute(.init(method: .post, url: relayURL + "/v1/pairings/\(pairingID)/consent",
                                               headers: ["Content-Type": "application/json"], body: consent.jsonBytes))
        guard r.status == .accepted else { throw BenchError("consent answered \(r.status.code): \(r.text)") }
        try await signed(.post, "/v1/pairings/\(pairingID)/confirm", body: [], key: outpost, relayURL: relayURL, client: client,
                         expect: 200)
        return BenchPairing(outpost: outpost, deviceAgreement: agreement.publicKey, pairingID: pairingID, deviceSigning: signing)
    }

    /// `devicesPerOutpost` pairings for each of `outposts`, made by `concurrency`
    /// tasks at once; in outpost order (an outpost's devices next to each other).
    /// `progress` hears of every 1,000th pairing made.
    public static func makeMany(outposts: [P256.Signing.PrivateKey], devicesPerOutpost: Int, stack: BenchStack, concurrency: Int,
                                progress: @escaping @Sendable (Int) -> Void = { _ in }) async throws -> [BenchPairing] {
        let total = outposts.count * devicesPerOutpost
        let next = Locked(0)
        let made = Locked([BenchPairing?](repeating: nil, count: total))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, min(concurrency, total)) {
                group.addTask {
                    while true {
                        let i = next.withLock { n -> Int in defer { n += 1 }; return n }
                        guard i < total else { return }
                        let pairing = try await make(outpost: outposts[i / devicesPerOutpost], accountsPool: stack.accountsPool,
                                                     relayURL: stack.relayURL, client: stack.client)
                        let count = made.withLock { all -> Int in
                            all[i] = pairing
                            return i + 1
                        }
                        if count % 1000 == 0 { progress(count) }
                    }
                }
            }
            try await group.waitForAll()
        }
        return made.withLock { all in all.map { $0! } }
    }

    public static func signed(_ method: HTTPMethod, _ path: String, body: [UInt8], key: P256.Signing.PrivateKey, relayURL: String,
                              client: HTTPClient,
                       expect: Int) async throws {
        let r = try await SignedHTTPClient(http: client, origin: BenchStack.origin, key: key, baseURL: relayURL)
            .send(method, path, body: body.isEmpty ? nil : body)
        guard Int(r.status.code) == expect else { throw BenchError("\(method.rawValue) \(path) answered \(r.status.code): \(r.text)") }
    }

    /// A sealed, signed notification with a verification code.
    public func envelope() throws -> Envelope {
        let now = UInt64(WallClock.seconds())
        let content = NotificationContent(mailbox: "personal", folder: "INBOX",
                                          from: .init(name: "Example Bank", address: "no-reply@bank.example"),
                                          subject: "Your sign-in code", receivedAt: now, code: "482913")
        let context = EncryptionContext(aud: BenchStack.origin, pairingID: pairingID, eventID: try EventID.generate(), kind: .notification,
                                        iat: now)
        return try EnvelopeSealer(identity: outpost).seal(content.jsonBytes, to: deviceAgreement, context: context)
    }
}
