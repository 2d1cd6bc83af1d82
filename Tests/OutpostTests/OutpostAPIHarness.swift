import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeDeviceKit
import MailwakeHTTPClient
import MailwakeHTTPServer
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport

/// The mail-watch stack plus the outpost's HTTPS API on loopback with a
/// self-signed certificate, and devices that talk to it as the App does.
struct OutpostAPIHarness: Sendable {
    let watch: MailWatchHarness
    let origin: String
    let pin: [UInt8]
    let fetcher: MessageFetcher

    var store: OutpostStore { watch.outpost.store }
    var identity: OutpostIdentity { watch.outpost.identity }

    static func start() async throws -> OutpostAPIHarness {
        let watch = try await MailWatchHarness.start()
        let scratch = try ScratchDirectory()
        let created = try ServerCertificate.selfSigned(commonName: "outpost test", subjectAltNames: ["127.0.0.1"])
        let cert = try scratch.write("cert.pem", created.certificate.certificatePEM)
        let key = try scratch.write("key.pem", created.privateKeyPEM)
        let fetcher = MessageFetcher(store: watch.outpost.store)
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try PortAllocator.freePort()
            let origin = "https://127.0.0.1:\(port)"
            let api = OutpostAPI(store: watch.outpost.store, identity: watch.outpost.identity, fetcher: fetcher, origin: origin,
                                 reconfigured: watch.reconfigured)
            let tls = OutpostTLS(certificatePath: cert, keyPath: key, pin: try created.certificate.spkiSHA256(), selfSigned: true)
            var configuration = OutpostAPI.listenerConfiguration(listen: ListenAddress(host: "127.0.0.1", port: port), tls: tls)
            configuration.drainTimeoutSeconds = 1
            let server = HTTPServer(configuration: configuration, router: api.router(), logger: .disabled, metrics: MetricsRegistry())
            do { try server.start() } catch {
                lastError = error
                continue
            }
            let task = Task { try await server.run() }
            AwaitedCleanup.register {
                task.cancel()
                await server.shutdown()
                await fetcher.closeAll()
                scratch.remove()
            }
            return OutpostAPIHarness(watch: watch, origin: origin, pin: tls.pin, fetcher: fetcher)
        }
        throw lastError ?? TestHarnessError("no port for the outpost API")
    }

    /// A session of `device` with the outpost (pinned, signed).
    func session(_ device: SimulatedDevice) throws -> OutpostSession {
        let session = try OutpostSession(origin: origin, pin: pin, signing: device.signing)
        AwaitedCleanup.register { session.shutdown() }
        return session
    }

    /// An invitation offering `scopes` (no push: that goes through the relay).
    func invite(_ scopes: [ManagementScope], mailboxIDs: [Int64]? = nil) async throws -> ManagementLink {
        let offer = try await OutpostInvitations(store: store, identity: identity)
            .create(scopes: scopes, mailboxIDs: mailboxIDs, origin: origin, pin: pin, pairing: nil)
        return try ManagementLink.parse(offer.link.link)   // as scanned by the App
    }

    /// `device` redeems an invitation for `scopes` and gets a session.
    func grant(_ scopes: [ManagementScope], to device: SimulatedDevice, mailboxIDs: [Int64]? = nil) async throws -> OutpostSession {
        let session = try session(device)
        let redeemed = try await session.redeem(try await invite(scopes, mailboxIDs: mailboxIDs), agreement: device.agreement.publicKey)
        guard redeemed.status == .ok else { throw TestHarnessError("redeem answered \(redeemed.status.code): \(redeemed.text)") }
        return session
    }

    /// Watches the mailbox, appends `message` and returns the device's notification for it.
    func deliver(_ message: [UInt8], count: Int = 1) async throws -> NotificationContent {
        if !watch.isWatching {
            watch.startWatching(liveActivityLifetime: 0)
            _ = try await watch.waitForWatchState(.idle)
        }
        _ = try await watch.append(message)
        return try await watch.notifications(count: count).last!
    }
}
