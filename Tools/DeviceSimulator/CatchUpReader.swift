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
            guard r.status == .ok else { throw DeviceError("the relay answered the catch-up read with \(r.status.code): \(r.text)") }
            let (envelopes, more) = try page(r.body)
            all += envelopes
            guard more, let last = envelopes.last else { return all }
            after = last.context.eventID
        }
    }

    /// One page's envelopes and whether more follow. (Synchronous on purpose: decoding with typed throws
    /// inside the async loop made Swift 6.3's optimizer crash while splitting the coroutine.)
    static func page(_ body: [UInt8]) throws -> (envelopes: [Envelope], more: Bool) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let items = object["envelopes"] as? [Any], let more = object["more"] as? Bool
        else { throw DeviceError("the relay's catch-up answer is not {envelopes, more}") }
        var envelopes: [Envelope] = []
        for item in items {
            let bytes = Array(try JSONSerialization.data(withJSONObject: item))
            do {
                envelopes.append(try Envelope.decode(bytes))
            } catch {
                throw DeviceError("the relay's catch-up log holds an envelope that is not well formed: \(error)")
            }
        }
        return (envelopes, more)
    }
}
