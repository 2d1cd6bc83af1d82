import CGMimeShims

/// A message read for display (GMime): its headers, the first HTML and
/// plain-text parts, and its inline parts. Attachments are counted, not read;
/// attached messages count as attachments.
public struct MessageBody: Sendable, Hashable {
    /// Limits of reading a body.
    public struct Limits: Sendable, Hashable {
        /// Bytes kept of each text part. Default 2 MiB.
        public var maxTextBytes: Int = 2 << 20
        /// Inline parts listed. Default 64.
        public var maxInlineParts: Int = 64

        public init() {}
    }

    public var subject: String
    /// The Date header, Unix seconds (nil when absent or unreadable).
    public var date: Int64?
    public var from: [MessageAddress]
    public var to: [MessageAddress]
    public var cc: [MessageAddress]
    public var replyTo: [MessageAddress]
    /// The first displayable text/html part.
    public var html: String?
    /// The first displayable text/plain part.
    public var text: String?
    /// Whether a text part was cut to `maxTextBytes`.
    public var textTruncated: Bool
    /// Parts with a Content-ID.
    public var inlineParts: [InlinePart]
    /// Attachments (including attached messages), not shown.
    public var attachmentCount: Int

    /// Parses a whole (or truncated) message.
    public init(rfc822 data: [UInt8], limits: Limits = .init()) throws(MessageBodyError) {
        var raw = mw_mime_body()
        try Self.parse(data, limits: limits, wantContentID: nil, into: &raw)
        defer { mw_mime_body_free(&raw) }
        subject = Self.string(raw.subject) ?? ""
        date = raw.date == 0 ? nil : raw.date
        from = Self.addresses(raw.from, raw.from_count)
        to = Self.addresses(raw.to, raw.to_count)
        cc = Self.addresses(raw.cc, raw.cc_count)
        replyTo = Self.addresses(raw.reply_to, raw.reply_to_count)
        html = Self.string(raw.html)
        text = Self.string(raw.text)
        textTruncated = raw.html_truncated != 0 || raw.text_truncated != 0
        inlineParts = (0..<raw.inline_count).map { i in
            InlinePart(contentID: Self.string(raw.inlines[i].content_id) ?? "",
                       contentType: Self.string(raw.inlines[i].content_type) ?? "application/octet-stream",
                       size: raw.inlines[i].size)
        }
        attachmentCount = raw.attachment_count
    }

    /// The decoded bytes and media type of the inline image with `contentID`, or nil.
    public static func inlinePart(rfc822 data: [UInt8], contentID: String,
                                  limits: Limits = .init()) throws(MessageBodyError) -> (contentType: String, bytes: [UInt8])? {
        var raw = mw_mime_body()
        try parse(data, limits: limits, wantContentID: contentID, into: &raw)
        defer { mw_mime_body_free(&raw) }
        guard let data = raw.part_data else { return nil }
        return (string(raw.part_type) ?? "application/octet-stream", Array(UnsafeBufferPointer(start: data, count: raw.part_length)))
    }

    private static func parse(_ data: [UInt8], limits: Limits, wantContentID: String?,
                              into raw: inout mw_mime_body) throws(MessageBodyError) {
        let rc = data.withUnsafeBufferPointer { bytes in
            if let wantContentID {
                return wantContentID.withCString { mw_mime_body_parse(bytes.baseAddress, bytes.count, limits.maxTextBytes,
                                                                      limits.maxInlineParts, $0, &raw) }
            }
            return mw_mime_body_parse(bytes.baseAddress, bytes.count, limits.maxTextBytes, limits.maxInlineParts, nil, &raw)
        }
        try MessageBodyError.check(rc)
    }

    private static func string(_ p: UnsafeMutablePointer<CChar>?) -> String? {
        p.map { String(cString: $0) }   // invalid UTF-8 is repaired with U+FFFD
    }

    private static func addresses(_ list: UnsafeMutablePointer<mw_mime_address>?, _ count: Int) -> [MessageAddress] {
        guard let list else { return [] }
        return (0..<count).map { MessageAddress(name: string(list[$0].name) ?? "", address: string(list[$0].address) ?? "") }
    }
}
