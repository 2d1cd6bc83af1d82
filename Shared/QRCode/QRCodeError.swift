/// Why text could not be made into a QR code.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is nothing to encode.
    case empty
    /// The data does not fit the largest code (version 40) at this error correction level.
    case tooLong(bytes: Int, errorCorrection: QRCode.ErrorCorrection)
    /// libqrencode failed otherwise (out of memory).
    case encodingFailed

    public var description: String {
        switch self {
        case .empty: "there is nothing to encode in a QR code"
        case .tooLong(let bytes, let level): "\(bytes) bytes do not fit a QR code at error correction level \(level)"
        case .encodingFailed: "libqrencode could not encode the QR code"
        }
    }
}
