/// A part of a message shown inside its HTML (an image with a Content-ID).
public struct InlinePart: Sendable, Hashable {
    /// The Content-ID without angle brackets.
    public var contentID: String
    /// The part's media type, e.g. `image/png`.
    public var contentType: String
    /// Decoded size in bytes.
    public var size: Int
}
