import CQREncodeShims

/// A QR code as a matrix of modules (libqrencode, byte mode), for callers to draw.
public struct QRCode: Sendable, Hashable {
    /// The version, 1…40 (the smallest that holds the data).
    public let version: Int
    /// Modules per side (17 + 4 × version), quiet zone not included.
    public let size: Int
    /// Row-major, `size × size`, true for a dark module.
    public let modules: [Bool]
    /// The error correction level the code was made with.
    public let errorCorrection: ErrorCorrection

    /// Encodes the UTF-8 bytes of `text` in byte mode.
    public init(_ text: String, errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection)
    }

    /// Encodes `bytes` in byte mode, in the smallest version that holds them.
    public init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        guard !bytes.isEmpty else { throw QRCodeError.empty }
        let maxWidth = Int(MW_QR_MAX_WIDTH)
        var buffer = [UInt8](repeating: 0, count: maxWidth * maxWidth)
        var version: Int32 = 0
        let width = bytes.withUnsafeBufferPointer { data in
            buffer.withUnsafeMutableBufferPointer {
                mw_qr_encode(data.baseAddress, data.count, errorCorrection.shimLevel, $0.baseAddress, $0.count, &version)
            }
        }
        switch width {
        case 21...Int32(maxWidth):
            break
        case Int32(MW_QR_TOO_LONG):
            throw QRCodeError.tooLong(bytes: bytes.count, errorCorrection: errorCorrection)
        default:
            throw QRCodeError.encodingFailed
        }
        self.version = Int(version)
        self.size = Int(width)
        self.modules = buffer.prefix(Int(width) * Int(width)).map { $0 == 1 }
        self.errorCorrection = errorCorrection
    }

    /// Whether the module at column `x`, row `y` is dark; false outside the code (the quiet zone).
    public func isDark(_ x: Int, _ y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }
}
