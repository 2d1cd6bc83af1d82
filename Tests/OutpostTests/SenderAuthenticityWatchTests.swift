import Foundation
import MailwakeProtocol
@testable import OutpostService
import TestSupport
import Testing

/// `sender_auth` end to end: Dovecot → the outpost → relay → APNs simulator → the device opens it.
@Suite("Outpost: sender authenticity in notifications", .awaitedCleanup)
struct SenderAuthenticityWatchTests {
    static func message(subject: String, authenticationResults: [String]) -> [UInt8] {
        let headers = authenticationResults.map { "Authentication-Results: \($0)\r\n" }.joined()
        return Array(("\(headers)From: Acme Bank <alerts@bank.example>\r\nTo: alice@example.org\r\nSubject: \(subject)\r\n" +
                      "Date: Tue, 01 Dec 2026 10:00:00 +0000\r\nMessage-ID: <\(UUID().uuidString)@bank.example>\r\n\r\n" +
                      "Your verification code is 503112.\r\n").utf8)
    }

    @Test func theTrustedServersVerdictReachesTheDeviceAndOthersAreIgnored() async throws {
        let h = try await MailWatchHarness.start(trustedAuthservIDs: ["mx.test.example"])
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        _ = try await h.append(Self.message(subject: "passed",
                                            authenticationResults: ["mx.test.example; dkim=pass header.d=bank.example; dmarc=pass " +
                                                                    "header.from=bank.example"]))
        _ = try await h.append(Self.message(subject: "failed", authenticationResults: [
            "relay.forwarder.example; dmarc=pass header.from=bank.example",
            "mx.test.example; dmarc=fail (p=reject) header.from=bank.example",
            "mx.test.example; dmarc=pass header.from=bank.example",
        ]))
        _ = try await h.append(Self.message(subject: "untrusted",
                                            authenticationResults: ["mail.attacker.example; dmarc=pass header.from=bank.example"]))
        let received = try await h.notifications(count: 3)
        let verdicts = Dictionary(uniqueKeysWithValues: received.map { ($0.subject, $0.senderAuth) })
        #expect(verdicts["passed"] == .some(.pass))
        #expect(verdicts["failed"] == .some(.fail),
                "the topmost trusted field decides; one above from another server and a forged one below do not")
        #expect(verdicts["untrusted"] == .some(nil), "a field from a server the mailbox does not trust is ignored")
        #expect(received.allSatisfy { $0.code == "503112" })
    }

    @Test func aMailboxTrustingNoServerLeavesTheVerdictOut() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        _ = try await h.append(Self.message(subject: "no trust",
                                            authenticationResults: ["mx.test.example; dmarc=pass header.from=bank.example"]))
        let received = try await h.notifications(count: 1)
        #expect(received[0].senderAuth == nil)
    }
}
