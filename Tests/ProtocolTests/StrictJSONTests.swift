import MailwakeProtocol
import Testing

@Suite("Strict JSON")
struct StrictJSONTests {
    func code(_ text: String, limits: StrictJSON.Limits = .init()) -> String? {
        do {
            try StrictJSON.validate(Array(text.utf8), limits: limits)
            return nil
        } catch {
            return error.code.rawValue
        }
    }

    @Test func acceptsOrdinaryDocuments() {
        #expect(code(#"{"a":[1,-2,0,{"b":"\u00e9\n"}],"c":true,"d":null,"e":"季度"}"#) == nil)
        #expect(code(" [ ] ") == nil)
    }

    @Test func rejectsDuplicateKeysEvenWhenEscapedDifferently() {
        #expect(code(#"{"a":1,"a":2}"#) == "malformed")
        #expect(code(#"{"a":1,"\u0061":2}"#) == "malformed")
        #expect(code(#"{"x":{"n":1,"\n":2}}"#) == nil)
        #expect(code(#"{"x":{"\n":1,"\u000a":2}}"#) == "malformed")
    }

    @Test func rejectsFractionsAndExponentsUnlessAllowed() {
        #expect(code(#"{"iat":1.0}"#) == "malformed")
        #expect(code(#"{"iat":1e3}"#) == "malformed")
        #expect(code(#"{"iat":1.5}"#, limits: .init(allowFractions: true)) == nil)
    }

    @Test(arguments: [#"{"a":01}"#, #"{"a":-}"#, #"{"a":+1}"#, #"{"a":.5}"#, #"{"a":1,}"#, #"{a:1}"#, #"{"a":tru}"#, #"["\x"]"#, "{} {}",
                      "", #"["\u12"]"#])
    func rejectsMalformedSyntax(text: String) {
        #expect(code(text) == "malformed")
    }

    @Test func rejectsLoneSurrogatesControlCharactersAndInvalidUTF8() {
        #expect(code(#"["\ud800"]"#) == "malformed")
        #expect(code(#"["\udc00\ud800"]"#) == "malformed")
        #expect(code("[\"a\u{01}b\"]") == "malformed")
        #expect((try? StrictJSON.validate([0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D])) == nil, "overlong encoding")
        #expect((try? StrictJSON.validate([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D])) == nil, "encoded surrogate")
        #expect(code(#"["\ud83d\ude00"]"#) == nil, "a valid surrogate pair")
    }

    @Test func enforcesDepthAndSizeLimits() {
        #expect(code(String(repeating: "[", count: 17) + String(repeating: "]", count: 17)) == "malformed")
        #expect(code(String(repeating: "[", count: 16) + String(repeating: "]", count: 16)) == nil)
        #expect(code("[" + String(repeating: "1,", count: 40) + "1]", limits: .init(maxBytes: 50)) == "too_large")
    }

    @Test func integersAreReadAtTheirPlaceInTheDocumentUpToTheEdgesOfInt64() throws {
        let document = #"{"min":-9223372036854775808,"max":9223372036854775807,"zero":0,"small":-12,"over":9223372036854775808}"#
        let fields = try StrictJSON.Fields(StrictJSON.parse(Array(document.utf8)), allowed: ["min", "max", "zero", "small", "over"],
                                           in: "test")
        #expect(try fields.int64("min") == Int64.min)
        #expect(try fields.int64("max") == Int64.max)
        #expect(try fields.int64("zero") == 0)
        #expect(try fields.int64("small") == -12)
        #expect(throws: ProtocolError.self) { try fields.int64("over") }
    }
}
