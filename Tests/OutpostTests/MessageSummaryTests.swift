import Foundation
import MailwakeMail
@testable import OutpostService
import TestSupport
import Testing

@Suite("Outpost: reading messages with GMime")
struct MessageSummaryTests {
    static func summary(_ name: String) throws -> MessageSummary {
        try MessageSummary(rfc822: try RepositoryPaths.bytes("Tests/Fixtures/mail/\(name)"))
    }

    @Test func aGB2312SubjectAndGBKSenderAreDecoded() throws {
        let s = try Self.summary("gb2312-code.eml")
        #expect(s.subject == "【示例】验证码")
        #expect(s.fromName == "示例银行")
        #expect(s.fromAddress == "no-reply@bank.example")
        #expect(s.date == 1_764_381_600)
        #expect(CodeDetector.detect(subject: s.subject, body: s.visibleText)?.value == "583920")
    }

    @Test func anISO2022JPMessageIsDecoded() throws {
        let s = try Self.summary("iso-2022-jp-code.eml")
        #expect(s.subject == "認証コードのお知らせ")
        #expect(s.textPlain?.contains("493027") == true)
        #expect(CodeDetector.detect(subject: s.subject, body: s.visibleText)?.value == "493027")
    }

    @Test func aCodeOnlyInHTMLIsFoundAfterTheHTMLBecomesText() throws {
        let s = try Self.summary("html-only-code.eml")
        #expect(s.textPlain == nil)
        #expect(!s.visibleText.contains("color"), "style contents are dropped")
        #expect(CodeDetector.detect(subject: s.subject, body: s.visibleText)?.value == "730112")
    }

    @Test func aCodeAfterAHeaderElementInHTMLOnlyMailIsFound() throws {
        let html = "<html><head><title>Acme</title></head><body><header><img alt=\"Acme\"></header><p>Your verification code is " +
                   "640017</p></body></html>"
        let s = try MessageSummary(rfc822: Array("Subject: Sign in\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\(html)".utf8))
        #expect(CodeDetector.detect(subject: s.subject, body: s.visibleText)?.value == "640017")
    }

    @Test(arguments: [
        ("=?utf-8?b?MjM0ODI37J2AKOuKlCkg7ZqM7JuQ64uY7J2YIOuhnOq3uOyduCDsvZQ=?=\r\n =?utf-8?b?65Oc7J6F64uI64uk?=",
         "234827은(는) 회원님의 로그인 코드입니다"),
        ("=?iso-2022-jp?b?MzcxNzM4IBskQiRPJCIkSiQ/JE4lbSUwJSQlcyUzITwbKEI=?=\r\n =?iso-2022-jp?b?GyRCJUkkRyQ5GyhC?=",
         "371738 はあなたのログインコードです"),
        ("=?utf-8?b?w6k=?= =?utf-8?b?w6k=?= plain =?utf-8?q?caf=C3=A9?=", "éé plain café"),
    ])
    func aSubjectOfPaddedBase64WordsDecodesWhole(_ header: String, _ subject: String) throws {
        let s = try MessageSummary(rfc822: Array("Subject: \(header)\r\nFrom: a@example.com\r\n\r\nx".utf8))
        #expect(s.subject == subject)
    }

    @Test func aKOI8ROrderMessageHasNoCode() throws {
        let s = try Self.summary("koi8-r-order.eml")
        #expect(s.subject == "Ваш заказ")
        #expect(CodeDetector.detect(subject: s.subject, body: s.visibleText) == nil)
    }

    @Test func malformedHeadersAreTolerated() throws {
        let s = try Self.summary("malformed-headers.eml")
        #expect(s.subject == "Your verification code")
        #expect(s.date == 0)
        #expect(CodeDetector.detect(subject: s.subject, body: s.visibleText)?.value == "615243")
    }

    @Test func textPartsAreBoundedOnACharacterBoundary() throws {
        let body = String(repeating: "验", count: 1000)
        let raw = Array("Subject: x\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\(body)".utf8)
        let s = try MessageSummary(rfc822: raw, maxText: 1000)
        #expect(s.textPlain.map { $0.utf8.count <= 1000 && $0.allSatisfy { $0 == "验" } } == true)
    }

    @Test func inspectExplainsTheResultAsJSON() throws {
        let json = try MessageInspection.json(for: try RepositoryPaths.bytes("Tests/Fixtures/mail/gb2312-code.eml"))
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect((object?["code"] as? [String: Any])?["value"] as? String == "583920")
        #expect((object?["code"] as? [String: Any])?["near_keyword"] as? String == "验证码")
        let none = try MessageInspection.json(for: try RepositoryPaths.bytes("Tests/Fixtures/mail/koi8-r-order.eml"))
        #expect(none.contains(#""code":null"#) && none.contains("why_no_code"))
    }
}
