import MailwakeProtocol
import Testing

@Suite("Notification plaintext sender authenticity (§6, revision 2)")
struct SenderAuthenticationTests {
    let f: Fixtures
    init() throws { f = try Fixtures() }

    @Test func aVerdictIsWrittenAfterTheReferenceAndReadBack() throws {
        var content = f.notification(subject: "Sign in")
        content.senderAuth = .fail
        let json = String(decoding: content.jsonBytes, as: UTF8.self)
        #expect(json.hasSuffix(#","sender_auth":"fail"}"#))
        #expect(try NotificationContent.decode(content.jsonBytes).senderAuth == .fail)
    }

    @Test func anUnknownVerdictIsLeftOut() {
        #expect(!String(decoding: f.notification(subject: "x").jsonBytes, as: UTF8.self).contains("sender_auth"))
    }

    @Test func aVerdictOtherThanPassOrFailIsRefused() {
        let json = Array((#"{"mailbox":"W","folder":"INBOX","from":{"name":"","address":""},"subject":"","received_at":1,"# +
                          #""sender_auth":"maybe"}"#).utf8)
        #expect(throws: ProtocolError.self) { try NotificationContent.decode(json) }
    }

    @Test func aPaddedPlaintextKeepsTheVerdict() throws {
        var content = f.notification(subject: "x")
        content.senderAuth = .pass
        let padded = try content.paddedPlaintext(for: try f.context())
        #expect(try NotificationContent.decode(padded).senderAuth == .pass)
    }
}
