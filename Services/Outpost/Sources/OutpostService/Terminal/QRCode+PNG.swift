import Foundation
public import MailwakeQRCode

extension QRCode {
    /// A grayscale PNG, `scale` pixels a module and a 4-module quiet zone
    /// (the image is stored, not compressed: a few kilobytes).
    public func png(scale: Int = 8) -> [UInt8] {
        let quiet = 4
        let side = (size + 2 * quiet) * scale
        var raw: [UInt8] = []
        raw.reserveCapacity(side * (side + 1))
        for py in 0..<side {
            raw.append(0)  // filter: none
            let y = py / scale - quiet
            for px in 0..<side {
                raw.append(isDark(px / scale - quiet, y) ? 0 : 255)
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += Self.bigEndian(UInt32(side))
        header += Self.bigEndian(UInt32(side))
        header += [8, 0, 0, 0, 0]  // 8-bit grayscale, deflate, no filter, no interlace
        png += Self.chunk("IHDR", header)
        png += Self.chunk("IDAT", Self.zlibStored(raw))
        png += Self.chunk("IEND", [])
        return png
    }

    /// Writes the PNG to `path`, mode 0600 from creation (the link carries a
    /// credential); a file or symlink at `path` is replaced, never followed.
    public func writePNG(to path: String, scale: Int = 8) throws(OutpostError) {
        try SecretFile.replace(at: path, bytes: png(scale: scale), code: .pairing)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// zlib framing around deflate "stored" blocks (RFC 1950/1951).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let last: UInt8 = offset + n >= data.count ? 1 : 0
            out.append(last)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<(offset + n)]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian((b << 16) | a)
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}
