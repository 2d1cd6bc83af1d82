/// A verification-code Live Activity started on a device and not ended yet.
public struct OpenActivity: Sendable, Equatable {
    public var pairingID: String
    public var activityID: String
    /// Where the message is (to end the activity when it is read or deleted).
    public var mailboxID: Int64?
    public var folder: String?
    public var uidValidity: UInt32?
    public var uid: UInt32?
    /// The notification it shows (sealed under `secret.key`).
    var contentSealed: [UInt8]
    /// When it ends by itself (Unix seconds).
    public var endAt: Int64
}

/// A Live Activity `start` ready to be stored with its notification.
struct ActivityStart: Sendable {
    var pairingID: String
    var activityID: String
    var eventID: String
    var envelope: [UInt8]
    var contentSealed: [UInt8]
    var endAt: Int64
}
