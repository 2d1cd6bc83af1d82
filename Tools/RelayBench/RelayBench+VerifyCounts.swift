import MailwakeBenchKit
import MailwakeHTTPClient

extension RelayBench {
    /// The relay's envelope signature checks so far, with a key's precomputed table and with the key alone, and
    /// the tables it built (from its `/metrics`).
    struct VerifyCounts {
        let withTable: Double
        let withKey: Double
        let tablesBuilt: Double

        /// What a phase did: the checks with and without a table, and the tables built meanwhile (each a few
        /// hundred checks' worth of CPU, counted in the phase's CPU).
        func since(_ start: VerifyCounts) -> [String: Int] {
            ["with_table": Int(withTable - start.withTable), "with_key_alone": Int(withKey - start.withKey),
             "tables_built": Int(tablesBuilt - start.tablesBuilt)]
        }
    }

    /// The relay's metrics now (its admin listener's `/metrics`).
    func relayMetrics() async throws -> PrometheusText {
        PrometheusText(try await client.execute(.init(url: stack.relayAdminURL + "/metrics")).text)
    }

    /// Reads the relay's verify counters.
    func verifyCounts() async throws -> VerifyCounts {
        let text = try await relayMetrics()
        return VerifyCounts(withTable: text.sum("mailwake_relay_envelope_verifies_total", matching: ["with": "table"]),
                            withKey: text.sum("mailwake_relay_envelope_verifies_total", matching: ["with": "key"]),
                            tablesBuilt: text.sum("mailwake_relay_verify_tables_built_total"))
    }
}
