import MailwakeServiceSupport
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeProtocol

/// The body of `POST /internal/v1/devices/{id}/apns-token-invalid`.
struct InvalidTokenReport: Decodable, Sendable {
    var apnsToken: String
    /// APNs' `timestamp` (milliseconds): when the token stopped being valid.
    var timestamp: Int64
    enum CodingKeys: String, CodingKey, CaseIterable {
        case apnsToken = "apns_token"
        case timestamp
    }
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "invalid token report")
        let c = try decoder.container(keyedBy: CodingKeys.self)
        apnsToken = try DeviceFields.apnsToken(c.decode(String.self, forKey: .apnsToken), field: "apns_token")
        timestamp = try c.decode(Int64.self, forKey: .timestamp)
    }
}

/// The body of `POST /internal/v1/diagnostics`.
///
/// Read from the parsed document without `Decodable`: a relay reports one record per push, and Foundation's
/// `JSONDecoder` took most of accounts' CPU for these batches. As strict as a `Decodable` type that rejects unknown
/// keys: an unknown, missing, null or mistyped field is refused, named by its path.
struct DiagnosticBatch: Sendable {
    static let maxRecords = 500
    var records: [DiagnosticRecord]

    init(_ document: StrictJSON.Value) throws(ProtocolError) {
        let items = try StrictJSON.Fields(document, allowed: ["records"], in: "diagnostics batch").array("records")
        guard items.count <= Self.maxRecords else { throw ProtocolError(.tooLarge, "at most \(Self.maxRecords) records a batch") }
        records = []
        records.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let r = try DiagnosticRecord(StrictJSON.Fields(item, allowed: DiagnosticRecord.fieldNames, in: "diagnostics record",
                                                           path: "records[\(index)]"))
            // PostgreSQL's text refuses NUL: refused here, as a 400, not at the insert as a 500.
            guard KeyIdentity.isWellFormedID(r.deviceID), PairingID.isValid(r.pairingID), EventID.isValid(r.eventID),
                  (1...32).contains(r.status.utf8.count), (r.apnsReason?.utf8.count ?? 0) <= 64,
                  !r.status.utf8.contains(0), r.apnsReason?.utf8.contains(0) != true
            else { throw ProtocolError(.malformed, "a diagnostics record has a malformed field") }
            records.append(r)
        }
    }
}

/// The body of `POST /internal/v1/authorizations`.
struct AuthorizationQuery: Decodable, Sendable {
    static let maxDevices = 500
    var deviceIDs: [String]
    enum CodingKeys: String, CodingKey, CaseIterable { case deviceIDs = "device_ids" }
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "authorization query")
        deviceIDs = try decoder.container(keyedBy: CodingKeys.self).decode([String].self, forKey: .deviceIDs)
        guard !deviceIDs.isEmpty else { throw ProtocolError(.malformed, "device_ids is empty") }
        guard deviceIDs.count <= Self.maxDevices else { throw ProtocolError(.tooLarge, "at most \(Self.maxDevices) device ids a query") }
        guard deviceIDs.allSatisfy(KeyIdentity.isWellFormedID) else { throw ProtocolError(.malformed,
                                                                                          "a device id is not a 22-character key id") }
    }
}

extension AccountsApp {
    func addInternalRoutes(to router: inout Router) {
        router.group("/internal/v1", middleware: [BearerTokenAuthentication(serviceGate, as: .service, named: "relay")]) { service in
            addInternalDeviceRoutes(to: &service)
            addInternalOutpostRoutes(to: &service)
        }
    }

    /// The relay's look-ups and reports about devices.
    func addInternalDeviceRoutes(to router: inout RouterGroup) {
        router.post("/authorizations") { [self] request, _ in
            let query = try request.decodeJSON(AuthorizationQuery.self)
            // Devices accounts does not know are left out.
            let ids = Array(Set(query.deviceIDs))
            authorizationDevices.increment(by: Int64(ids.count))
            let found = try await authorizations(of: ids)
            var w = JSONWriter(capacity: 64 + found.count * 512)
            w.beginObject()
            w.beginArray("authorizations")
            for authorization in found { w.raw(nil, authorization.jsonBytes) }
            w.endArray()
            w.endObject()
            return .json(bytes: w.bytes)
        }
        router.get("/devices/{id}/authorization") { [self] request, context in
            authorizationDevices.increment()
            guard let authorization = try await authorization(of: try context.parameter("id")) else {
                throw HTTPError(.notFound, code: .deviceNotFound, detail: "no such device")
            }
            return .json(bytes: authorization.jsonBytes)
        }
        router.post("/devices/{id}/apns-token-invalid") { [self] request, context in
            let id = try context.parameter("id")
            let report = try request.decodeJSON(InvalidTokenReport.self)
            // Only a token that has not been replaced since APNs saw it fail is wiped.
            let cleared = try await deviceStore.clearInvalidToken(id, token: report.apnsToken, failedAtMS: report.timestamp, now: clock())
            context.logger.info("apns token reported invalid", ["device_id": .string(id), "cleared": .bool(cleared)])
            return try .json(["cleared": cleared])
        }
        router.post("/diagnostics") { [self] request, _ in
            let batch = try DiagnosticBatch(request.parseJSON(maxBytes: 256 * 1024))
            try await diagnosticsStore.record(batch.records, now: clock(), retentionSeconds: configuration.diagnosticsRetentionSeconds)
            return try .json(["recorded": batch.records.count], status: .accepted)
        }
        router.get("/devices/{id}/live-activities/{activity}") { [self] request, context in
            let token = try await liveActivityTokenStore.token(deviceID: try context.parameter("id"),
                                                               activityID: try context.parameter("activity"))
            guard let token else {
                throw HTTPError(.notFound, code: .activityNotFound, detail: "no update token for this activity")
            }
            return try .json(["token": token])
        }
    }

    /// The relay's registration and look-up of outposts.
    func addInternalOutpostRoutes(to router: inout RouterGroup) {
        router.post("/outposts") { [self] request, context in
            // The relay registers an outpost on first contact, after checking
            // the outpost's own signed request (proof of possession) itself.
            let body = try request.decodeJSON(OutpostRegistration.self)
            let (summary, created) = try await registerOutpost(key: body.outpostKey)
            if created { context.logger.info("outpost registered by relay", ["outpost_id": .string(summary.outpostID)]) }
            return try .json(summary, status: created ? .created : .ok)
        }
        router.get("/outposts/{id}") { [self] request, context in
            guard let outpost = try await outpostStore.load(try context.parameter("id")) else {
                throw HTTPError(.notFound, code: .outpostNotFound, detail: "no such outpost")
            }
            return try .json(outpost)
        }
    }
}
