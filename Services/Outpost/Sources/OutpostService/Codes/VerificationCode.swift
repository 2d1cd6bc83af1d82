/// A one-time code found in a message, and why it was taken.
public struct VerificationCode: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable { case subject, body }

    /// The code as the user types it (separators removed: "123 456" → "123456").
    public var value: String
    public var source: Source
    /// The keyword it was found near (for `inspect`).
    public var keyword: String
}
