import Foundation
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

/// New mail through Bark, Pushover and webhook channels to local receivers
/// that check the exact requests; retries, 410, and the private-address guard.
@Suite("Outpost: Bark, Pushover and webhook channels", .serialized, .awaitedCleanup)
struct ChannelDeliveryTests {
    @Test func aNewMessageReachesBarkPushoverAndAWebhookInTheirFormats() async throws {
        let h = try await MailWatchHarness.start()
        let receiver = try RecordingReceiver.start()
        var bark = ChannelRecord(name: "bark", kind: .bark, url: receiver.url, allowPrivate: true)
        bark.options.group = "mail"
        var barkSecrets = ChannelSecrets()
        barkSecrets.deviceKey = "BARKDEVICE"
        try await h.outpost.store.addChannel(bark, secrets: barkSecrets)
        var poSecrets = ChannelSecrets()
        poSecrets.appToken = "apptoken"
        poSecrets.userKey = "userkey"
        try await h.outpost.store.addChannel(ChannelRecord(name: "po", kind: .pushover, url: receiver.url, allowPrivate: true),
                                             secrets: poSecrets)
        var hookSecrets = ChannelSecrets()
        hookSecrets.webhookSecret = try ChannelRequest.newWebhookSecret()
        try await h.outpost.store.addChannel(ChannelRecord(name: "hook", kind: .webhook, url: receiver.url + "/hook", allowPrivate: true),
                                             secrets: hookSecrets)

        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Sign in", body: "Your code is 604417.")
        let received = try await receiver.waitFor(count: 3)
        _ = try await h.notifications(count: 1)   // the paired iPhone too

        let barkRequest = try #require(received.first { $0.path == "/push" })
        let barkBody = try ChannelRequestTests.json(barkRequest.body)
        #expect(barkBody["device_key"] as? String == "BARKDEVICE" && barkBody["title"] as? String == "Ada Lovelace")
        #expect(barkBody["subtitle"] as? String == "Sign in" && barkBody["copy"] as? String == "604417"
            && barkBody["group"] as? String == "mail")

        let poRequest = try #require(received.first { $0.path == "/1/messages.json" })
        let form = ChannelRequestTests.form(poRequest.body)
        #expect(form["token"] == "apptoken" && form["user"] == "userkey" && form["message"] == "Sign in\nCode: <b>604417</b>")

        let hook = try #require(received.first { $0.path == "/hook" })
        let id = try #require(hook.headers["webhook-id"]), timestamp = try #require(hook.headers["webhook-timestamp"])
        let signature = try #require(hook.headers["webhook-signature"])
        #expect(try await ChannelRequestTests.pythonVerifies(secret: hookSecrets.webhookSecret!, id: id, timestamp: timestamp,
                                                             body: hook.body,
                                                             signature: signature))
        #expect(abs((Int64(timestamp) ?? 0) - Int64(Date().timeIntervalSince1970)) < 60)
    }

    @Test func aServerErrorIsRetriedAndTheMessageArrivesOnce() async throws {
        let h = try await MailWatchHarness.start()
        let receiver = try RecordingReceiver.start()
        receiver.answer([503])
        try await Self.addWebhook(h, receiver)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "retry me")
        let received = try await receiver.waitFor(count: 2, timeout: 30)
        #expect(received[0].headers["webhook-id"] == received[1].headers["webhook-id"], "a retry carries the same webhook-id")
        try await Task.sleep(for: .seconds(1))
        #expect(receiver.received.count == 2)
    }

    @Test func aWebhookAnswering410IsDisabled() async throws {
        let h = try await MailWatchHarness.start()
        let receiver = try RecordingReceiver.start()
        receiver.answer([410])
        try await Self.addWebhook(h, receiver)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "gone")
        _ = try await receiver.waitFor(count: 1)
        let deadline = ContinuousClock.now + .seconds(10)
        while try await h.outpost.store.channel(name: "hook")?.enabled == true {
            guard ContinuousClock.now < deadline else { Issue.record("not disabled"); return }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try await h.outpost.store.channel(name: "hook")?.disabledReason?.contains("410") == true)
        try await h.append(subject: "after")
        _ = try await h.notifications(count: 2)
        try await Task.sleep(for: .milliseconds(500))
        #expect(receiver.received.count == 1, "a disabled channel gets nothing more")
    }

    @Test func aChannelToALoopbackAddressIsRefusedUnlessAllowed() async throws {
        let h = try await MailWatchHarness.start()
        let receiver = try RecordingReceiver.start()
        try await Self.addWebhook(h, receiver, allowPrivate: false)
        h.startWatching()
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "ssrf")
        let historyID = try await waitForHistory(h)
        let deadline = ContinuousClock.now + .seconds(10)
        var records = try await h.outpost.store.channelDeliveries(historyID: historyID)
        while records.first?.status == .pending, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            records = try await h.outpost.store.channelDeliveries(historyID: historyID)
        }
        #expect(records.first?.status == .failed)
        #expect(records.first?.lastError?.contains("not a public address") == true)
        #expect(receiver.received.isEmpty)
    }

    /// A webhook channel "hook" to `receiver`.
    static func addWebhook(_ h: MailWatchHarness, _ receiver: RecordingReceiver, allowPrivate: Bool = true) async throws {
        var secrets = ChannelSecrets()
        secrets.webhookSecret = try ChannelRequest.newWebhookSecret()
        try await h.outpost.store.addChannel(ChannelRecord(name: "hook", kind: .webhook, url: receiver.url + "/hook",
                                                           allowPrivate: allowPrivate),
                                             secrets: secrets)
    }

    private func waitForHistory(_ h: MailWatchHarness) async throws -> Int64 {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            if let id = try await h.outpost.store.database.queryValue("SELECT id FROM history ORDER BY id DESC LIMIT 1",
                                                                      as: Int64.self) { return id }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("nothing recorded") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
