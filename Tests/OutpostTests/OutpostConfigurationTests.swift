import MailwakeCore
import OutpostService
import Testing

/// `OutpostConfiguration`: the typed settings `serve` runs with, read from `OutpostSettings`.
@Suite("Outpost: typed configuration")
struct OutpostConfigurationTests {
    @Test func theDocumentedDefaultsAreTheSettingsDefaults() throws {
        #expect(try OutpostConfiguration(OutpostSettings.spec.load(environment: [:])) == OutpostConfiguration())
    }

    @Test func settingsAreRead() throws {
        let c = try OutpostConfiguration(OutpostSettings.spec.load(environment: [
            "MAILWAKE_OUTPOST_LISTEN": "", "MAILWAKE_OUTPOST_ADMIN_LISTEN": "[::1]:9000", "MAILWAKE_OUTPOST_DELIVERY_MAX_AGE": "7200",
            "MAILWAKE_OUTPOST_POLL_INTERVAL": "90", "MAILWAKE_OUTPOST_PER_IP_CONNECTION_LIMIT": "0",
        ]))
        #expect(c.api.listen == nil)
        #expect(c.admin.listen == ListenAddress(host: "::1", port: 9000))
        #expect(c.delivery.maxAge == 7200)
        #expect(c.watch.pollInterval == .seconds(90))
        #expect(c.api.perIPConnectionLimit == 0)
    }

    @Test func aListenAddressThatIsNotHostAndPortNamesItsKey() throws {
        let loaded = try OutpostSettings.spec.load(environment: ["MAILWAKE_OUTPOST_LISTEN": "8443"])
        #expect { try OutpostConfiguration(loaded) } throws: { ($0 as? ConfigurationError)?.key == "MAILWAKE_OUTPOST_LISTEN" }
    }
}
