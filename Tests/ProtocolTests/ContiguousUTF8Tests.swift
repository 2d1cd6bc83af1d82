import MailwakeProtocol
import Testing

@Suite("UTF-8 bytes of strings, compared and scanned in place")
struct ContiguousUTF8Tests {
    @Test(arguments: [("pairing_id", "pairing_id", true), ("pairing_id", "pairing_ie", false), ("kind", "kinds", false),
                      ("", "", true), ("", "v", false), ("Grüße", "Grüße", true), ("Grüße", "Grusse", false)])
    func bytesAreTheUTF8OfAStringOnlyWhenEveryByteMatches(bytes: String, text: String, same: Bool) {
        let slice = Array(bytes.utf8)[...]
        #expect(slice.isUTF8(of: text) == same)
    }

    @Test func aSliceInTheMiddleOfItsArrayComparesFromItsOwnStart() {
        let document = Array(#"{"event_id":1}"#.utf8)
        let key = document[2..<10]
        #expect(key.isUTF8(of: "event_id"))
        #expect(!key.isUTF8(of: "{\"event_i"))
    }

    @Test func aSubstringHandsOverOnlyItsOwnBytes() {
        let target = "/v1/envelopes?wait=30"
        let path = target[..<target.firstIndex(of: "?")!]
        #expect(path.withContiguousUTF8 { Array($0) } == Array("/v1/envelopes".utf8))
        #expect(Array("/v1/envelopes".utf8)[...].isUTF8(of: path))
    }
}
