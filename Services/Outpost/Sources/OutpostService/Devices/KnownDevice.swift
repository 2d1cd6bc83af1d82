public import MailwakeProtocol

/// A device whose keys this outpost has locked (by push pairing or by a
/// management invitation), with what it may do.
public struct KnownDevice: Sendable, Hashable {
    public var deviceID: String
    public var signingKey: [UInt8]
    public var agreementKey: [UInt8]
    public var addedAt: Int64
    /// Active `manage` and `content` permissions.
    public var permissions: [DevicePermission]
    /// Whether the device has an active push pairing.
    public var push: Bool

    /// The fingerprint people compare on the iPhone.
    public var fingerprint: String { KeyIdentity.fingerprint(of: signingKey) }

    /// The active permission for `scope`, if any.
    public func permission(_ scope: ManagementScope) -> DevicePermission? {
        permissions.first { $0.scope == scope && $0.revokedAt == nil }
    }

    /// Scopes held now, sorted.
    public var scopes: [ManagementScope] {
        (permissions.filter { $0.revokedAt == nil }.map(\.scope) + (push ? [.push] : [])).sorted()
    }
}
