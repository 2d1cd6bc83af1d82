import Foundation
import MailwakeCore
import OutpostService
import TestSupport
import Testing

/// `MAILWAKE_OUTPOST_PER_IP_CONNECTION_LIMIT`: a setting of the HTTPS API, default unchanged (32).
@Suite("Outpost: per-IP connection limit", .awaitedCleanup)
struct ConnectionLimitTests {
    @Test func theHTTPSAPITakesItsPerIPLimitFromTheSetting() async throws {
        let fixture = try await OutpostFixture.start(relayURL: "https://127.0.0.1:1")
        for (value, expected) in [(nil, 32), ("5", 5), ("0", 0)] as [(String?, Int)] {
            var env = ["MAILWAKE_OUTPOST_LISTEN": "127.0.0.1:0", "MAILWAKE_OUTPOST_ADMIN_LISTEN": "",
                       "MAILWAKE_OUTPOST_PUBLIC_URL": "https://127.0.0.1:8443"]
            env["MAILWAKE_OUTPOST_PER_IP_CONNECTION_LIMIT"] = value
            let configuration = try OutpostConfiguration(OutpostSettings.spec.load(environment: env))
            let daemon = try OutpostApp(configuration: configuration, directory: fixture.directory, store: fixture.store,
                                        identity: fixture.identity, client: fixture.client).daemon()
            #expect(daemon.api?.configuration.perIPConnectionLimit == expected)
            #expect(daemon.admin == nil)
            await daemon.shutdown()
        }
    }
}
