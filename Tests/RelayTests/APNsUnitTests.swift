import Foundation
import MailwakeCrypto
import MailwakeProtocol
@testable import RelayService
import Synchronization
import Testing

@Suite("Relay: APNs answers, provider tokens, the in-flight window")
struct APNsUnitTests {
    @Test(arguments: [
        (200, "", "sent"), (410, "Unregistered", "failed"), (410, "ExpiredToken", "failed"), (400, "BadDeviceToken", "failed"),
        (400, "DeviceTokenNotForTopic", "failed"), (400, "BadCollapseId", "failed"), (404, "BadPath", "failed"),
        (413, "PayloadTooLarge", "failed"),
        (403, "ExpiredProviderToken", "renew_token"), (403, "InvalidProviderToken", "renew_token"),
        (403, "MissingProviderToken", "renew_token"),
        (403, "BadCertificateEnvironment", "retry"), (429, "TooManyRequests", "retry"), (429, "TooManyProviderTokenUpdates", "retry"),
        (500, "InternalServerError", "retry"), (503, "ServiceUnavailable", "retry"), (503, "Shutdown", "retry"),
    ])
    func everyAPNsStatusAndReasonHasAnOutcome(status: Int, reason: String, outcome: String) {
        #expect(APNsResult.classify(status: status, reason: DeliveryReason(rawValue: reason), timestampMS: nil).outcomeLabel == outcome)
    }

    @Test func onlyGoneTokensAreReportedToAccounts() {
        for (status, reason, reported) in [(410, "Unregistered", true), (400, "BadDeviceToken", true),
                                           (400, "DeviceTokenNotForTopic", true),
                                           (400, "BadPriority", false), (413, "PayloadTooLarge", false)] {
            guard case .failed(_, _, let invalid, _) = APNsResult.classify(status: status, reason: DeliveryReason(rawValue: reason),
                                                                           timestampMS: 1) else {
                Issue.record("\(status) \(reason) is not a failure")
                continue
            }
            #expect(invalid == reported, "\(status) \(reason)")
        }
    }

