import Foundation

/// PEM (RFC 7468) armour for DER structures.
public enum PEM {
    /// Wraps `der` in `-----BEGIN label-----` lines, 64 base64 characters a line.
    public static func encode(_ der: [UInt8], label: String) -> String {
        let b64 = Data(der).base64EncodedString()
        var lines = ["-----BEGIN \(label)-----"]
        var index = b64.startIndex
        while index < b64.endIndex {
            let end = b64.index(index, offsetBy: 64, limitedBy: b64.endIndex) ?? b64.endIndex
            lines.append(String(b64[index..<end]))
            index = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Extracts the DER bytes of the first block with `label`.
    public static func decode(_ pem: String, label: String) throws(CryptoError) -> [UInt8] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        guard pem.utf8.count <= 64 * 1024,
              let start = pem.range(of: begin),
              let stop = pem.range(of: end, range: start.upperBound..<pem.endIndex)
        else {
            throw CryptoError(.invalidEncoding, "no PEM block labelled \(label)")
        }
        let body = pem[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: String(body)), !data.isEmpty else {
            throw CryptoError(.invalidEncoding, "the PEM block \(label) is not valid base64")
        }
        return Array(data)
    }
}
