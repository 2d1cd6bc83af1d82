import MailwakeProtocol

/// What the body endpoint answers for a message (and `inspect --body`
/// prints): headers, sanitized HTML, readable text, inline images and the
/// remote images the App may choose to load. Built in request memory only.
public struct BodyDocument: Sendable {
    /// The raster image types served by the part endpoint.
    public static let servedImageTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

    public var body: MessageBody
    public var sanitized: HTMLSanitizer.Result?
    /// The text shown when there is no HTML, or alongside it.
    public var text: String
    /// Where `text` came from: `text/plain`, `text/html` or `none`.
    public var textSource: String
    /// Inline images the part endpoint serves, with their URLs.
    public var images: [(part: InlinePart, url: String)]
    /// Whether the message itself was cut before it was parsed.
    public var messageTruncated: Bool

    /// Reads `message` for display.
    ///
    /// - Parameters:
    ///   - message: the raw message (or its first bytes when `messageTruncated`).
    ///   - messageTruncated: whether the message was cut to a size limit before reading.
    ///   - sanitizer: the HTML sanitizer.
    ///   - partURL: the part endpoint's URL for a Content-ID.
    public init(message: [UInt8], messageTruncated: Bool = false, sanitizer: HTMLSanitizer = .init(),
                partURL: @escaping @Sendable (String) -> String) throws(MessageBodyError) {
        body = try MessageBody(rfc822: message)
        self.messageTruncated = messageTruncated
        sanitized = body.html.map { sanitizer.sanitize($0, partURL: partURL) }
        if let plain = body.text, !plain.allSatisfy(\.isWhitespace) {
            text = plain
            textSource = "text/plain"
        } else if let sanitized {
            text = sanitized.text
            textSource = "text/html"
        } else {
            text = ""
            textSource = "none"
        }
        images = body.inlineParts.filter { Self.servedImageTypes.contains($0.contentType.lowercased()) }.map { ($0,
            partURL($0.contentID)) }
    }

    /// The JSON answer.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter(capacity: 4096 + (sanitized?.html?.utf8.count ?? 0) + text.utf8.count)
        w.beginObject()
        w.beginObject("headers")
        w.string("subject", body.subject)
        if let date = body.date { w.int("date", date) } else { w.raw("date", Array("null".utf8)) }
        Self.addresses(&w, "from", body.from)
        Self.addresses(&w, "to", body.to)
        Self.addresses(&w, "cc", body.cc)
        Self.addresses(&w, "reply_to", body.replyTo)
        w.endObject()
        if let html = sanitized?.html { w.string("html", html) } else { w.raw("html", Array("null".utf8)) }
        if let reason = sanitized?.omittedReason { w.string("html_omitted", reason) }
        w.string("text", text)
        w.string("text_source", textSource)
        w.beginArray("images")
        for image in images {
            w.beginObject()
            w.string("cid", image.part.contentID)
            w.string("content_type", image.part.contentType.lowercased())
            w.int("size", Int64(image.part.size))
            w.string("url", image.url)
            w.endObject()
        }
        w.endArray()
        w.beginArray("remote_images")
        for url in sanitized?.remoteImages ?? [] { w.string(nil, url) }
        w.endArray()
        w.int("attachments", Int64(body.attachmentCount))
        w.bool("truncated", messageTruncated || body.textTruncated || sanitized?.truncated == true)
        w.endObject()
        return w.bytes
    }

    private static func addresses(_ w: inout JSONWriter, _ key: String, _ list: [MessageAddress]) {
        w.beginArray(key)
        for a in list {
            w.beginObject()
            w.string("name", a.name)
            w.string("address", a.address)
            w.endObject()
        }
        w.endArray()
    }
}
