import MailwakeCrypto
import MailwakeProtocol
import Testing

@Suite("Base64url")
struct Base64URLTests {
    @Test(arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
                      ("foobar", "Zm9vYmFy")])
    func encodesTheRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test(arguments: ["Zg==", "Zm8=", "+/+/", "Zm9v\n", "Z", "Zm9vY", "Zm 9v", "Zm9v!"])
    func rejectsPaddingForeignCharactersAndImpossibleLengths(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func rejectsNonCanonicalTrailingBits() {
        #expect(Base64URL.decode("Zh") == nil)   // 'f' is Zg; Zh sets a padding bit
        #expect(Base64URL.decode("Zm9") == nil)  // 'fo' is Zm8
    }

    @Test func roundTripsRandomBytesOfEveryLengthUpTo70() throws {
        for n in 0...70 {
            let bytes = try SecureRandom.bytes(n)
            let text = Base64URL.encode(bytes)
            #expect(text.utf8.count == Base64URL.encodedLength(of: n))
            #expect(Base64URL.decode(text) == bytes)
        }
    }

    @Test func appendingWritesAfterWhatIsThereAndMatchesEncode() throws {
        for n in 0...70 {
            let bytes = try SecureRandom.bytes(n)
            var out = Array("prefix:".utf8)
            Base64URL.append(bytes, to: &out)
            #expect(out == Array("prefix:".utf8) + Array(Base64URL.encode(bytes).utf8))
            // A collection without contiguous storage takes the other path, to the same bytes.
            var fromLazy: [UInt8] = []
            Base64URL.append(bytes.lazy.map { $0 }, to: &fromLazy)
            #expect(fromLazy == Array(Base64URL.encode(bytes).utf8))
            #expect(Base64URL.decode(String(decoding: fromLazy, as: UTF8.self)) == bytes)
        }
    }
}
