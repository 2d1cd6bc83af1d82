import MailwakeProtocol

/// `201/200` of `POST /v1/devices`.
struct DeviceRegistered: Encodable, Sendable {
    var deviceID: String
    var sessionID: String
    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case sessionID = "session_id"
    }
}

/// A device as the device itself sees it.
struct DeviceSummary: Encodable, Sendable {
    var deviceID: String
    var apnsEnvironment: String
    var bundleID: String
    var appVersion: String
    var hasPushToStartToken: Bool
    var createdAt: Int64

    init(_ d: DeviceRecord) {
        deviceID = d.deviceID
        apnsEnvironment = d.apnsEnvironment
        bundleID = d.bundleID
        appVersion = d.appVersion
        hasPushToStartToken = d.pushToStartToken != nil
        createdAt = d.createdAt
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case apnsEnvironment = "apns_environment"
        case bundleID = "bundle_id"
        case appVersion = "app_version"
        case hasPushToStartToken = "has_push_to_start_token"
        case createdAt = "created_at"
    }
}

struct SessionSummary: Encodable, Sendable {
    var sessionID: String
    var createdAt: Int64
    var lastSeenAt: Int64
    var appVersion: String
    var clientAddress: String
    var revokedAt: Int64?
    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case createdAt = "created_at"
        case lastSeenAt = "last_seen_at"
        case appVersion = "app_version"
        case clientAddress = "client_address"
        case revokedAt = "revoked_at"
    }
}

struct SessionList: Encodable, Sendable {
    var sessions: [SessionSummary]
}

/// A device's native-push entitlement.
struct Entitlement: Encodable, Sendable {
    var deviceID: String
    var entitled: Bool
    /// Unix seconds; nil when not entitled or entitled without end (lifetime purchase).
    var entitledUntil: Int64?
    /// `purchase`, `trial`, or nil.
    var source: String?
    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case entitled
        case entitledUntil = "entitled_until"
        case source
    }
}

struct DiagnosticRecord: Encodable, Sendable {
    var deviceID: String
    var pairingID: String
    var eventID: String
    var status: String
    var apnsReason: String?
    var occurredAt: Int64
    enum CodingKeys: String, CodingKey, CaseIterable {
        case deviceID = "device_id"
        case pairingID = "pairing_id"
        case eventID = "event_id"
        case status
        case apnsReason = "apns_reason"
        case occurredAt = "occurred_at"
    }

    init(deviceID: String, pairingID: String, eventID: String, status: String, apnsReason: String?, occurredAt: Int64) {
        self.deviceID = deviceID
        self.pairingID = pairingID
        self.eventID = eventID
        self.status = status
        self.apnsReason = apnsReason
        self.occurredAt = occurredAt
    }

    /// The keys of a record document.
    static let fieldNames = CodingKeys.allCases.map(\.rawValue)

    /// Reads a record's fields (`DiagnosticBatch` has refused any other field: a payload, say). Lengths and formats
    /// are the batch's to check.
    init(_ c: StrictJSON.Fields) throws(ProtocolError) {
        deviceID = try c.string(CodingKeys.deviceID.rawValue, maxBytes: .max, allowEmpty: true)
        pairingID = try c.string(CodingKeys.pairingID.rawValue, maxBytes: .max, allowEmpty: true)
        eventID = try c.string(CodingKeys.eventID.rawValue, maxBytes: .max, allowEmpty: true)
        status = try c.string(CodingKeys.status.rawValue, maxBytes: .max, allowEmpty: true)
        apnsReason = try c.optionalString(CodingKeys.apnsReason.rawValue, maxBytes: .max, allowEmpty: true)
        occurredAt = try c.int64(CodingKeys.occurredAt.rawValue)
    }
}

struct DiagnosticList: Encodable, Sendable {
    var deviceID: String
    var records: [DiagnosticRecord]
    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case records
    }
}

struct OutpostSummary: Encodable, Sendable {
    var outpostID: String
    var publicKey: String
    var blocked: Bool
    var createdAt: Int64
    enum CodingKeys: String, CodingKey {
        case outpostID = "outpost_id"
        case publicKey = "public_key"
        case blocked
        case createdAt = "created_at"
    }
}
