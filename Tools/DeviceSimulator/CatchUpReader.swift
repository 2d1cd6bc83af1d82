import Foundation
import MailwakeHTTPClient
import MailwakeProtocol

/// Reads the device's catch-up log at the relay (`GET /v1/devices/{id}/envelopes`, PROTOCOL.md §12), page by page.
enum CatchUpReader {
    /// Every envelope the relay keeps for the device, in acceptance order.
    static func envelopes(_ http: HTTPClient, _ state: DeviceState, base: String, origin: String) async throws -> [Envelope] {
        let deviceID = try state.deviceID
        var after: String?
        var all: [Envelope] = []
        while true {
            let path = "/v1/devices/\(deviceID)/envelopes?" + (after.map { "after=\($0)&" } ?? "") + "limit=100"
            let r = try await signed(http, state, .get, base: base, origin: origin, path: path, body: nil)
            guard r.status == .ok,
                  let object = try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any],
                  let page = object["envelopes"] as? [Any], let more = object["more"] as? Bool
            else { throw DeviceError("the relay answered the catch-up read with \(r.status.code): \(r.text)") }
            let envelopes = try page.map { try Envelope.decode(Array(try JSONSerialization.data(withJSONObject: $0))) }
            all += envelopes
            guard more, let last = envelopes.last else { return all }
            after = last.context.eventID
        }
    }
}
