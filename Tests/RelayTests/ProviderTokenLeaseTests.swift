import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakePostgres
@testable import RelayService
import Synchronization
import TestSupport
import Testing

/// The shared provider token's table and lease, with two instances as two
/// `SharedProviderToken`s (or stores) on one migrated database.
@Suite("Relay: the shared APNs provider token's lease", .serialized)
struct ProviderTokenLeaseTests {
    static let teamID = "TEAM123456"
    static let keyID = "ABCDE12345"

    /// A fresh, migrated relay database.
    static func database() async throws -> PostgresClient {
        try await RelayTestDatabase.fresh(prefix: "relay_token")
    }

    static let signingKey = try! P256.Signing.PrivateKey()

    static func store(_ database: PostgresClient, _ instance: String,
                      key: P256.Signing.PrivateKey = signingKey) throws -> ProviderTokenStore {
        try ProviderTokenStore(database: database, teamID: teamID, keyID: keyID, instance: instance, leaseSeconds: 30, signingKey: key)
    }

    /// A count or a time that closures share.
    final class Shared: Sendable {
        let value: Atomic<Int64>
        init(_ initial: Int64) { value = Atomic(initial) }
        var current: Int64 { value.load(ordering: .relaxed) }
        func add(_ n: Int64) { value.add(n, ordering: .relaxed) }
    }

    /// One instance: its own in-memory token and the shared one, on `clock`, counting the tokens it signs.
    final class Instance: Sendable {
        let shared: SharedProviderToken
        let signed = Shared(0)
        let metrics = MetricsRegistry()

        init(_ database: PostgresClient, name: String, key: P256.Signing.PrivateKey, clock: @escaping @Sendable () -> Int64) throws {
            let signed = self.signed
            let local = try APNsProviderToken(keyPEM: key.pemRepresentation, keyID: ProviderTokenLeaseTests.keyID,
                                              teamID: ProviderTokenLeaseTests.teamID,
                                              refreshAfter: 1500, clock: clock, onRefresh: { signed.add(1) })
            shared = SharedProviderToken(local: local, store: try ProviderTokenLeaseTests.store(database, name, key: key),
                                         syncInterval: .seconds(30),
                                         logger: .disabled, metrics: metrics)
        }

        var signedCount: Int { Int(signed.current) }
    }

    @Test func ofTwoContendersForTheLeaseExactlyOneWinsAndOnlyItsTokenIsStored() async throws {
        let database = try await Self.database()
        let a = try Self.store(database, "relay-a"), b = try Self.store(database, "relay-b")
        async let wonA = a.acquireLease(generation: 0, now: 1_000)
        async let wonB = b.acquireLease(generation: 0, now: 1_000)
        let (ra, rb) = try await (wonA, wonB)
        #expect(ra != rb, "exactly one of the two takes the lease (a: \(ra), b: \(rb))")
        let (winner, loser) = ra ? (a, b) : (b, a)
        let token = APNsProviderToken.Issued(value: "winner.jwt.sig", issuedAt: 1_000)
        #expect(try await loser.publish(APNsProviderToken.Issued(value: "loser.jwt.sig", issuedAt: 1_000), replacing: 0) == false)
        #expect(try await winner.publish(token, replacing: 0))
        #expect(try await a.read() == ProviderTokenStore.Row(generation: 1, issued: token))
        // Once published, the lease is free but only a renewal of the stored generation may take it.
        #expect(try await loser.acquireLease(generation: 0, now: 1_001) == false)
        #expect(try await loser.acquireLease(generation: 1, now: 1_001))
    }

    @Test func whenTheLeaseHolderDiesItsLeaseExpiresAndAnotherInstanceRenews() async throws {
        let database = try await Self.database()
        let a = try Self.store(database, "relay-a"), b = try Self.store(database, "relay-b")
        #expect(try await a.acquireLease(generation: 0, now: 1_000))
        // relay-a dies here, holding the lease.
        #expect(try await b.acquireLease(generation: 0, now: 1_029) == false)
        #expect(try await b.acquireLease(generation: 0, now: 1_030))
        let token = APNsProviderToken.Issued(value: "b.jwt.sig", issuedAt: 1_030)
        #expect(try await b.publish(token, replacing: 0))
        // A holder that comes back late cannot overwrite what the other published.
        #expect(try await a.publish(APNsProviderToken.Issued(value: "a.jwt.sig", issuedAt: 1_000), replacing: 0) == false)
        #expect(try await a.read().issued == token)
    }

