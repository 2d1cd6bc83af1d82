import MailwakeCrypto
import MailwakeErrors
import MailwakeProtocol
import Testing

/// The one shape of Mailwake's errors: a module's own code, a message, `code: message` unless the error says more.
@Suite("Errors: one shape with per-module codes")
struct CodedErrorTests {
    static func codeAndMessage(_ error: some CodedError) -> (String, String) { (error.code.rawValue, error.message) }

    @Test func anyModulesErrorGivesItsCodeAndMessageThroughTheProtocol() {
        #expect(Self.codeAndMessage(ProtocolError(.clockSkew, "too far ahead")) == ("clock_skew", "too far ahead"))
        #expect(Self.codeAndMessage(CryptoError(.invalidPublicKey, "not on the curve")) == ("invalid_public_key", "not on the curve"))
    }

    @Test func theDescriptionIsCodeThenMessage() {
        #expect(ProtocolError(.replayed, "nonce seen").description == "replayed: nonce seen")
        #expect(ProtocolError.Code.badMAC.description == "bad_mac")
    }

    @Test func codesAreComparedByTheirSpelling() {
        #expect(ProtocolError.Code(rawValue: "wrong_key") == .wrongKey)
        #expect(ProtocolError.Code(rawValue: "wrong-key") != .wrongKey)
    }
}
