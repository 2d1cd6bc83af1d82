import Foundation
import MailwakeCore
import MailwakeDeviceKit
import MailwakeHTTPClient
import MailwakeHTTPTypes
import MailwakeProtocol
import OutpostService
import TestSupport
import Testing

/// The outpost's admin listener, built as `serve` builds it (`OutpostApp.daemon()`):
/// its metrics after real events (a watched Dovecot folder, a delivery to the
/// APNs simulator, a body read, a refused API call), `/healthz` and `/readyz`.
@Suite("Outpost: admin listener and metrics", .awaitedCleanup)
struct AdminMetricsTests {
    /// The value of one series (`name{labels}`) in a Prometheus text answer.
    static func value(_ series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    /// Scrapes `/metrics` until `series` reaches `expected`.
    static func waitFor(_ series: String, _ expected: Double, admin: String, client: HTTPClient,
                        timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let text = try await client.execute(.init(method: .get, url: admin + "/metrics")).text
            if value(series, in: text) == expected { return text }
            guard ContinuousClock.now < deadline else {
                let outpostLines = text.split(separator: "\n").filter { $0.hasPrefix("mailwake_outpost_") && !$0.contains("_http_") }
                throw TestHarnessError("\(series) is \(String(describing: value(series, in: text))), not \(expected):\n" +
                                       outpostLines.joined(separator: "\n"))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func metricsCountWatchedFoldersDeliveriesBodyReadsAndRefusals() async throws {
        let watch = try await MailWatchHarness.start()
        let apiPort = try PortAllocator.freePort()
        let origin = "https://127.0.0.1:\(apiPort)"
        let configuration = try OutpostConfiguration(OutpostSettings.spec.load(environment: [
            "MAILWAKE_OUTPOST_LISTEN": "127.0.0.1:\(apiPort)", "MAILWAKE_OUTPOST_ADMIN_LISTEN": "127.0.0.1:0",
            "MAILWAKE_OUTPOST_PUBLIC_URL": origin, "MAILWAKE_OUTPOST_LIVE_ACTIVITY_LIFETIME": "0",
        ]))
        let logger = Logger(service: "outpost-test", level: .warning)
        let daemon = try OutpostApp(configuration: configuration, directory: watch.outpost.directory, store: watch.outpost.store,
                                    identity: watch.outpost.identity, client: watch.outpost.client, logger: logger).daemon()
        let api = try #require(daemon.api)
        let adminServer = try #require(daemon.admin)
        try api.start()
        try adminServer.start()
        let running = Task {
            await withTaskGroup(of: Void.self) { group in
                for service in daemon.services { group.addTask { try? await service.run() } }
            }
        }
        defer { running.cancel() }
        let admin = "http://127.0.0.1:\(adminServer.port)"
        var plain = HTTPClient.Configuration()
        plain.httpVersion = .http1_1
        let client = try HTTPClient(configuration: plain)
        defer { client.shutdown() }

        // Health, readiness, and every series present before anything happened.
        #expect(try await client.execute(.init(method: .get, url: admin + "/healthz")).status == 200)
        let ready = try await client.execute(.init(method: .get, url: admin + "/readyz"))
        #expect(ready.status == 200)
        #expect(ready.text == #"{"status":"ready","checks":{"api":"ok","store":"ok"}}"#)
        let initial = try await client.execute(.init(method: .get, url: admin + "/metrics")).text
        #expect(Self.value(#"mailwake_outpost_deliveries_total{outcome="sent"}"#, in: initial) == 0)
        #expect(Self.value(#"mailwake_outpost_channel_deliveries_total{kind="webhook",outcome="sent"}"#, in: initial) == 0)
        #expect(Self.value("mailwake_outpost_notifications_built_total", in: initial) == 0)

        // A watched Dovecot folder.
        _ = try await watch.waitForWatchState(.idle)
        let watching = try await Self.waitFor(#"mailwake_outpost_watched_folders{state="idle"}"#, 1, admin: admin, client: client)
        #expect(Self.value(#"mailwake_outpost_watched_folders{state="connecting"}"#, in: watching) == 0)
        #expect(Self.value(#"mailwake_outpost_imap_reconnects_total{reason="connection"}"#, in: watching) == 0)

        // A delivery: built, accepted by the relay, then sent to APNs.
        try await watch.append(subject: "Your invoice")
        let note = try #require(try await watch.notifications(count: 1).first)
        let delivered = try await Self.waitFor(#"mailwake_outpost_deliveries_total{outcome="sent"}"#, 1, admin: admin, client: client)
        #expect(Self.value("mailwake_outpost_notifications_built_total", in: delivered) == 1)
        #expect(Self.value(#"mailwake_outpost_deliveries_total{outcome="accepted"}"#, in: delivered) == 1)
        #expect(Self.value(#"mailwake_outpost_deliveries_total{outcome="failed"}"#, in: delivered) == 0)
        #expect(Self.value("mailwake_outpost_pending_deliveries", in: delivered) == 0)

        // A body read by a device holding the content permission.
        let tls = try OutpostTLS.resolve(directory: watch.outpost.directory, api: configuration.api, origin: origin)
        let offer = try await OutpostInvitations(store: watch.outpost.store, identity: watch.outpost.identity)
            .create(scopes: [.content], mailboxIDs: nil, origin: origin, pin: tls.pin, pairing: nil)
        let reader = try OutpostSession(origin: origin, pin: tls.pin, signing: watch.device.signing)
        defer { reader.shutdown() }
        #expect(try await reader.redeem(try ManagementLink.parse(offer.link.link),
                                        agreement: watch.device.agreement.publicKey).status == .ok)
        let body = try await reader.body(ref: try #require(note.ref))
        #expect(body.status == .ok)
        _ = try await Self.waitFor(#"mailwake_outpost_body_reads_total{kind="body"}"#, 1, admin: admin, client: client)

        // A refused API call: unsigned, so its problem code is the reason.
        var pinned = HTTPClient.Configuration()
        pinned.httpVersion = .http1_1
        pinned.pinnedPublicKeys = ["sha256//" + Data(tls.pin).base64EncodedString()]
        pinned.trustPinnedKeyAlone = true
        let stranger = try HTTPClient(configuration: pinned)
        defer { stranger.shutdown() }
        let refused = try await stranger.execute(.init(method: .get, url: origin + "/v1/messages/body?ref=x"))
        #expect(refused.status.code == 401)
        let reason = refused.problemCode ?? ""
        #expect(!reason.isEmpty)
        _ = try await Self.waitFor(#"mailwake_outpost_api_refusals_total{reason="\#(reason)"}"#, 1, admin: admin, client: client)

        running.cancel()
        await running.value
        await daemon.shutdown()
    }

    @Test func anAdminAddressOffLoopbackServesHTTPSWithTheAPICertificate() async throws {
        let fixture = try await OutpostFixture.start(relayURL: "https://127.0.0.1:1")
        let configuration = try OutpostConfiguration(OutpostSettings.spec.load(environment: [
            "MAILWAKE_OUTPOST_LISTEN": "", "MAILWAKE_OUTPOST_ADMIN_LISTEN": "0.0.0.0:0",
            "MAILWAKE_OUTPOST_PUBLIC_URL": "https://127.0.0.1:8443",
        ]))
        let daemon = try OutpostApp(configuration: configuration, directory: fixture.directory, store: fixture.store,
                                    identity: fixture.identity,
                                    client: fixture.client).daemon()
        #expect(daemon.api == nil)
        let admin = try #require(daemon.admin)
        let port = try admin.start()
        let task = Task { try await admin.run() }
        let tls = try OutpostTLS.resolve(directory: fixture.directory, api: configuration.api, origin: "https://127.0.0.1:8443")
        var pinned = HTTPClient.Configuration()
        pinned.httpVersion = .http1_1
        pinned.pinnedPublicKeys = ["sha256//" + Data(tls.pin).base64EncodedString()]
        pinned.trustPinnedKeyAlone = true
        let client = try HTTPClient(configuration: pinned)
        defer { client.shutdown() }
        let ready = try await client.execute(.init(method: .get, url: "https://127.0.0.1:\(port)/readyz"))
        #expect(ready.status == 200)
        #expect(ready.text == #"{"status":"ready","checks":{"store":"ok"}}"#)
        var plainConfiguration = HTTPClient.Configuration()
        plainConfiguration.httpVersion = .http1_1
        let plain = try HTTPClient(configuration: plainConfiguration)
        defer { plain.shutdown() }
        #expect((try? await plain.execute(.init(method: .get, url: "http://127.0.0.1:\(port)/healthz")))?.status != 200)
        task.cancel()
        _ = try? await task.value
        await daemon.shutdown()
    }
}
