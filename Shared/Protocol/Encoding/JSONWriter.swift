/// A small deterministic JSON writer for protocol messages.
///
/// Keys come out in the order written and without spaces, so sizes are
/// predictable (the APNs budget of §6 depends on exact byte counts) and no
/// `JSONEncoder` configuration can change the wire bytes.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]

    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    /// Opens an object, as a value or (with `key`) as a member.
    public mutating func beginObject(_ key: String? = nil) {
        prefix(key)
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    public mutating func beginArray(_ key: String? = nil) {
        prefix(key)
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    public mutating func string(_ key: String?, _ value: String) {
        prefix(key)
        Self.appendString(value, to: &bytes)
    }

    public mutating func int(_ key: String?, _ value: Int64) {
        prefix(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func uint(_ key: String?, _ value: UInt64) {
        prefix(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func bool(_ key: String?, _ value: Bool) {
        prefix(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes `b64u(value)` as a string.
    public mutating func base64URL(_ key: String?, _ value: [UInt8]) {
        prefix(key)
        bytes.append(UInt8(ascii: "\""))
        Base64URL.append(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Inserts an already serialised JSON value verbatim.
    public mutating func raw(_ key: String?, _ json: [UInt8]) {
        prefix(key)
        bytes.append(contentsOf: json)
    }

    private mutating func prefix(_ key: String?) {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
        if let key {
            Self.appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
        }
    }

    /// Appends `value` as a JSON string: `"` and `\` escaped, control
    /// characters as `\n`, `\t`… or `\u00XX`, everything else as UTF-8.
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: copied whole.
        let copied = value.withContiguousUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            out.append(contentsOf: utf8)
            return true
        }
        if copied {
            out.append(UInt8(ascii: "\""))
            return
        }
        for b in value.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)],
                                        hex[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The serialised length of `value` as a JSON string, quotes included.
    public static func encodedLength(of value: String) -> Int {
        var n = 2
        for b in value.utf8 {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09: n += 2
            case 0x00..<0x20: n += 6
            default: n += 1
            }
        }
        return n
    }
}
