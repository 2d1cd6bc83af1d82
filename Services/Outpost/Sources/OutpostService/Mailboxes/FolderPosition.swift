/// A folder's position after a message: recorded with the message's
/// notification so the two commit together.
public struct FolderPosition: Sendable, Equatable {
    public var mailboxID: Int64
    public var folder: String
    public var uidValidity: UInt32
    /// The message's UID: the new highest handled.
    public var uid: UInt32
    /// The keyed hash of the message's Message-ID, remembered as notified (nil: none).
    public var messageIDDigest: [UInt8]? = nil

    public init(mailboxID: Int64, folder: String, uidValidity: UInt32, uid: UInt32, messageIDDigest: [UInt8]? = nil) {
        self.messageIDDigest = messageIDDigest
        self.mailboxID = mailboxID
        self.folder = folder
        self.uidValidity = uidValidity
        self.uid = uid
    }
}
