@testable import MailwakeIMAP
import Testing

@Suite struct EncodingTests {
    @Test(arguments: [
        ("INBOX", "INBOX"),
        ("Entwürfe", "Entw&APw-rfe"),
        ("已发送", "&XfJT0ZAB-"),
        ("Tom & Jerry", "Tom &- Jerry"),
        ("~peter/mail/台北/日本語", "~peter/mail/&U,BTFw-/&ZeVnLIqe-"),
    ])
    func folderNamesRoundTripThroughModifiedUTF7(_ name: String, _ encoded: String) {
        #expect(ModifiedUTF7.encode(name) == encoded)
        #expect(ModifiedUTF7.decode(encoded) == name)
    }

    @Test func invalidModifiedUTF7IsRefused() {
        #expect(ModifiedUTF7.decode("&Jjo") == nil)   // no closing '-'
        #expect(ModifiedUTF7.decode("&*-") == nil)    // not in the alphabet
    }

    @Test func internalDatesBecomeUnixSeconds() {
        #expect(IMAPDate.unixSeconds("17-Jul-1996 02:44:25 -0700") == 837_596_665)
        #expect(IMAPDate.unixSeconds(" 1-Jan-2026 00:00:00 +0000") == 1_767_225_600)
        #expect(IMAPDate.unixSeconds("yesterday") == nil)
        #expect(IMAPDate.unixSeconds("17-Foo-1996 02:44:25 -0700") == nil)
    }

    @Test func argumentsThatAQuotedStringCannotCarryBecomeLiterals() {
        guard case .quoted = IMAPArgument.string("p@ss w\"ord") else {
            Issue.record("ASCII should be quoted")
            return
        }
        guard case .literal(let bytes) = IMAPArgument.string("pässwörd") else {
            Issue.record("8-bit needs a literal")
            return
        }
        #expect(bytes == Array("pässwörd".utf8))
        #expect(IMAPArgument.quote("a\"b\\c") == "\"a\\\"b\\\\c\"")
    }
}
