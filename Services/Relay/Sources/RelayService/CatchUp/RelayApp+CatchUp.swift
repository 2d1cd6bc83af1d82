import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

extension RelayApp {
    /// `GET /v1/devices/{device_id}/envelopes` (PROTOCOL.md §12): a device reads its catch-up log.
    func addCatchUpRoutes(to router: inout Router) {
        router.get("/v1/devices/{device_id}/envelopes") { [self] request, context in
            let deviceID = try context.parameter("device_id")
            let header = try gate.header(of: request)
            guard header.keyID == deviceID else {
                throw HTTPError(.forbidden, code: .notThisDevice, detail: "only the device itself may read its catch-up log")
            }
            let query = try CatchUpQuery(request)
            guard let key = try await pairingStore.deviceSigningKey(of: deviceID) else {
                throw HTTPError(.forbidden, code: .deviceNotPaired, detail: "this device has no pairing at this relay")
            }
            try await gate.verify(request, key: key)
            return .json(bytes: try await catchUpPage(deviceID: deviceID, query: query))
        }
    }

    /// `{"envelopes":[…],"more":bool}`: kept envelopes of active pairings, in
    /// acceptance order, after `query.after`, within `CATCHUP_RETENTION` and
    /// the device's newest `CATCHUP_LIMIT` (whatever pruning has not reached yet).
    func catchUpPage(deviceID: String, query: CatchUpQuery) async throws -> [UInt8] {
        let page = try await catchUpStore.page(deviceID: deviceID, after: query.after, limit: query.limit,
                                               sinceMS: clockMS() - configuration.catchupRetention * 1000,
                                               keep: configuration.catchupLimit)
        let envelopes = page.envelopes
        var out: [UInt8] = Array(#"{"envelopes":["#.utf8)
        out.reserveCapacity(envelopes.reduce(64) { $0 + $1.count + 1 })
        for (i, envelope) in envelopes.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: envelope)
        }
        out.append(contentsOf: Array(#"],"more":\#(page.more)}"#.utf8))
        return out
    }
}
