import MailwakeMail
import MailwakeProtocol
import Testing

@Suite("Mail: sender authenticity from Authentication-Results")
struct SenderAuthenticityTests {
    static let gmail = """
        mx.google.com; dkim=pass header.i=@example.com header.s=s1 header.b=AbCdEf12; \
        spf=pass (google.com: domain of bounce@example.com designates 192.0.2.1 as permitted sender) smtp.mailfrom=bounce@example.com; \
        dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=example.com
        """
    static let microsoft = """
        spf=pass (sender IP is 192.0.2.7) smtp.mailfrom=example.com; dkim=pass (signature was verified) header.d=example.com;\
        dmarc=pass action=none header.from=example.com;compauth=pass reason=100
        """
    static let fastmail = """
        mx4.messagingengine.com; dkim=pass (2048-bit rsa key sha256) header.d=example.com header.i=@example.com header.b="Xy/Z+1" \
        header.a=rsa-sha256 header.s=fm1 x-bits=2048; dmarc=fail policy.published-domain-policy=reject header.from=example.com; \
        spf=fail smtp.mailfrom=example.com
        """

    @Test func gmailsDMARCPassIsAPass() {
        let auth = SenderAuthenticity(trusted: ["mx.google.com"])
        #expect(auth.verdict(fields: [Self.gmail], fromAddress: "no-reply@example.com") == .pass)
    }

    @Test func exchangeOnlineWritesNoAuthservIDAndIsTrustedByDash() {
        #expect(SenderAuthenticity(trusted: ["-"]).verdict(fields: [Self.microsoft], fromAddress: "a@example.com") == .pass)
        #expect(SenderAuthenticity(trusted: ["mx.google.com"]).verdict(fields: [Self.microsoft], fromAddress: "a@example.com") == nil)
    }

    @Test func fastmailsHostsMatchAWildcardAndItsDMARCFailIsAFail() {
        let auth = SenderAuthenticity(trusted: ["*.messagingengine.com"])
        #expect(auth.verdict(fields: [Self.fastmail], fromAddress: "Bank <alerts@example.com>") == .fail)
        #expect(!auth.trusts("messagingengine.com.evil.example"))
        #expect(!auth.trusts("evilmessagingengine.com"))
    }

    @Test func aForgedFieldAboveTheTrustedOneIsIgnored() {
        let forged = "mail.attacker.example; dmarc=pass header.from=bank.example"
        let real = "mx.google.com; dmarc=fail (p=REJECT) header.from=bank.example"
        #expect(SenderAuthenticity(trusted: ["mx.google.com"]).verdict(fields: [forged, real], fromAddress: "x@bank.example") == .fail)
    }

    @Test func aFieldTheSenderWroteBelowTheTrustedOneIsIgnored() {
        let real = "mx.google.com; dmarc=fail header.from=bank.example"
        let forged = "mx.google.com; dmarc=pass header.from=bank.example"
        #expect(SenderAuthenticity(trusted: ["mx.google.com"]).verdict(fields: [real, forged], fromAddress: "x@bank.example") == .fail)
    }

    @Test func withoutTrustedServersNothingIsKnown() {
        #expect(SenderAuthenticity(trusted: []).verdict(fields: [Self.gmail], fromAddress: "a@example.com") == nil)
    }

    @Test func aDMARCResultForAnotherDomainIsNotTheSenders() {
        let field = "mx.google.com; dmarc=pass header.from=other.example"
        #expect(SenderAuthenticity(trusted: ["mx.google.com"]).verdict(fields: [field], fromAddress: "a@example.com") == nil)
    }

    @Test func withoutDMARCAnAlignedDKIMPassIsAPass() {
        let auth = SenderAuthenticity(trusted: ["mx.example.net"])
        #expect(auth.verdict(fields: ["mx.example.net; dkim=pass header.d=example.com; dmarc=none"],
                             fromAddress: "a@mail.example.com") == .pass)
        #expect(auth.verdict(fields: ["mx.example.net; dkim=pass header.d=esp.example"], fromAddress: "a@example.com") == nil)
        #expect(auth.verdict(fields: ["mx.example.net; dkim=fail header.d=example.com"], fromAddress: "a@example.com") == nil)
    }

    @Test func aTemporaryDMARCErrorIsUnknown() {
        #expect(SenderAuthenticity(trusted: ["mx.example.net"]).verdict(fields: ["mx.example.net; dmarc=temperror"],
                                                                        fromAddress: "a@example.com") == nil)
    }

    @Test func commentsQuotedStringsAndVersionsAreParsed() throws {
        let field = try #require(AuthenticationResults("mx.example.net 1 (the MX); dkim/1=pass (ok; really) header.b=\"a;b\" " +
                                                       "header.d=example.com; none"))
        #expect(field.authservID == "mx.example.net")
        #expect(field.results.count == 1)
        #expect(field.results[0].method == "dkim")
        #expect(field.results[0].properties["header.b"] == "a;b")
    }

    @Test func anOversizedOrEmptyFieldIsNotRead() {
        #expect(AuthenticationResults(String(repeating: "a", count: 9000)) == nil)
        #expect(AuthenticationResults("   ") == nil)
    }
}
