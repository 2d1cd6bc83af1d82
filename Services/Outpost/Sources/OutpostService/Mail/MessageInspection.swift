import MailwakeMail
import MailwakeProtocol

/// `mailwake-outpost inspect FILE.eml`: the notification the outpost would
/// build from a raw message, and why a code was or was not found, as JSON.
public enum MessageInspection {
    public static func json(for message: [UInt8]) throws(OutpostError) -> String {
        let summary: MessageSummary
        do throws(MessageBodyError) {
            summary = try MessageSummary(rfc822: message)
        } catch {
            throw OutpostError(error)
        }
        let code = CodeDetector.detect(subject: summary.subject, body: summary.visibleText)
        var w = JSONWriter()
        w.beginObject()
        w.beginObject("from")
        w.string("name", summary.fromName)
        w.string("address", summary.fromAddress)
        w.endObject()
        w.string("subject", summary.subject)
        w.int("date", summary.date)
        w.string("text_source",
                 summary.textPlain?.isEmpty == false ? "text/plain" : summary.textHTML != nil ? "text/html (converted)" : "none")
        if let code {
            w.beginObject("code")
            w.string("value", code.value)
            w.string("found_in", code.source.rawValue)
            w.string("near_keyword", code.keyword)
            w.endObject()
        } else {
            w.raw("code", Array("null".utf8))
            w.string("why_no_code",
                     "no 4–8 digit or short letters-and-digits code near a code keyword, or only dates, times, prices, order or phone " +
                     "numbers")
        }
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// `inspect --body`: the document `GET /v1/messages/body` would answer
    /// for this message (part URLs carry the placeholder ref `REF`).
    public static func bodyJSON(for message: [UInt8]) throws(OutpostError) -> String {
        do throws(MessageBodyError) {
            let document = try BodyDocument(message: message, partURL: { BodyRoutes.partPath(ref: "REF", contentID: $0) })
            return String(decoding: document.jsonBytes, as: UTF8.self)
        } catch {
            throw OutpostError(error)
        }
    }
}
