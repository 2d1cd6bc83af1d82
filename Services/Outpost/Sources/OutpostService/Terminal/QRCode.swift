import CLibQREncode

/// A QR code (libqrencode) for a pairing or management link, drawn in the
/// terminal with half-block characters or written as a PNG.
public struct QRCode: Sendable {
    /// Modules per side.
    public let size: Int
    /// Row-major, true for a dark module.
    public let modules: [Bool]

    /// Encodes `text` (byte mode, error correction level M).
    public init(_ text: String) throws(OutpostError) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw OutpostError(.pairing, "the link is too long for a QR code")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    func isDark(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }

    /// The code for a terminal: two module rows per text line (upper and
    /// lower half blocks), dark on light with a 2-module quiet zone, so it
    /// scans on dark and light terminal themes alike.
    public var terminalText: String {
        let quiet = 2
        var lines: [String] = []
        var y = -quiet
        while y < size + quiet {
            var line = ""
            for x in -quiet..<(size + quiet) {
                switch (isDark(x, y), isDark(x, y + 1)) {
                case (false, false): line += "█"
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (true, true): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}
