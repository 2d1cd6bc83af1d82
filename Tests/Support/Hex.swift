/// Hexadecimal helpers for test vectors.
public enum Hex {
    /// Decodes hex (either case, no separators); traps on bad input, which is
    /// a broken fixture rather than a test outcome.
    public static func decode(_ s: String) -> [UInt8] {
        let chars = Array(s.utf8)
        precondition(chars.count % 2 == 0, "odd-length hex in a fixture")
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            out.append(nibble(chars[i]) << 4 | nibble(chars[i + 1]))
            i += 2
        }
        return out
    }

    /// Lower-case hex.
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: preconditionFailure("invalid hex digit in a fixture")
        }
    }
}

extension Array where Element == UInt8 {
    /// A copy with bit `bit` (0 = most significant of byte 0) flipped.
    public func flippingBit(_ bit: Int) -> [UInt8] {
        var copy = self
        copy[bit / 8] ^= 0x80 >> UInt8(bit % 8)
        return copy
    }
}
