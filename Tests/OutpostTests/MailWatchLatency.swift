import Foundation
import TestSupport

/// APPEND → APNs latency of the watcher suite, per case and server: printed
/// as `MAILWATCH-LATENCY` lines (the closing note's table is made from them).
enum MailWatchLatency {
    /// Wall-clock milliseconds (the APNs simulator stamps deliveries the same way).
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Prints how long after `since` the notification with `subject` reached the APNs simulator.
    static func record(_ name: String, _ server: IMAPServerKind, _ h: MailWatchHarness, subject: String, since: Int64) async throws {
        let deliveries = try await h.stack.simulator.deliveries().filter { $0.pushType == "alert" }
        var subjects: [String] = []
        for delivery in deliveries {
            let content = try h.device.open(payload: delivery.payload, outpostKey: h.outpost.identity.signingKey.publicKey,
                                            pairingID: h.paired.pairingID)
            subjects.append(content.subject)
            guard content.subject == subject else { continue }
            print("MAILWATCH-LATENCY case=\"\(name)\" server=\(server) ms=\(delivery.receivedAtMS - since)")
            return
        }
        throw TestHarnessError("no notification with the subject of case \(name) among \(subjects)")
    }
}
