import Foundation
import MailwakeProtocol
@testable import OutpostService
import StackSupport
import TestSupport
import Testing

/// Verification codes as Live Activities: `start` to the push-to-start token,
/// `end` to the activity's token after the lifetime or when the mail is read.
@Suite("Outpost: verification codes as Live Activities", .serialized, .awaitedCleanup)
struct LiveActivityTests {
    /// Waits for Live Activity pushes with `event`.
    static func activityPushes(_ h: MailWatchHarness, event: String, count: Int = 1,
                               timeout: Double = 20) async throws -> [APNsSimulatorProcess.Delivery] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let found = try await h.stack.simulator.deliveries().filter { $0.pushType == "liveactivity" && Self.event(of: $0) == event }
            if found.count >= count { return found }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(found.count) of \(count) Live Activity " +
                                                                               "\(event) pushes") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func event(of delivery: APNsSimulatorProcess.Delivery) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(delivery.payload.utf8)) as? [String: Any] else { return nil }
        return (object["aps"] as? [String: Any])?["event"] as? String
    }

    /// The started activity's id, as the App reads it from the start push.
    static func activityID(_ delivery: APNsSimulatorProcess.Delivery) throws -> String {
        try #require(try SimulatedDevice.envelope(inPayload: delivery.payload).context.activity?.id)
    }

    @Test func aCodeStartsALiveActivityThatEndsWhenItsLifetimeIsOver() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching(liveActivityLifetime: 2)
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Sign in", body: "Your code is 274910.")
        let start = try #require(try await Self.activityPushes(h, event: "start").first)
        #expect(start.deviceToken == h.device.pushToStartToken)
        #expect(start.topic == RelayInstance.bundleID + ".push-type.liveactivity")
        #expect(start.priority == 10, "a start is immediate")
        let shown = try h.device.open(payload: start.payload, outpostKey: h.outpost.identity.signingKey.publicKey,
                                      pairingID: h.paired.pairingID)
        #expect(shown.code == "274910" && shown.subject == "Sign in")
        let activity = try SimulatedDevice.envelope(inPayload: start.payload).context.activity
        #expect(activity?.event == .start && activity.map { $0.staleDate == $0.timestamp + 2 } == true)
        // The App registers the started activity's update token; the end goes there.
        let activityToken = String(repeating: "ab", count: 32)
        try await h.device.registerActivityToken(at: h.stack.accounts, client: h.stack.client, activityID: try Self.activityID(start),
                                                 token: activityToken)
        let end = try #require(try await Self.activityPushes(h, event: "end").first)
        #expect(end.deviceToken == activityToken)
        #expect(end.priority == 5, "an end goes within Apple's budget")
        let ended = try SimulatedDevice.envelope(inPayload: end.payload).context.activity
        #expect(ended?.id == activity?.id && ended?.event == .end && ended?.dismissalDate == ended?.timestamp)
        #expect(try h.device.open(payload: end.payload, outpostKey: h.outpost.identity.signingKey.publicKey,
                                  pairingID: h.paired.pairingID).code == "274910")
        #expect(try await h.outpost.store.openActivities().isEmpty)
    }

    @Test func aStartRefusedForThePushToStartBudgetReachesTheDeviceAsATimeSensitiveAlert() async throws {
        let h = try await MailWatchHarness.start()
        try await h.stack.simulator.setBehaviour(token: h.device.pushToStartToken, status: 429, reason: "TooManyRequests")
        h.startWatching(liveActivityLifetime: 600)
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Sign in", body: "Your code is 662014.")
        let deadline = ContinuousClock.now + .seconds(20)
        var alert: APNsSimulatorProcess.Delivery?
        while alert == nil, ContinuousClock.now < deadline {
            alert = try await h.stack.simulator.deliveries().first { d in
                d.status == 200 && d.deviceToken == h.device.apnsToken
                    && (try? SimulatedDevice.envelope(inPayload: d.payload).context.kind) == .liveActivity
            }
            if alert == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let sent = try #require(alert, "no time-sensitive alert after the refused start")
        #expect(sent.pushType == "alert" && sent.topic == RelayInstance.bundleID && sent.priority == 10)
        let aps =
            try #require((try JSONSerialization.jsonObject(with: Data(sent.payload.utf8)) as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["interruption-level"] as? String == "time-sensitive")
        #expect(try h.device.open(payload: sent.payload, outpostKey: h.outpost.identity.signingKey.publicKey,
                                  pairingID: h.paired.pairingID).code == "662014")
        let refused = try await h.stack.simulator.deliveries().filter { $0.deviceToken == h.device.pushToStartToken }
        #expect(refused.count == 1 && refused.first?.status == 429, "the start is not retried against a spent budget")
    }

    @Test func readingTheMessageEndsItsLiveActivityEarly() async throws {
        let h = try await MailWatchHarness.start()
        h.startWatching(liveActivityLifetime: 600)
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Code", body: "Verification code: 918273")
        let start = try #require(try await Self.activityPushes(h, event: "start").first)
        try await h.device.registerActivityToken(at: h.stack.accounts, client: h.stack.client, activityID: try Self.activityID(start),
                                                 token: String(repeating: "cd", count: 32))
        try await h.dovecot.doveadm(["flags", "add", "-u", MailWatchHarness.user, "\\Seen", "mailbox", "INBOX", "uid", "1"])
        let end = try #require(try await Self.activityPushes(h, event: "end").first)
        #expect(end.deviceToken == String(repeating: "cd", count: 32))
    }

    @Test func noCodeOrLiveActivitiesOffMeansOnlyTheNotification() async throws {
        let h = try await MailWatchHarness.start()
        #expect(try await h.outpost.store.setLiveActivities(h.paired.pairingID, .off))
        h.startWatching(liveActivityLifetime: 600)
        _ = try await h.waitForWatchState(.idle)
        try await h.append(subject: "Your code", body: "Code: 551234")
        _ = try await h.notifications(count: 1)
        #expect(try await h.outpost.store.setLiveActivities(h.paired.pairingID, .on))
        try await h.append(subject: "Lunch?", body: "No code here.")
        _ = try await h.notifications(count: 2)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await h.stack.simulator.deliveries().filter { $0.pushType == "liveactivity" }.isEmpty)
    }
}
