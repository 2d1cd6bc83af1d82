/// The version of every Mailwake binary built from this tree.
public enum MailwakeVersion {
    /// Semantic version of the release.
    public static let current = "0.1.0"
    /// The protocol version spoken (PROTOCOL.md).
    public static let protocolVersion = 1
}