    @Test func theTableHoldsTheTokenSealedUnderTheKeyAndAnotherKeyCannotOpenIt() async throws {
        let database = try await Self.database()
        let a = try Self.store(database, "relay-a")
        let token = APNsProviderToken.Issued(value: "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJUIn0.c2ln", issuedAt: 1_764_400_000)
        #expect(try await a.acquireLease(generation: 0, now: 1_000))
        #expect(try await a.publish(token, replacing: 0))
        let stored = try await database.query("SELECT token FROM apns_provider_tokens").single().decode(String.self, at: 0)
        #expect(stored.hasPrefix("v1.") && !stored.contains(token.value) && !stored.contains("eyJ"))
        #expect(try await a.read().issued == token)
        // Same key id, other key material (or a tampered row): no token, so the instance renews.
        let other = try Self.store(database, "relay-b", key: try P256.Signing.PrivateKey())
        #expect(try await other.read() == ProviderTokenStore.Row(generation: 1, issued: nil))
        try await database.execute("UPDATE apns_provider_tokens SET issued_at = issued_at + 1")
        #expect(try await a.read().issued == nil)
    }

    @Test func twoInstancesShareOneTokenAndOnlyOneSignsEachRenewal() async throws {
        let database = try await Self.database()
        let key = try P256.Signing.PrivateKey()
        let now = Shared(1_764_400_000)
        let clock: @Sendable () -> Int64 = { now.current }
        let a = try Instance(database, name: "relay-a", key: key, clock: clock)
        let b = try Instance(database, name: "relay-b", key: key, clock: clock)
        async let ta = a.shared.token()
        async let tb = b.shared.token()
        let (first, firstB) = try await (ta, tb)
        #expect(first == firstB)
        #expect(a.signedCount + b.signedCount == 1)
        // Due: both read the table at once; one renews, the other adopts.
        now.add(1500)
        async let ra: Void = a.shared.refresh()
        async let rb: Void = b.shared.refresh()
        _ = await (ra, rb)
        await a.shared.refresh()
        await b.shared.refresh()
        let second = try await a.shared.token()
        #expect(second != first && second.issuedAt == first.issuedAt + 1500)
        #expect(try await b.shared.token() == second)
        #expect(a.signedCount + b.signedCount == 2)
    }

    @Test func aRefusalOfAYoungTokenKeepsItButInvalidProviderTokenRenewsItOnce() async throws {
        let database = try await Self.database()
        let key = try P256.Signing.PrivateKey()
        let now = Shared(1_764_400_000)
        let clock: @Sendable () -> Int64 = { now.current }
        let a = try Instance(database, name: "relay-a", key: key, clock: clock)
        let b = try Instance(database, name: "relay-b", key: key, clock: clock)
        let first = try await a.shared.token()
        #expect(try await b.shared.token() == first)
        now.add(600)
        // Ten minutes old: Apple would throttle a replacement, so an expiry refusal (a skewed clock) keeps it.
        #expect(await a.shared.refused(first, reason: "ExpiredProviderToken") == false)
        #expect(await b.shared.refused(first, reason: "TooManyProviderTokenUpdates") == false)
        #expect(try await a.shared.token() == first)
        #expect(a.signedCount + b.signedCount == 1)
        // InvalidProviderToken never heals: renewed at once, by one of the two, and the other adopts it.
        async let ia = a.shared.refused(first, reason: "InvalidProviderToken")
        async let ib = b.shared.refused(first, reason: "InvalidProviderToken")
        _ = await (ia, ib)
        await b.shared.refresh()
        let second = try await a.shared.token()
        #expect(second != first)
        #expect(try await b.shared.token() == second)
        #expect(a.signedCount + b.signedCount == 2)
        // Twenty minutes old: an expiry refusal renews.
        now.add(1200)
        #expect(await a.shared.refused(second, reason: "ExpiredProviderToken"))
        #expect(a.signedCount + b.signedCount == 3)
    }

    @Test func withoutPostgreSQLAnInstanceSignsItsOwnOnlyWhenItsCopyIsMissingOrExpiring() async throws {
        let port = try PortAllocator.freePort()
        let database = PostgresClient(configuration: try .init(url: """
                                                                    postgresql://nobody:nothing@127.0.0.1:\(port)/relay?connect_ti\
                                                                    meout=2
                                                                    """),
                                      logger: .disabled)
        let key = try P256.Signing.PrivateKey()
        let now = Shared(1_764_400_000)
        let a = try Instance(database, name: "relay-a", key: key, clock: { now.current })
        let first = try await a.shared.token()
        #expect(a.signedCount == 1)
        #expect(a.metrics.render().contains("mailwake_relay_apns_token_degraded_total 1"))
        // Due but far from expiring: kept while the table cannot be read.
        now.add(1600)
        await a.shared.refresh()
        #expect(try await a.shared.token() == first)
        #expect(a.signedCount == 1)
        // About to expire: a new one of its own.
        now.add(2000)
        let second = try await a.shared.token()
        #expect(second != first)
        #expect(a.metrics.render().contains("mailwake_relay_apns_token_degraded_total 2"))
    }
}
