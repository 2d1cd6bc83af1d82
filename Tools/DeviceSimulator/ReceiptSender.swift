import Foundation
import MailwakeHTTPClient
import MailwakeProtocol

/// Posts the inbox's receipts to the relay (`POST /v1/devices/{id}/receipts`, PROTOCOL.md §13), 100 a request.
enum ReceiptSender {
    /// What the relay answered, summed over the requests.
    struct Outcome: Sendable {
        var displayed = 0
        var duplicate = 0
        var ignored = 0
        var trimmed = 0
    }

    /// Sends every pending receipt of a pairing this device has to `base` (signed for the pairing's relay origin);
    /// moves what the relay acknowledged from `state.pendingReceipts` to `state.receiptedKeys`.
    static func send(_ http: HTTPClient, _ state: inout DeviceState, base: String) async throws -> Outcome {
        let deviceID = try state.deviceID
        var outcome = Outcome()
        let pending = state.pendingReceipts ?? []
        let origins = Dictionary(state.pairings.map { ($0.pairingID, $0.relay) }, uniquingKeysWith: { a, _ in a })
        // A pairing the device no longer has cannot be acknowledged by it: dropped.
        let sendable = pending.filter { origins[$0.pairingID] != nil }
        var done = Set<String>()
        for origin in Set(sendable.compactMap { origins[$0.pairingID] }).sorted() {
            let mine = sendable.filter { origins[$0.pairingID] == origin }
            for start in stride(from: 0, to: mine.count, by: 100) {
                let chunk = Array(mine[start..<min(start + 100, mine.count)])
                let r = try await signed(http, state, .post, base: base, origin: origin, path: "/v1/devices/\(deviceID)/receipts",
                                         body: body(chunk))
                guard r.status == .ok else { throw DeviceError("the relay answered the receipts with \(r.status.code): \(r.text)") }
                let object = (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any] ?? [:]
                outcome.displayed += object["displayed"] as? Int ?? 0
                outcome.duplicate += object["duplicate"] as? Int ?? 0
                outcome.ignored += object["ignored"] as? Int ?? 0
                outcome.trimmed += object["trimmed"] as? Int ?? 0
                done.formUnion(chunk.map(\.key))
            }
        }
        state.receiptedKeys = (state.receiptedKeys ?? []) + pending.map(\.key).filter { done.contains($0) }
        state.pendingReceipts = pending.filter { !done.contains($0.key) && origins[$0.pairingID] != nil }
        return outcome
    }

    /// `{"receipts":[{"pairing_id","event_id","shown_at"}, …]}`.
    static func body(_ receipts: [PendingReceipt]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.beginArray("receipts")
        for r in receipts {
            w.beginObject()
            w.string("pairing_id", r.pairingID)
            w.string("event_id", r.eventID)
            w.int("shown_at", r.shownAt)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
