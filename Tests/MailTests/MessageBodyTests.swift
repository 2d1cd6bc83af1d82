import Foundation
import Testing
import TestSupport
@testable import MailwakeMail

struct MessageBodyTests {
    static func fixture(_ name: String) throws -> [UInt8] { try RepositoryPaths.bytes("Tests/Fixtures/mime/\(name)") }

    static func document(_ bytes: [UInt8]) throws -> BodyDocument {
        try BodyDocument(message: bytes) { "/v1/messages/part?ref=REF&cid=\($0)" }
    }

    static func json(_ document: BodyDocument) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(document.jsonBytes)) as? [String: Any])
    }

    @Test func headersAreDecoded() throws {
        let body = try MessageBody(rfc822: Self.fixture("related.eml"))
        #expect(body.subject == "Your receipt — order NW-58120")
        #expect(body.from == [MessageAddress(name: "Northwind Bücher", address: "orders@northwind.example")])
        #expect(body.to == [MessageAddress(name: "Mira Example", address: "mira@example.com"),
                            MessageAddress(name: "Ops, Team", address: "ops@example.com")])
        #expect(body.cc.isEmpty)
        #expect(body.replyTo.map(\.address) == ["help@northwind.example"])
        #expect(body.date == 1_795_857_300)
    }

    @Test func alternativePartsGiveHTMLAndPlainText() throws {
        let body = try MessageBody(rfc822: Self.fixture("related.eml"))
        #expect(body.text == "Thanks for your order NW-58120. Total €86.90.\r\n")
        #expect(body.html?.hasPrefix("<p>Thanks for your order <b>NW-58120</b>.</p>") == true)
    }

    @Test func attachmentsAndAttachedMessagesAreCountedNotRead() throws {
        let body = try MessageBody(rfc822: Self.fixture("related.eml"))
        #expect(body.attachmentCount == 2)
        #expect(body.text?.contains("inner body") == false)
    }

    @Test func inlineImagesAreListedAndServedDecoded() throws {
        let message = try Self.fixture("related.eml")
        let body = try MessageBody(rfc822: message)
        #expect(body.inlineParts == [InlinePart(contentID: "logo@northwind.example", contentType: "image/png", size: 70)])
        let part = try #require(try MessageBody.inlinePart(rfc822: message, contentID: "logo@northwind.example"))
        #expect(part.contentType == "image/png")
        #expect(part.bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try MessageBody.inlinePart(rfc822: message, contentID: "other@x") == nil)
    }

    @Test func theDocumentSanitizesAndLinksItsImages() throws {
        let json = try Self.json(Self.document(Self.fixture("related.eml")))
        let html = try #require(json["html"] as? String)
        #expect(!html.contains("script"))
        #expect(html.contains("src=\"/v1/messages/part?ref=REF&amp;cid=logo@northwind.example\""))
        #expect(json["text_source"] as? String == "text/plain")
        #expect(json["remote_images"] as? [String] == ["https://t.northwind.example/o.gif"])
        let images = try #require(json["images"] as? [[String: Any]])
        #expect(images.count == 1 && images[0]["cid"] as? String == "logo@northwind.example" && images[0]["size"] as? Int == 70)
        #expect(json["attachments"] as? Int == 2)
        #expect(json["truncated"] as? Bool == false)
    }

    @Test func svgPartsAreNeverListedAsImages() throws {
        let json = try Self.json(Self.document(Self.fixture("image-with-bad-cid.eml")))
        #expect((json["images"] as? [Any])?.isEmpty == true)
        let html = try #require(json["html"] as? String)
        #expect(SanitizedTree(html).violations.isEmpty)
        #expect(html.contains("data-mw-cid=\"&quot;onerror=alert(1)\""))
    }

    @Test func htmlOnlyMessagesGetTextFromTheHTML() throws {
        let json = try Self.json(Self.document(Self.fixture("invalid-utf8.eml")))
        #expect(json["text_source"] as? String == "text/html")
        #expect((json["text"] as? String)?.hasPrefix("caf") == true)
    }

    static let malformed = ["truncated-multipart.eml", "wrong-boundary.eml", "missing-boundary-parameter.eml", "unknown-charset.eml",
                            "invalid-utf8.eml", "latin1-declared-utf8.eml", "broken-base64.eml", "broken-quoted-printable.eml",
                            "headers-only.eml", "garbage.eml", "empty.eml", "malformed-headers.eml", "attachment-only.eml",
                            "image-with-bad-cid.eml"]

    @Test(arguments: malformed)
    func malformedMessagesAnswerValidJSONOrAClearError(_ name: String) throws {
        do {
            let json = try Self.json(Self.document(Self.fixture(name)))
            #expect(json["text"] is String)
            #expect(json["headers"] is [String: Any])
            if let html = json["html"] as? String { #expect(SanitizedTree(html).violations.isEmpty) }
        } catch let error as MessageBodyError {
            #expect(error.code == .notAMessage, "\(name): \(error)")
        }
    }

    @Test func truncatedMultipartsKeepWhatArrived() throws {
        let body = try MessageBody(rfc822: Self.fixture("truncated-multipart.eml"))
        #expect(body.text == "The plain part is complete.")
        #expect(body.html?.hasPrefix("<p>The HTML part is cut in the mid") == true)
    }

    @Test func unknownCharsetsStillGiveText() throws {
        let body = try MessageBody(rfc822: Self.fixture("unknown-charset.eml"))
        #expect(body.text?.contains("Plain ASCII under a charset nobody knows.") == true)
    }

    @Test func invalidBytesAreReplacedNotFatal() throws {
        let body = try MessageBody(rfc822: Self.fixture("latin1-declared-utf8.eml"))
        #expect(body.text?.contains("e aus K") == true)
    }

    static func nested(_ levels: Int) -> [UInt8] {
        var message = "From: a@example.com\r\nSubject: Nested \(levels)\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; " +
                      "boundary=\"b0\"\r\n\r\n"
        for level in 1..<levels {
            message += "--b\(level - 1)\r\nContent-Type: multipart/mixed; boundary=\"b\(level)\"\r\n\r\n"
        }
        message += "--b\(levels - 1)\r\nContent-Type: text/plain\r\n\r\nthe bottom\r\n"
        for level in stride(from: levels - 1, through: 0, by: -1) { message += "--b\(level)--\r\n" }
        return Array(message.utf8)
    }

    @Test func fiftyLevelsOfNestingAreRead() throws {
        let body = try MessageBody(rfc822: Self.nested(50))
        #expect(body.text == "the bottom")
    }

    @Test func partsBelowSixtyFourLevelsAreNotVisited() throws {
        let body = try MessageBody(rfc822: Self.nested(80))
        #expect(body.text == nil)
        #expect(body.subject == "Nested 80")
    }

    @Test func absurdNestingIsRefusedBeforeParsing() {
        #expect(throws: MessageBodyError(.tooComplex, "the message nests more multiparts than any real message")) {
            try MessageBody(rfc822: Self.nested(5000))
        }
    }
}
