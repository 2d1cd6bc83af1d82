import Foundation
import StackSupport
import TestSupport

/// Waits for relay-authored alerts (`mw_sys.type`) at the APNs simulator.
enum HeartbeatAlertWait {
    /// Every alert of `type` the simulator holds, once there are at least `count` of them.
    static func alerts(_ stack: RelayStack, _ type: String, count: Int,
                       timeout: Double = 30) async throws -> [APNsSimulatorProcess.Delivery] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let found = try await stack.simulator.deliveries().filter {
                let payload = (try? JSONSerialization.jsonObject(with: Data($0.payload.utf8))) as? [String: Any]
                return (payload?["mw_sys"] as? [String: Any])?["type"] as? String == type
            }
            if found.count >= count { return found }
            guard ContinuousClock.now < deadline else { throw TestHarnessError("\(found.count) of \(count) \(type) alerts within " +
                                                                               "\(timeout) s") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
