/// A minimal POSIX ustar archive of regular files: what `backup` writes and
/// `restore` reads (GNU tar lists and extracts it too).
struct TarArchive {
    struct Entry: Equatable {
        var name: String
        var mode: Int
        var bytes: [UInt8]
    }

    static let block = 512

    static func write(_ entries: [Entry], mtime: Int64) -> [UInt8] {
        var out: [UInt8] = []
        for e in entries {
            var header = [UInt8](repeating: 0, count: block)
            put(&header, 0, 100, Array(e.name.utf8))
            put(&header, 100, 8, octal(e.mode, width: 7))
            put(&header, 108, 8, octal(0, width: 7))
            put(&header, 116, 8, octal(0, width: 7))
            put(&header, 124, 12, octal(e.bytes.count, width: 11))
            put(&header, 136, 12, octal(Int(mtime), width: 11))
            header[156] = UInt8(ascii: "0")
            put(&header, 257, 6, Array("ustar".utf8) + [0])
            put(&header, 263, 2, Array("00".utf8))
            for i in 148..<156 { header[i] = 0x20 }
            let sum = header.reduce(0) { $0 + Int($1) }
            put(&header, 148, 8, octal(sum, width: 6) + [0, 0x20])
            out += header
            out += e.bytes
            out += [UInt8](repeating: 0, count: (block - e.bytes.count % block) % block)
        }
        return out + [UInt8](repeating: 0, count: 2 * block)
    }

    /// The entries, or nil when `data` is not a well-formed archive.
    static func read(_ data: [UInt8]) -> [Entry]? {
        var entries: [Entry] = []
        var offset = 0
        while offset + block <= data.count {
            let header = Array(data[offset..<(offset + block)])
            if header.allSatisfy({ $0 == 0 }) { return entries }
            var check = header
            for i in 148..<156 { check[i] = 0x20 }
            guard let sum = parseOctal(header[148..<156]), sum == check.reduce(0, { $0 + Int($1) }),
                  let size = parseOctal(header[124..<136]), let mode = parseOctal(header[100..<108]),
                  header[156] == UInt8(ascii: "0") || header[156] == 0
            else { return nil }
            let nameBytes = header[0..<100].prefix { $0 != 0 }
            guard let name = String(validating: nameBytes, as: UTF8.self), offset + block + size <= data.count else { return nil }
            entries.append(Entry(name: name, mode: mode, bytes: Array(data[(offset + block)..<(offset + block + size)])))
            offset += block + (size + block - 1) / block * block
        }
        return nil
    }

    private static func put(_ header: inout [UInt8], _ at: Int, _ width: Int, _ bytes: [UInt8]) {
        for (i, b) in bytes.prefix(width).enumerated() { header[at + i] = b }
    }

    private static func octal(_ value: Int, width: Int) -> [UInt8] {
        let digits = Array(String(value, radix: 8).utf8)
        return [UInt8](repeating: UInt8(ascii: "0"), count: max(0, width - digits.count)) + digits
    }

    private static func parseOctal(_ field: ArraySlice<UInt8>) -> Int? {
        let text = field.prefix { $0 != 0 && $0 != 0x20 }
        guard !text.isEmpty else { return 0 }
        return Int(String(decoding: text, as: UTF8.self), radix: 8)
    }
}
