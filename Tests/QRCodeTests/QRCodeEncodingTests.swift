import MailwakeQRCode
import Testing

/// The libqrencode wrapper: plain matrices with the structure every QR code has, and clear refusals.
@Suite("QR code encoding")
struct QRCodeEncodingTests {
    /// Whether a 7 × 7 finder pattern (dark ring, light ring, dark 3 × 3 centre) has its corner at (x, y).
    static func hasFinder(_ code: QRCode, x: Int, y: Int) -> Bool {
        for dy in 0..<7 {
            for dx in 0..<7 {
                let ring = max(abs(dx - 3), abs(dy - 3))
                if code.isDark(x + dx, y + dy) != (ring != 2) { return false }
            }
        }
        return true
    }

    @Test func shortTextIsAVersionOneCode() throws {
        let code = try QRCode("hello")
        #expect(code.version == 1)
        #expect(code.size == 21)
        #expect(code.modules.count == 21 * 21)
        #expect(code.errorCorrection == .medium)
    }

    @Test func theSizeFollowsTheVersion() throws {
        for length in [1, 20, 100, 500, 1000, 2000] {
            let code = try QRCode(String(repeating: "a", count: length))
            #expect((1...40).contains(code.version))
            #expect(code.size == 17 + 4 * code.version, "\(length) bytes")
            #expect(code.modules.count == code.size * code.size)
        }
    }

    @Test func finderPatternsStandInThreeCornersAndTimingBetweenThem() throws {
        let code = try QRCode("mailwake://pair?relay=https%3A%2F%2Fpush.example.net&id=AAAAAAAAAAAAAAAAAAAAAA")
        let far = code.size - 7
        #expect(Self.hasFinder(code, x: 0, y: 0))
        #expect(Self.hasFinder(code, x: far, y: 0))
        #expect(Self.hasFinder(code, x: 0, y: far))
        #expect(!Self.hasFinder(code, x: far, y: far))
        // The separators are light, the timing patterns alternate from dark.
        #expect((0..<8).allSatisfy { !code.isDark($0, 7) && !code.isDark(7, $0) })
        #expect((8..<far).allSatisfy { code.isDark($0, 6) == ($0 % 2 == 0) && code.isDark(6, $0) == ($0 % 2 == 0) })
        // Outside the matrix is the quiet zone.
        #expect(!code.isDark(-1, 0) && !code.isDark(0, code.size))
    }

    @Test func theSameTextGivesTheSameCodeAndMoreCorrectionNeedsMoreRoom() throws {
        let text = String(repeating: "pairing link ", count: 20)
        #expect(try QRCode(text) == QRCode(text))
        let low = try QRCode(text, errorCorrection: .low)
        let high = try QRCode(text, errorCorrection: .high)
        #expect(low.version < high.version)
        #expect(low.modules != high.modules)
    }

    @Test func bytesWithNULAreEncoded() throws {
        let code = try QRCode(bytes: [0x00, 0xFF, 0x00, 0x41])
        #expect(code.version == 1)
    }

    @Test func theLargestCodeHoldsItsCapacityAndNoMore() throws {
        // Byte mode, version 40: 2953 bytes at L, 2331 at M, 1663 at Q, 1273 at H.
        for (level, capacity) in [(QRCode.ErrorCorrection.low, 2953), (.medium, 2331), (.quartile, 1663), (.high, 1273)] {
            let fits = try QRCode(String(repeating: "x", count: capacity), errorCorrection: level)
            #expect(fits.version == 40 && fits.size == 177)
            #expect(throws: QRCodeError.tooLong(bytes: capacity + 1, errorCorrection: level)) {
                try QRCode(String(repeating: "x", count: capacity + 1), errorCorrection: level)
            }
        }
    }

    @Test func emptyAndHugeInputAreRefusedClearly() {
        #expect(throws: QRCodeError.empty) { try QRCode("") }
        #expect(throws: QRCodeError.tooLong(bytes: 100_000, errorCorrection: .medium)) {
            try QRCode(bytes: [UInt8](repeating: 0x61, count: 100_000))
        }
        #expect(QRCodeError.tooLong(bytes: 3000,
                                    errorCorrection: .medium).description == "3000 bytes do not fit a QR code at error correction " +
                                                                             "level medium")
    }
}
