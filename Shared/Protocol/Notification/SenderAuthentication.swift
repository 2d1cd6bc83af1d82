/// Whether the sender's domain was authenticated by a receiving server the
/// outpost trusts (PROTOCOL §6, revision 2 `sender_auth`).
public enum SenderAuthentication: String, Sendable, Hashable, Codable, CaseIterable {
    /// DMARC passed for the `From` domain (or, without DMARC, an aligned DKIM signature did).
    case pass
    /// DMARC failed for the `From` domain: the App marks a code from it as suspicious.
    case fail
}
