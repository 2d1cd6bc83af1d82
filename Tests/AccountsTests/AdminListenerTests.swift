import AccountsService
import Foundation
import MailwakeCore
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakePostgres
import TestSupport
import Testing

/// The admin listener's transport: HTTPS with TLS_CERT/TLS_KEY off loopback, refused without them.
@Suite("Accounts: admin listener TLS")
struct AdminListenerTests {
    static func environment(admin: String, certificates: TestCertificates?) -> [String: String] {
        var env = [
            "MAILWAKE_ACCOUNTS_PUBLIC_ORIGIN": "https://accounts.example.net",
            "MAILWAKE_ACCOUNTS_DATABASE_URL": "postgres://accounts@127.0.0.1:1/accounts",
            "MAILWAKE_ACCOUNTS_LISTEN": "127.0.0.1:0",
            "MAILWAKE_ACCOUNTS_ADMIN_LISTEN": admin,
        ]
        if let certificates {
            env["MAILWAKE_ACCOUNTS_TLS_CERT"] = certificates.serverCertificate.path
            env["MAILWAKE_ACCOUNTS_TLS_KEY"] = certificates.serverKey.path
        } else {
            env["MAILWAKE_ACCOUNTS_ALLOW_PLAIN_HTTP"] = "true"
        }
        return env
    }

    @Test func aNonLoopbackAdminAddressWithoutTLSFilesIsRefusedNamingTheKey() throws {
        let loaded = try AccountsSettings.spec.load(environment: Self.environment(admin: "0.0.0.0:9443", certificates: nil))
        do {
            _ = try AccountsConfiguration(loaded)
            Issue.record("a non-loopback admin address without TLS was accepted")
        } catch {
            #expect(error.key == "MAILWAKE_ACCOUNTS_ADMIN_LISTEN")
            #expect(error.description == #"configuration: MAILWAKE_ACCOUNTS_ADMIN_LISTEN="0.0.0.0:9443" (environment): is not a "# +
                                         #"loopback address, so the admin listener serves HTTPS, but MAILWAKE_ACCOUNTS_TLS_CERT and "# +
                                         #"MAILWAKE_ACCOUNTS_TLS_KEY are not set (set them, or listen on 127.0.0.1 or [::1] for "# +
                                         #"plain HTTP)"#)
        }
        // Loopback stays plain HTTP without TLS files.
        _ = try AccountsConfiguration(try AccountsSettings.spec.load(environment: Self.environment(admin: "127.0.0.1:9443",
            certificates: nil)))
        _ = try AccountsConfiguration(try AccountsSettings.spec.load(environment: Self.environment(admin: "[::1]:9443",
            certificates: nil)))
    }

    @Test func aNonLoopbackAdminAddressServesHTTPSWithTheServiceCertificate() async throws {
        let certificates = try await TestCertificates.generate()
        defer { certificates.remove() }
        let configuration = try AccountsConfiguration(try AccountsSettings.spec.load(environment: Self.environment(admin: "0.0.0.0:0",
            certificates: certificates)))
        let database = PostgresClient(configuration: try .init(url: configuration.databaseURL), logger: .disabled)
        let app = AccountsApp(configuration: configuration, database: database, logger: .disabled, metrics: MetricsRegistry(),
                              clock: { 0 })
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
