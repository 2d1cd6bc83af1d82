public import MailwakeQRCode

extension QRCode {
    /// The code for a pairing or management link (error correction level M).
    public init(link: String) throws(OutpostError) {
        do {
            try self.init(link, errorCorrection: .medium)
        } catch {
            throw OutpostError(.pairing, "the link is too long for a QR code")
        }
    }
}
