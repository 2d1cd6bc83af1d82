public import MailwakeProtocol

/// Who decides, after every protocol check passed, that a device's push
/// consent is confirmed (PROTOCOL.md §9 step 4, §10).
public enum ConsentApproval: Sendable {
    /// The outpost's owner, shown the device's fingerprint (`mailwake-outpost pair`); true confirms.
    case owner(@Sendable (PairingConsent) async throws -> Bool)
    /// The device that redeemed the management invitation with this token hash, and only it (same id and keys).
    case redeemer(invitationTokenHash: [UInt8])
}
