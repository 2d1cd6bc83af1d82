/// IMAP's modified UTF-7 for mailbox names (RFC 3501 §5.1.3): printable
/// ASCII as itself (`&` as `&-`), anything else as `&` + modified base64 of
/// UTF-16BE + `-`.
public enum ModifiedUTF7 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,".utf8)

    public static func encode(_ name: String) -> String {
        var out = ""
        var pending: [UInt16] = []
        func flush() {
            guard !pending.isEmpty else { return }
            var bytes: [UInt8] = []
            for unit in pending { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            var encoded = "&"
            var i = 0
            while i < bytes.count {
                let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
                let chars = [b0 >> 2, ((b0 & 3) << 4) | (b1 >> 4), ((b1 & 0xF) << 2) | (b2 >> 6), b2 & 0x3F]
                let left = bytes.count - i
                let count = left >= 3 ? 4 : left + 1
                for c in chars.prefix(count) { encoded.append(Character(Unicode.Scalar(alphabet[Int(c)]))) }
                i += 3
            }
            out += encoded + "-"
            pending = []
        }
        for scalar in name.unicodeScalars {
            if scalar.value >= 0x20, scalar.value <= 0x7E {
                flush()
                out += scalar == "&" ? "&-" : String(scalar)
            } else {
                pending += Array(String(scalar).utf16)
            }
        }
        flush()
        return out
    }

    /// The mailbox name `encoded` stands for; nil when it is not valid modified UTF-7.
    public static func decode(_ encoded: String) -> String? {
        var out = ""
        var chars = Array(encoded.utf8)[...]
        while let c = chars.popFirst() {
            guard c == UInt8(ascii: "&") else {
                out.append(Character(Unicode.Scalar(c)))
                continue
            }
            guard let end = chars.firstIndex(of: UInt8(ascii: "-")) else { return nil }
            let run = chars[chars.startIndex..<end]
            chars = chars[(end + 1)...]
            if run.isEmpty {
                out += "&"
                continue
            }
            var bits = 0, value = 0
            var bytes: [UInt8] = []
            for ch in run {
                guard let index = alphabet.firstIndex(of: ch) else { return nil }
                value = (value << 6) | index
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    bytes.append(UInt8((value >> bits) & 0xFF))
                }
            }
            guard bytes.count % 2 == 0 else { return nil }
            var units: [UInt16] = []
            for i in stride(from: 0, to: bytes.count, by: 2) { units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])) }
            guard let decoded = String(validating: units, as: UTF16.self) else { return nil }
            out += decoded
        }
        return out
    }
}
