import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

extension RelayApp {
    /// `POST /v1/devices/{device_id}/receipts` (PROTOCOL.md §13): a device says what it has shown.
    func addReceiptRoutes(to router: inout Router) {
        router.post("/v1/devices/{device_id}/receipts") { [self] request, context in
            let deviceID = try context.parameter("device_id")
            let header = try gate.header(of: request)
            guard header.keyID == deviceID else {
                throw HTTPError(.forbidden, code: .notThisDevice, detail: "only the device itself may post its receipts")
            }
            guard let key = try await pairingStore.deviceSigningKey(of: deviceID) else {
                throw HTTPError(.forbidden, code: .deviceNotPaired, detail: "this device has no pairing at this relay")
            }
            try await gate.verify(request, key: key)
            let body = try ReceiptsBody.decode(request.body)
            let counts = try await recordReceipts(deviceID: deviceID, body.receipts)
            var w = JSONWriter()
            w.beginObject()
            w.int("displayed", Int64(counts.displayed))
            w.int("duplicate", Int64(counts.duplicate))
            w.int("ignored", Int64(counts.ignored))
            w.int("trimmed", Int64(counts.trimmed))
            w.endObject()
            return .json(bytes: w.bytes)
        }
    }

    /// What one receipts request did.
    struct ReceiptCounts: Sendable {
        var displayed = 0
        var duplicate = 0
        var ignored = 0
        var trimmed = 0
    }

    /// Marks the deliveries `displayed` and trims the catch-up log (`ReceiptStore`), if every pairing is the
    /// device's (403 otherwise, nothing written).
    func recordReceipts(deviceID: String, _ receipts: [ReceiptsBody.Receipt]) async throws -> ReceiptCounts {
        var seen = Set<String>()
        let unique = receipts.filter { seen.insert($0.pairingID + "/" + $0.eventID).inserted }
        let marked = try await receiptStore.markDisplayed(deviceID: deviceID, unique, nowMS: clockMS())
        guard !marked.namesOthersPairing else {
            throw HTTPError(.forbidden, code: .notThisDevicesPairing,
                            detail: "a receipt names a pairing that is not this device's; nothing was recorded")
        }
        for delivery in marked.displayed {
            guard let displayed = delivery.displayedMS else { continue }
            relayMetrics.acceptToDisplayed.observe(Double(max(0, displayed - delivery.acceptedMS)) / 1000)
            if let sent = delivery.sentMS { relayMetrics.sentToDisplayed.observe(Double(max(0, displayed - sent)) / 1000) }
        }
        var counts = ReceiptCounts(displayed: marked.displayed.count, duplicate: marked.alreadyDisplayed, trimmed: marked.trimmed)
        counts.ignored = unique.count - counts.displayed - counts.duplicate
        counts.duplicate += receipts.count - unique.count
        relayMetrics.receipts["displayed"]?.increment(by: Int64(counts.displayed))
        relayMetrics.receipts["duplicate"]?.increment(by: Int64(counts.duplicate))
        relayMetrics.receipts["ignored"]?.increment(by: Int64(counts.ignored))
        return counts
    }
}
