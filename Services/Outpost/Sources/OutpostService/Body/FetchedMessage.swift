/// A message fetched for display: its bytes (at most the configured limit)
/// and whether it was cut.
public struct FetchedMessage: Sendable {
    public var bytes: [UInt8]
    /// The full size the server reported.
    public var size: Int
    public var truncated: Bool { bytes.count < size }
}
