public import Foundation
import MailwakeCrypto

/// Event identifiers: lower-case UUIDv7 strings (PROTOCOL.md §2, RFC 9562).
public enum EventID {
    /// A fresh UUIDv7 for `date`: 48-bit Unix milliseconds, version 7, 74 random bits.
    public static func generate(at date: Date = Date()) throws(ProtocolError) -> String {
        let millis = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        var bytes: [UInt8]
        do { bytes = try SecureRandom.bytes(16) } catch { throw ProtocolError(.internalFailure, "random generator failed") }
        for k in 0..<6 { bytes[k] = UInt8(truncatingIfNeeded: millis >> UInt64(40 - 8 * k)) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-" + String(h[20..<32])
    }

    /// Whether `id` is a lower-case UUIDv7 string (version 7, RFC 9562 variant).
    public static func isValid(_ id: String) -> Bool {
        guard id.utf8.count == 36 else { return false }
        return id.withContiguousUTF8 { u in
            for (k, c) in u.enumerated() {
                if k == 8 || k == 13 || k == 18 || k == 23 {
                    guard c == UInt8(ascii: "-") else { return false }
                } else {
                    guard (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                        || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) else { return false }
                }
            }
            guard u[14] == UInt8(ascii: "7") else { return false }
            let variant = u[19]
            return variant == UInt8(ascii: "8") || variant == UInt8(ascii: "9") || variant == UInt8(ascii: "a")
                || variant == UInt8(ascii: "b")
        }
    }

    /// The creation time encoded in a UUIDv7, in Unix milliseconds.
    public static func timestampMillis(of id: String) -> UInt64? {
        guard isValid(id) else { return nil }
        let hex = id.replacingOccurrences(of: "-", with: "").prefix(12)
        return UInt64(hex, radix: 16)
    }

    static func check(_ id: String) throws(ProtocolError) {
        guard isValid(id) else { throw .malformed("event_id must be a lower-case UUIDv7") }
    }
}
