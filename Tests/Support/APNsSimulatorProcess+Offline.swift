import Foundation

extension APNsSimulatorProcess {
    /// What `POST /_sim/offline` answered: the notifications accepted while
    /// offline and how many of them were delivered on coming back (0 or 1).
    public struct OnlineResult: Sendable, Hashable {
        public let acceptedWhileOffline: Int
        public let delivered: Int

        public init(acceptedWhileOffline: Int, delivered: Int) {
            self.acceptedWhileOffline = acceptedWhileOffline
            self.delivered = delivered
        }
    }

    /// Marks a device offline: APNs answers 200 but stores only the last notification for it.
    public func markOffline(token: String) async throws {
        try await send(.post, "/_sim/offline", json: ["device_token": token, "offline": true])
    }

    /// Marks a device online again; the simulator delivers the notification it stored.
    @discardableResult
    public func markOnline(token: String) async throws -> OnlineResult {
        let response = try await send(.post, "/_sim/offline", json: ["device_token": token, "offline": false])
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return OnlineResult(acceptedWhileOffline: object?["accepted_while_offline"] as? Int ?? -1,
                            delivered: object?["delivered"] as? Int ?? -1)
    }
}
