@testable import MailwakeHTTPServer
import Testing

@Suite struct RequestIDTests {
    @Test func identifiersAreSixteenLowerCaseHexDigits() {
        for _ in 0..<100 {
            let id = RequestID.generate()
            #expect(id.count == 16)
            #expect(id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        }
    }

    @Test func identifiersDoNotRepeat() {
        let ids = (0..<50_000).map { _ in RequestID.generate() }
        #expect(Set(ids).count == ids.count)
    }

    @Test func consecutiveIdentifiersAreNoVisibleSequence() {
        let a = UInt64(RequestID.generate(), radix: 16)!
        let b = UInt64(RequestID.generate(), radix: 16)!
        // SplitMix64 spreads a difference of one over about half the bits.
        #expect((a ^ b).nonzeroBitCount >= 8)
    }

    @Test func theMixIsTheReferenceSplitMix64Finalizer() {
        // SplitMix64 with seed 0: the first output is mix(0x9e3779b97f4a7c15).
        #expect(RequestID.mix(0x9e37_79b9_7f4a_7c15) == 0xe220_a839_7b1d_cdaf)
        #expect(RequestID.hex(0x0123_4567_89ab_cdef) == "0123456789abcdef")
    }
}