    @Test func theErrorBodyGivesReasonAndTimestampAndNothingElse() {
        #expect(APNsClient.parseError(Array(#"{"reason":"Unregistered","timestamp":1764400000123}"#.utf8)) == ("Unregistered",
            1_764_400_000_123))
        #expect(APNsClient.parseError(Array("<html>".utf8)) == ("Unknown", nil))
        #expect(APNsClient.parseError(Array(#"{"reason":"<script>"}"#.utf8)).0 == "Unknown")
    }

    @Test func aReasonIsAnASCIIWordThatFitsAccountsDiagnostics() {
        let umlauts = String(repeating: "Ü", count: 64)  // letters, 128 bytes
        #expect(APNsClient.parseError(Array("{\"reason\":\"\(umlauts)\"}".utf8)).0 == "Unknown")
        #expect(APNsClient.parseError(Array(#"{"reason":""}"#.utf8)).0 == "Unknown")
        #expect(APNsClient.parseError(Array(#"{"reason":"Bad Token"}"#.utf8)).0 == "Unknown")
        #expect(APNsClient.parseError(Array(#"{"reason":"TooManyProviderTokenUpdates"}"#.utf8)).0 == "TooManyProviderTokenUpdates")
        #expect(DiagnosticsReporter.reportedReason("BadDeviceToken") == "BadDeviceToken")
        #expect(DiagnosticsReporter.reportedReason(DeliveryReason.noDeviceToken.rawValue) == "no_device_token")
        #expect(DiagnosticsReporter.reportedReason(DeliveryReason.transport("28").rawValue) == "transport_28")
        #expect(DiagnosticsReporter.reportedReason(String(repeating: "Ü", count: 32)) == String(repeating: "Ü", count: 32))  // 64 bytes
        #expect(DiagnosticsReporter.reportedReason(umlauts) == "Unknown")
        #expect(DiagnosticsReporter.reportedReason(String(repeating: "A", count: 65)) == "Unknown")
    }

    @Test func theProviderTokenIsAnES256JWTThatVerifiesUnderTheKey() throws {
        let key = try P256.Signing.PrivateKey()
        let token = try APNsProviderToken(keyPEM: key.pemRepresentation, keyID: "ABCDE12345", teamID: "TEAM123456", refreshAfter: 2400,
                                          clock: { 1_764_400_000 })
        let parts = try token.token().value.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        #expect(Base64URL.decode(parts[0]) == Array(#"{"alg":"ES256","kid":"ABCDE12345"}"#.utf8))
        #expect(Base64URL.decode(parts[1]) == Array(#"{"iss":"TEAM123456","iat":1764400000}"#.utf8))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Array((parts[0] + "." + parts[1]).utf8)))
        var tampered = Array((parts[0] + "." + parts[1]).utf8)
        tampered[tampered.count - 2] ^= 1
        #expect(!key.publicKey.isValidSignature(signature, for: tampered))
    }

    @Test func theProviderTokenIsReusedUntilItsRefreshAge() throws {
        let now = Mutex<Int64>(1_764_400_000)
        let made = Mutex(0)
        let token = try APNsProviderToken(keyPEM: try P256.Signing.PrivateKey().pemRepresentation, keyID: "ABCDE12345",
                                          teamID: "TEAM123456",
                                          refreshAfter: 2400, clock: { now.withLock { $0 } }, onRefresh: { made.withLock { $0 += 1 } })
        let first = try token.token()
        now.withLock { $0 += 2399 }
        #expect(try token.token() == first)
        now.withLock { $0 += 1 }
        let second = try token.token()
        #expect(second != first)
        #expect(second.issuedAt == 1_764_402_400)
        #expect(made.withLock { $0 } == 2)
    }

    @Test func concurrentRefusalsOfOneTokenRenewItOnce() throws {
        let token = try APNsProviderToken(keyPEM: try P256.Signing.PrivateKey().pemRepresentation, keyID: "ABCDE12345",
                                          teamID: "TEAM123456",
                                          refreshAfter: 2400, clock: { 1_764_400_000 })
        let refused = try token.token()
        let a = try token.renew(replacing: refused)
        let b = try token.renew(replacing: refused)
        #expect(a.renewed && !b.renewed)
        #expect(a.issued == b.issued)
    }

    @Test func aKeyFileOthersMayReadIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey-\(UUID().uuidString).p8").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pem = Data(try P256.Signing.PrivateKey().pemRepresentation.utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: pem, attributes: [.posixPermissions: 0o644]))
        #expect(throws: APNsKeyError.self) {
            try APNsProviderToken(keyFile: path, keyID: "ABCDE12345", teamID: "TEAM123456", refreshAfter: 2400, clock: { 0 })
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        _ = try APNsProviderToken(keyFile: path, keyID: "ABCDE12345", teamID: "TEAM123456", refreshAfter: 2400, clock: { 0 })
    }

    @Test func aKeyThatIsNotPKCS8P256IsRefused() {
        #expect(throws: (any Error).self) {
            try APNsProviderToken(keyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", keyID: "ABCDE12345",
                                  teamID: "TEAM123456",
                                  refreshAfter: 2400, clock: { 0 })
        }
    }

    @Test func theWindowHalvesUnderBackPressureAndGrowsBackWithSuccess() async {
        let window = InFlightWindow(initial: 64, minimum: 8, maximum: 128, growthStep: 2, backoffInterval: .zero)
        await window.acquire()
        await window.holdingSlot { $0.sent(congested: true) }
        #expect(window.limit == 32)
        for _ in 0..<10 {
            await window.acquire()
            await window.holdingSlot { $0.sent(congested: false) }
        }
        #expect(window.limit == 37)
        for _ in 0..<10 {
            await window.acquire()
            await window.holdingSlot { $0.sent(congested: true) }
        }
        #expect(window.limit == 8)
    }

    @Test func aHeldSlotIsGivenBackOnEveryPathAndEachRequestSentWithItAdaptsTheLimit() async {
        let window = InFlightWindow(initial: 64, minimum: 8, maximum: 128, growthStep: 1, backoffInterval: .zero)
        await window.acquire()
        await window.holdingSlot { _ in }   // no request: the slot comes back, the limit stays
        #expect(window.inFlight == 0 && window.limit == 64)
        await window.acquire()
        await window.holdingSlot { slot in
            slot.sent(congested: true)    // refused: the limit halves at once, while the slot is still held
            #expect(window.limit == 32 && window.inFlight == 1)
            slot.sent(congested: false)   // the second request with the same slot succeeded
        }
        #expect(window.inFlight == 0)
        #expect(window.limit == 33)
    }

    @Test func aFullWindowMakesTheNextSenderWait() async throws {
        let window = InFlightWindow(initial: 8, minimum: 8, maximum: 8)
        #expect(window.tryAcquire(upTo: 100) == 8)
        let admitted = Mutex(false)
        let waiter = Task {
            await window.acquire()
            admitted.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(admitted.withLock { $0 } == false)
        window.giveBack(1)
        await waiter.value
        #expect(admitted.withLock { $0 })
        #expect(window.inFlight == 8)
    }

    @Test func retriesBackOffExponentiallyWithJitterAndACap() {
        for attempts in 1...12 {
            let ceiling = min(Int64(1000) << min(attempts - 1, 9), 300_000)
            for _ in 0..<20 {
                let d = DeliveryWorker.backoffMS(attempts: attempts, soon: false)
                #expect(d >= ceiling / 2 && d <= ceiling)
            }
        }
        #expect(DeliveryWorker.backoffMS(attempts: 5, soon: true) <= 250)
    }
}
