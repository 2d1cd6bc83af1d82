import Foundation

extension APNsSimulatorProcess {
    /// Sets the simulator's clock to the wall clock plus `offsetSeconds` (`POST /_sim/clock`):
    /// provider-token ages and the 20-minute rule follow it.
    public func setClock(offsetSeconds: Int64) async throws {
        try await send(.post, "/_sim/clock", json: ["offset_seconds": offsetSeconds])
    }

    /// The simulator's time in Unix milliseconds (`GET /_sim/clock`).
    public func clockNowMS() async throws -> Int64 {
        try await get("/_sim/clock", as: ClockReading.self).nowMS
    }

    /// `GET /_sim/clock`.
    struct ClockReading: Decodable {
        let nowMS: Int64
        enum CodingKeys: String, CodingKey { case nowMS = "now_ms" }
    }
}
