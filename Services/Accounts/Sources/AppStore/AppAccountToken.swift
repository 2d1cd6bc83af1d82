public import Foundation
import MailwakeCrypto

/// The StoreKit `appAccountToken` the App sets for a device (docs/app-store.md, "Purchases bound to a device").
///
/// `UUID(first 16 bytes of SHA-256(lp("mailwake/app-account-token/v1") ‖ device_id))`
/// with the RFC 9562 version 8 and variant bits set; `lp(x)` is `u32be(len(x)) ‖ x`
/// (PROTOCOL.md) and `device_id` is its UTF-8 text. CryptoKit reproduces it with
/// `SHA256.hash(data:)`.
public enum AppAccountToken {
    /// The domain-separation label, length-prefixed before the device id.
    public static let label = "mailwake/app-account-token/v1"

    /// The token of `deviceID` (its 22-character key id, PROTOCOL.md §2).
    public static func of(deviceID: String) -> UUID {
        var input = lengthPrefixed(Array(label.utf8))
        input.append(contentsOf: deviceID.utf8)
        var b = Array(SHA256.hash(input).bytes.prefix(16))
        b[6] = (b[6] & 0x0F) | 0x80  // version 8 (custom)
        b[8] = (b[8] & 0x3F) | 0x80  // variant 10 (RFC 9562)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    private static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        let n = UInt32(bytes.count)
        return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + bytes
    }
}
