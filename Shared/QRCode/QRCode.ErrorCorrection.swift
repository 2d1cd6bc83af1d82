import CQREncodeShims

extension QRCode {
    /// How much of a code may be damaged and still read: about 7, 15, 25 or 30 %.
    public enum ErrorCorrection: Sendable, Hashable, CaseIterable {
        case low, medium, quartile, high

        var shimLevel: Int32 {
            switch self {
            case .low: Int32(MW_QR_LEVEL_L)
            case .medium: Int32(MW_QR_LEVEL_M)
            case .quartile: Int32(MW_QR_LEVEL_Q)
            case .high: Int32(MW_QR_LEVEL_H)
            }
        }
    }
}
