import MailwakeProtocol
import Testing

@Suite("JSON writer strings")
struct JSONWriterStringTests {
    @Test(arguments: [("plain", #""plain""#), ("", #""""#), ("a\"b", #""a\"b""#), ("back\\slash", #""back\\slash""#),
                      ("line\nbreak\r\t", #""line\nbreak\r\t""#), ("\u{01}\u{1F}", #""\u0001\u001f""#),
                      ("Grüße — ✓", #""Grüße — ✓""#)])
    func escapesExactlyWhatJSONRequires(value: String, json: String) {
        var out: [UInt8] = []
        JSONWriter.appendString(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == json)
        #expect(out.count == JSONWriter.encodedLength(of: value))
    }
}
