import CGMimeShims
public import MailwakeProtocol

/// What the outpost reads from a message to notify about it (GMime: RFC 2047
/// words decoded, any charset converted to UTF-8, malformed headers tolerated).
public struct MessageSummary: Sendable, Hashable {
    public var subject: String
    public var fromName: String
    public var fromAddress: String
    /// The Date header, Unix seconds (0 when absent); IMAP's INTERNALDATE is preferred when known.
    public var date: Int64
    /// The first text/plain part (bounded), if any.
    public var textPlain: String?
    /// The first text/html part (bounded), if any.
    public var textHTML: String?
    /// The `Authentication-Results` field values, top (most recent) first.
    public var authenticationResults: [String]

    /// Parses a whole message; `maxText` bounds each text part in bytes.
    public init(rfc822 data: [UInt8], maxText: Int = 64 * 1024) throws(MessageBodyError) {
        var raw = mw_mime_summary()
        let rc = data.withUnsafeBufferPointer { mw_mime_summarize($0.baseAddress, $0.count, maxText, &raw) }
        defer { mw_mime_summary_free(&raw) }
        try MessageBodyError.check(rc)
        func text(_ p: UnsafeMutablePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        subject = text(raw.subject) ?? ""
        fromName = text(raw.from_name) ?? ""
        fromAddress = text(raw.from_address) ?? ""
        date = raw.date
        textPlain = text(raw.text_plain)
        textHTML = text(raw.text_html)
        authenticationResults = text(raw.authentication_results).map { $0.split(separator: "\n").map(String.init) } ?? []
    }

    /// Whether a server the mailbox trusts authenticated the sender (nil: unknown, or nothing trusted).
    public func senderAuthentication(trusting authenticity: SenderAuthenticity) -> SenderAuthentication? {
        authenticity.verdict(fields: authenticationResults, fromAddress: fromAddress)
    }

    /// The visible text for code detection: text/plain, else the HTML's text.
    public var visibleText: String {
        if let textPlain, !textPlain.isEmpty { return textPlain }
        return textHTML.map { HTMLVisibleText.of($0) } ?? ""
    }
}
