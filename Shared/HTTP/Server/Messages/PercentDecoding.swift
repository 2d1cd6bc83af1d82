/// Percent-decoding of URL paths and queries.
enum PercentDecoding {
    /// Decodes `%XX` (and `+` as a space when asked); nil for a broken
    /// escape or bytes that are not UTF-8.
    static func decode(_ s: Substring, plusIsSpace: Bool = false) -> String? {
        var out = [UInt8]()
        out.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        while let b = it.next() {
            switch b {
            case UInt8(ascii: "%"):
                guard let h = it.next(), let l = it.next(), let hi = hex(h), let lo = hex(l) else { return nil }
                out.append(hi << 4 | lo)
            case UInt8(ascii: "+") where plusIsSpace:
                out.append(0x20)
            default:
                out.append(b)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
