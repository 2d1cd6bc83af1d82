/// What accounts tells the relay about one device (`GET /internal/v1/devices/{id}/authorization`,
/// and each entry of the batch look-up): whether it may receive pushes, and where they go.
public struct DeviceAuthorization: Codable, Sendable, Hashable {
    public var deviceID: String
    public var active: Bool
    public var entitled: Bool
    /// Unix seconds; nil when not entitled or entitled without end (a lifetime purchase).
    public var entitledUntil: Int64?
    public var apnsToken: String?
    public var apnsEnvironment: PushEnvironment
    public var bundleID: String
    public var pushToStartToken: String?
    /// The device's P-256 signing key (base64url, X9.62 uncompressed); empty when unknown.
    public var signingKey: String
    /// The device's P-256 key agreement key (base64url, X9.62 uncompressed); empty when unknown.
    public var agreementKey: String

    public init(deviceID: String, active: Bool, entitled: Bool, entitledUntil: Int64? = nil, apnsToken: String?,
                apnsEnvironment: PushEnvironment, bundleID: String, pushToStartToken: String?, signingKey: String = "",
                agreementKey: String = "") {
        self.deviceID = deviceID
        self.active = active
        self.entitled = entitled
        self.entitledUntil = entitledUntil
        self.apnsToken = apnsToken
        self.apnsEnvironment = apnsEnvironment
        self.bundleID = bundleID
        self.pushToStartToken = pushToStartToken
        self.signingKey = signingKey
        self.agreementKey = agreementKey
    }

    /// A device accounts does not know (or no longer knows): it receives nothing.
    public static func unknown(deviceID: String) -> DeviceAuthorization {
        DeviceAuthorization(deviceID: deviceID, active: false, entitled: false, apnsToken: nil, apnsEnvironment: .production,
                            bundleID: "", pushToStartToken: nil)
    }

    /// Active and entitled: the relay may deliver to it.
    public var mayReceivePush: Bool { active && entitled }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case active, entitled
        case entitledUntil = "entitled_until"
        case apnsToken = "apns_token"
        case apnsEnvironment = "apns_environment"
        case bundleID = "bundle_id"
        case pushToStartToken = "push_to_start_token"
        case signingKey = "signing_key"
        case agreementKey = "agreement_key"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deviceID = try c.decode(String.self, forKey: .deviceID)
        active = try c.decode(Bool.self, forKey: .active)
        entitled = try c.decode(Bool.self, forKey: .entitled)
        entitledUntil = try c.decodeIfPresent(Int64.self, forKey: .entitledUntil)
        apnsToken = try c.decodeIfPresent(String.self, forKey: .apnsToken)
        // An environment this version does not know is treated as production (Apple's default).
        apnsEnvironment = PushEnvironment(rawValue: try c.decode(String.self, forKey: .apnsEnvironment)) ?? .production
        bundleID = try c.decode(String.self, forKey: .bundleID)
        pushToStartToken = try c.decodeIfPresent(String.self, forKey: .pushToStartToken)
        signingKey = try c.decodeIfPresent(String.self, forKey: .signingKey) ?? ""
        agreementKey = try c.decodeIfPresent(String.self, forKey: .agreementKey) ?? ""
    }

    /// The response body, written directly (the relay's hot path reads many of these; no JSONEncoder).
    public var jsonBytes: [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.string("device_id", deviceID)
        w.bool("active", active)
        w.bool("entitled", entitled)
        if let entitledUntil { w.int("entitled_until", entitledUntil) } else { w.raw("entitled_until", Array("null".utf8)) }
        if let apnsToken { w.string("apns_token", apnsToken) } else { w.raw("apns_token", Array("null".utf8)) }
        w.string("apns_environment", apnsEnvironment.rawValue)
        w.string("bundle_id", bundleID)
        if let pushToStartToken { w.string("push_to_start_token", pushToStartToken) } else { w.raw("push_to_start_token",
            Array("null".utf8)) }
        w.string("signing_key", signingKey)
        w.string("agreement_key", agreementKey)
        w.endObject()
        return w.bytes
    }
}
