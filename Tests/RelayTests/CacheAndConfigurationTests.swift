import Foundation
import MailwakeCore
@testable import RelayService
import Synchronization
import Testing

@Suite("Relay: caches and configuration")
struct CacheAndConfigurationTests {
    @Test func concurrentMissesForOneKeyShareOneLoad() async throws {
        let cache = TTLCache<String, Int>(ttl: .seconds(3600))
        let loads = LoadCounter()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await cache.value(for: "device") {
                        loads.increment()
                        try await Task.sleep(for: .milliseconds(50))
                        return 7
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(values == Array(repeating: 7, count: 20))
        #expect(loads.count == 1)
    }

    @Test func aFailedLoadIsNotCachedAndARemovedKeyLoadsAgain() async throws {
        let cache = TTLCache<String, Int>(ttl: .seconds(3600))
        struct Boom: Error {}
        await #expect(throws: Boom.self) { try await cache.value(for: "k") { throw Boom() } }
        #expect(try await cache.value(for: "k") { 1 } == 1)
        #expect(try await cache.value(for: "k") { 2 } == 1)
        cache.remove("k")
        #expect(try await cache.value(for: "k") { 3 } == 3)
    }

    @Test func aZeroTTLNeverReuses() async throws {
        let cache = TTLCache<String, Int>(ttl: .zero)
        #expect(try await cache.value(for: "k") { 1 } == 1)
        #expect(try await cache.value(for: "k") { 2 } == 2)
    }

    @Test func eachValueIsKeptAsLongAsItsOwnTTL() async throws {
        let cache = TTLCache<String, Int>(ttl: { $0 > 0 ? .seconds(3600) : .zero })
        #expect(try await cache.value(for: "kept") { 1 } == 1)
        #expect(try await cache.value(for: "kept") { 2 } == 1)
        #expect(try await cache.value(for: "not-kept") { 0 } == 0)
        #expect(try await cache.value(for: "not-kept") { -1 } == -1)
        #expect(cache.cached("kept") == 1)
        #expect(cache.cached("not-kept") == nil)
    }

    @Test func aCachedLookUpCountsAHitAndNeverLoads() async throws {
        let cache = TTLCache<String, Int>(ttl: .seconds(3600))
        let registry = MetricsRegistry()
        let hits = registry.counter("hits_total", help: "hits")
        #expect(cache.cached("k", hit: hits) == nil)
        _ = try await cache.value(for: "k") { 5 }
        #expect(cache.cached("k", hit: hits) == 5)
        #expect(hits.current == 1)
    }

    @Test func aFullCacheDropsATenthOfItsLiveEntriesNotAll() async throws {
        // Entries no loaded machine outlives during the test: only the size rule may drop them.
        let cache = TTLCache<Int, Int>(maxEntries: 100) { _ in .seconds(3600) }
        for k in 0..<100 { _ = try await cache.value(for: k) { k } }
        _ = try await cache.value(for: 100) { 100 }   // the 101st: the cache was full
        let kept = (0...100).filter { cache.cached($0) != nil }.count
        #expect(kept >= 89 && kept <= 91)
        #expect(cache.cached(100) == 100)
    }

    static let required = [
        "MAILWAKE_RELAY_PUBLIC_ORIGIN": "https://push.example.net", "MAILWAKE_RELAY_DATABASE_URL": "postgres://relay@127.0.0.1/relay",
        "MAILWAKE_RELAY_ALLOW_PLAIN_HTTP": "true", "MAILWAKE_RELAY_ACCOUNTS_URL": "https://accounts.example.net",
        "MAILWAKE_RELAY_ACCOUNTS_TOKEN": "relay-service-token-for-tests", "MAILWAKE_RELAY_APNS_KEY_FILE": "/etc/hostname",
        "MAILWAKE_RELAY_APNS_KEY_ID": "ABCDE12345",
        "MAILWAKE_RELAY_APNS_TEAM_ID": "TEAM123456", "MAILWAKE_RELAY_APNS_BUNDLE_ID": "net.mailwake.app",
    ]

    static func load(_ overrides: [String: String?]) throws -> RelayConfiguration {
        var env = required
        for (k, v) in overrides { env[k] = v }
        return try RelayConfiguration(RelaySettings.spec.load(environment: env))
    }

    @Test func theDocumentedDefaultsApply() throws {
        let c = try Self.load([:])
        #expect(c.listen == ListenAddress(host: "127.0.0.1", port: 8444))
        #expect(c.maxEnvelopeAge == 86400)
        #expect(c.apns.productionURL == "https://api.push.apple.com")
        #expect(c.apns.sandboxURL == "https://api.sandbox.push.apple.com")
        #expect(c.apns.tokenRefresh == .seconds(2400))
        #expect(c.apns.engine == .nghttp2)
    }

    @Test func theRelaysSessionsHaveAStatementTimeoutUnlessTheDatabaseURLSetsItsOwn() throws {
        let url = "postgres://relay@127.0.0.1/relay"
        #expect(try Self.load([:]).postgresConfiguration().statementTimeout == .seconds(15))
        #expect(try Self.load(["MAILWAKE_RELAY_DATABASE_URL": url + "?statement_timeout=2500"]).postgresConfiguration().statementTimeout
                    == .milliseconds(2500))
        #expect(try Self.load(["MAILWAKE_RELAY_DATABASE_URL": url + "?statement_timeout=0"]).postgresConfiguration().statementTimeout
                    == .zero, "0 is none, not the default")
    }

    @Test(arguments: [
        ("MAILWAKE_RELAY_APNS_KEY_ID", "short", "MAILWAKE_RELAY_APNS_KEY_ID"),
        ("MAILWAKE_RELAY_APNS_TEAM_ID", "team-123456", "MAILWAKE_RELAY_APNS_TEAM_ID"),
        ("MAILWAKE_RELAY_APNS_BUNDLE_ID", "net/mailwake", "MAILWAKE_RELAY_APNS_BUNDLE_ID"),
        ("MAILWAKE_RELAY_ACCOUNTS_URL", "http://accounts.example.net", "MAILWAKE_RELAY_ACCOUNTS_URL"),
        ("MAILWAKE_RELAY_APNS_TOKEN_REFRESH", "600", "MAILWAKE_RELAY_APNS_TOKEN_REFRESH"),
        ("MAILWAKE_RELAY_ALLOW_PLAIN_HTTP", "false", "MAILWAKE_RELAY_TLS_CERT"),
        ("MAILWAKE_RELAY_DATABASE_URL", "mysql://x", "MAILWAKE_RELAY_DATABASE_URL"),
        ("MAILWAKE_RELAY_APNS_CLIENT", "curl", "MAILWAKE_RELAY_APNS_CLIENT"),
    ])
    func aBadSettingFailsNamingItsKey(key: String, value: String, named: String) {
        do {
            _ = try Self.load([key: value])
            Issue.record("\(key)=\(value) was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == named, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

/// Counts loads from concurrent tasks.
final class LoadCounter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
