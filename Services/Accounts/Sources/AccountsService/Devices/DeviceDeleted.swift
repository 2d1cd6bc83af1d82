/// `200` of `DELETE /v1/devices/{id}`: the code that alone restores the device (`POST /v1/devices` with `recovery_code`).
struct DeviceDeleted: Encodable, Sendable {
    var deviceID: String
    /// Shown once; accounts keeps only its SHA-256. The App stores it if the user may come back on this device.
    var recoveryCode: String
    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case recoveryCode = "recovery_code"
    }
}
