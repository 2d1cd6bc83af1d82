import MailwakeCore
import MailwakeCrypto
@testable import RelayService
import TestSupport
import Testing

@Suite("Relay: verify tables for busy outpost keys")
struct OutpostKeyTablesTests {
    /// One outpost key and signatures under it.
    struct Outpost {
        let key = try! P256.Signing.PrivateKey()
        let message: [UInt8] = Array("mailwake/envelope/v1".utf8)
        var good: P256.Signing.ECDSASignature { try! key.signature(for: message) }
        var forged: P256.Signing.ECDSASignature {
            try! P256.Signing.ECDSASignature(rawRepresentation: good.rawRepresentation.flippingBit(100))
        }
    }

    let clock = MovableClock()
    let registry = MetricsRegistry()

    /// Tables with the builder run inline, so a table is there as soon as the check that earned it returns.
    func tables(capacity: Int = 4, threshold: Int = 3) -> OutpostKeyTables {
        OutpostKeyTables(configuration: .init(capacity: capacity, threshold: threshold, windowMS: 60_000), metrics: RelayMetrics(registry),
                         clockMS: clock.closure, startBuilder: { $0() })
    }

    /// Checks `signature` from `outpost` as intake does, and stores the envelope as new when it verified; whether it did.
    @discardableResult
    func check(_ tables: OutpostKeyTables, _ outpost: Outpost, _ signature: P256.Signing.ECDSASignature) -> Bool {
        let valid = tables.verifier(for: outpost.key.publicKey).isValidSignature(signature, for: outpost.message)
        if valid { tables.stored(outpost.key.publicKey) }
        return valid
    }

    @Test func aKeyEarnsItsTableWithThresholdNewEnvelopes() {
        let tables = tables(), outpost = Outpost()
        #expect(check(tables, outpost, outpost.good) && check(tables, outpost, outpost.good))
        #expect(!tables.hasTable(outpost.key.publicKey))
        #expect(check(tables, outpost, outpost.good))
        #expect(tables.hasTable(outpost.key.publicKey))
        #expect(tables.verifier(for: outpost.key.publicKey).table != nil)
        #expect(registry.shows("mailwake_relay_verify_tables_built_total 1"))
    }

    @Test func withItsTableAKeyAcceptsAndRefusesWhatItDidBefore() {
        let tables = tables(threshold: 1), outpost = Outpost()
        #expect(check(tables, outpost, outpost.good))
        #expect(tables.hasTable(outpost.key.publicKey))
        #expect(check(tables, outpost, outpost.good))
        #expect(!check(tables, outpost, outpost.forged))
        #expect(!check(tables, outpost, Outpost().good), "another key's signature")
        #expect(registry.shows(#"mailwake_relay_envelope_verifies_total{with="table"} 3"#))
    }

    @Test func forgedSignaturesEarnNoTable() {
        let tables = tables(), outpost = Outpost()
        for _ in 0..<10 { #expect(!check(tables, outpost, outpost.forged)) }
        #expect(!tables.hasTable(outpost.key.publicKey))
        #expect(registry.shows(#"mailwake_relay_envelope_verifies_total{with="key"} 10"#))
    }

    @Test func countsStartAgainInEachWindow() {
        let tables = tables(), outpost = Outpost()
        check(tables, outpost, outpost.good)
        check(tables, outpost, outpost.good)
        clock.advance(by: .seconds(61))
        check(tables, outpost, outpost.good)
        check(tables, outpost, outpost.good)
        #expect(!tables.hasTable(outpost.key.publicKey))
        check(tables, outpost, outpost.good)
        #expect(tables.hasTable(outpost.key.publicKey))
    }

    @Test func checksWithoutANewEnvelopeNeitherEarnNorKeepATable() {
        let tables = tables(capacity: 1, threshold: 2), first = Outpost(), second = Outpost()
        for _ in 0..<2 { check(tables, first, first.good) }
        #expect(tables.hasTable(first.key.publicKey))
        // Replays: they verify, and the durable write answers them as duplicates, so nothing is stored.
        for _ in 0..<5 {
            #expect(tables.verifier(for: second.key.publicKey).isValidSignature(second.good, for: second.message))
            clock.advance(by: .seconds(20))
            #expect(tables.verifier(for: first.key.publicKey).isValidSignature(first.good, for: first.message))
        }
        #expect(!tables.hasTable(second.key.publicKey), "checks alone earn nothing")
        for _ in 0..<2 { check(tables, second, second.good) }
        #expect(tables.hasTable(second.key.publicKey), "checks alone kept the first key's table idle, so it was given up")
        #expect(!tables.hasTable(first.key.publicKey))
    }

    @Test func aFullSetGivesUpOnlyATableUnusedForAWholeWindow() {
        let tables = tables(capacity: 1, threshold: 2), first = Outpost(), second = Outpost()
        for _ in 0..<2 { check(tables, first, first.good) }
        #expect(tables.hasTable(first.key.publicKey))
        for _ in 0..<4 { check(tables, second, second.good) }
        #expect(!tables.hasTable(second.key.publicKey), "the first key's table was used within the window")
        clock.advance(by: .seconds(61))
        for _ in 0..<2 { check(tables, second, second.good) }
        #expect(tables.hasTable(second.key.publicKey))
        #expect(!tables.hasTable(first.key.publicKey))
        #expect(tables.count == 1)
        #expect(registry.shows("mailwake_relay_verify_tables_given_up_total 1"))
    }

    @Test func capacityZeroBuildsNoTable() {
        let tables = tables(capacity: 0, threshold: 1), outpost = Outpost()
        for _ in 0..<3 { #expect(check(tables, outpost, outpost.good)) }
        #expect(tables.count == 0)
        #expect(registry.shows(#"mailwake_relay_envelope_verifies_total{with="key"} 3"#))
    }

    @Test func withTheDefaultBuilderATableAppearsWithoutAnotherCheck() async throws {
        let tables = OutpostKeyTables(configuration: .init(capacity: 4, threshold: 1), metrics: RelayMetrics(registry),
                                      clockMS: clock.closure)
        let outpost = Outpost()
        #expect(check(tables, outpost, outpost.good))
        let deadline = ContinuousClock.now + .seconds(60)
        while !tables.hasTable(outpost.key.publicKey), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(tables.hasTable(outpost.key.publicKey))
    }
}
