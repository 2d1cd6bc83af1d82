import Foundation
import MailwakeProtocol
import MailwakeQRCode
@testable import OutpostService
import TestSupport
import Testing

@Suite("Outpost: QR codes of pairing links")
struct QRCodeTests {
    static let link = PairingLink(outpostKey: [4] + [UInt8](repeating: 7, count: 64), relay: "https://push.example.net",
                                  environment: .production,
                                  pairingID: "AAAAAAAAAAAAAAAAAAAAAA", credential: [UInt8](repeating: 9, count: 32),
                                  expiresAt: 1_764_400_300).link

    @Test func thePNGDecodesBackToTheLink() async throws {
        let zbar = "/usr/bin/zbarimg"
        try #require(FileManager.default.isExecutableFile(atPath: zbar), "zbarimg is missing: run scripts/bootstrap")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mailwake-qr-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try QRCode(link: Self.link).writePNG(to: path)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        let decoded = try await runOffPool { try ChildProcess.run(zbar, ["--raw", "-q", path], directory: nil) }
        // zbarimg may also print a D-Bus complaint (no system bus here); the code is its own line.
        #expect(decoded.split(separator: "\n").map(String.init).contains(Self.link), "zbarimg read: \(decoded)")
    }

    @Test func theTerminalRenderingHasTwoModuleRowsALineAndAQuietZone() throws {
        let code = try QRCode(link: Self.link)
        let lines = code.terminalText.split(separator: "\n")
        #expect(lines.count == (code.size + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 4 })
        #expect(lines.first?.allSatisfy { $0 == "█" } == true, "the quiet zone is light")
    }

    @Test func theStoredPNGIsWellFormed() throws {
        let png = try QRCode(link: "hello").png(scale: 2)
        #expect(png.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(QRCode.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    }
}
