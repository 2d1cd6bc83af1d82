/// One notification on its way through one channel.
public struct ChannelDeliveryRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        case pending, sent, failed, expired
    }

    public var channelID: Int64
    public var eventID: String
    /// The notification content (JSON), sealed under `secret.key`.
    var payloadSealed: [UInt8]
    public var attempts: Int
    public var expiresAt: Int64
    public var status: Status
    public var lastError: String?
}
