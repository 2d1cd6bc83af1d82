/// `GET /v1/devices/{id}/purchases`: the purchases linked to the device and who shares each.
struct DevicePurchases: Encodable, Sendable {
    var deviceID: String
    var purchases: [PurchaseSharing]
    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case purchases
    }
}
