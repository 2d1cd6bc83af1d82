import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import RelayService
import TestSupport
import Testing

/// The admin listener's transport: HTTPS with TLS_CERT/TLS_KEY off loopback, refused without them.
@Suite("Relay: admin listener TLS")
struct AdminListenerTests {
    @Test func aNonLoopbackAdminAddressWithoutTLSFilesIsRefusedNamingTheKey() throws {
        do {
            _ = try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_ADMIN_LISTEN": "0.0.0.0:9444"])
            Issue.record("a non-loopback admin address without TLS was accepted")
        } catch let error as ConfigurationError {
            #expect(error.key == "MAILWAKE_RELAY_ADMIN_LISTEN")
            #expect(error.description == #"configuration: MAILWAKE_RELAY_ADMIN_LISTEN="0.0.0.0:9444" (environment): is not a loopback "# +
                                         #"address, so the admin listener serves HTTPS, but MAILWAKE_RELAY_TLS_CERT and "# +
                                         #"MAILWAKE_RELAY_TLS_KEY are not set (set them, or listen on 127.0.0.1 or [::1] for plain HTTP)"#)
        }
        #expect(try CacheAndConfigurationTests.load(["MAILWAKE_RELAY_ADMIN_LISTEN": "127.0.0.2:9444"]).adminListen.host == "127.0.0.2")
    }

    @Test func aNonLoopbackAdminAddressServesHTTPSWithTheServiceCertificate() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        // The server key doubles as a P-256 APNs key: the relay only signs provider tokens with it here.
        chmod(certificates.serverKey.path, 0o600)
        let configuration = try CacheAndConfigurationTests.load([
            "MAILWAKE_RELAY_ALLOW_PLAIN_HTTP": nil, "MAILWAKE_RELAY_LISTEN": "127.0.0.1:0", "MAILWAKE_RELAY_ADMIN_LISTEN": "0.0.0.0:0",
            "MAILWAKE_RELAY_TLS_CERT": certificates.serverCertificate.path, "MAILWAKE_RELAY_TLS_KEY": certificates.serverKey.path,
            "MAILWAKE_RELAY_APNS_KEY_FILE": certificates.serverKey.path,
        ])
        let metrics = MetricsRegistry()
        let database = PostgresClient(configuration: try configuration.postgresConfiguration(), logger: .disabled)
        let app = try RelayApp(configuration: configuration, database: database, logger: .disabled, metrics: metrics)
        defer { app.shutdownClients() }
        let admin = app.servers()[1]
        let port = try admin.start()
        let task = Task { try await admin.run() }
        defer { task.cancel() }

        let probe = try await AdminListenerProbe.probe(port: Int(port), caFile: certificates.caCertificate.path)
        #expect(probe.healthzStatus == 200)
        #expect(probe.healthzBody == #"{"status":"ok"}"#)
        #expect(probe.metricsStatus == 200)
        #expect(probe.plainHTTPStatus != 200, "the same port does not speak plain HTTP")
        task.cancel()
        _ = try? await task.value
        await database.close()
    }
}
