import Foundation
import MailwakeProtocol
import Testing

@Suite("JSON writer strings")
struct JSONWriterStringTests {
    @Test(arguments: [("plain", #""plain""#), ("", #""""#), ("a\"b", #""a\"b""#), ("back\\slash", #""back\\slash""#),
                      ("line\nbreak\r\t", #""line\nbreak\r\t""#), ("\u{01}\u{1F}", #""\u0001\u001f""#),
                      ("Grüße — ✓", #""Grüße — ✓""#), ("\"\"x\\", #""\"\"x\\""#), ("\u{7F}é\u{0B}", "\"\u{7F}é\\u000b\"")])
    func escapesExactlyWhatJSONRequires(value: String, json: String) {
        var out: [UInt8] = []
        JSONWriter.appendString(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == json)
        #expect(out.count == JSONWriter.encodedLength(of: value))
    }

    @Test
    func aJSONTextAsAStringRoundTrips() throws {
        let payload = #"{"aps":{"alert":{"title":"Ünïcödé \"quoted\"","body":"a\\b"},"mutable-content":1},"e":"QUJD"}"#
        var out: [UInt8] = []
        JSONWriter.appendString(payload, to: &out)
        #expect(out.count == JSONWriter.encodedLength(of: payload))
        let decoded = try JSONDecoder().decode(String.self, from: Data(out))
        #expect(decoded == payload)
    }
}
