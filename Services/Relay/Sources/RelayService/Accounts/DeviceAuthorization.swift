/// What accounts says about one device (`GET /internal/v1/devices/{id}/authorization`).
struct DeviceAuthorization: Decodable, Sendable, Hashable {
    var deviceID: String
    var active: Bool
    var entitled: Bool
    var apnsToken: String?
    var apnsEnvironment: String
    var bundleID: String
    var pushToStartToken: String?

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case active, entitled
        case apnsToken = "apns_token"
        case apnsEnvironment = "apns_environment"
        case bundleID = "bundle_id"
        case pushToStartToken = "push_to_start_token"
    }

    /// Active, entitled and reachable: the relay may deliver to it.
    var mayReceivePush: Bool { active && entitled }
}
