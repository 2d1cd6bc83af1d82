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
    ///
    /// Bytes between escapes are copied a run at a time: a JSON text carried
    /// as a string (the APNs simulator's record of a payload) escapes every
    /// quote, and a byte at a time cost it a fifth of its CPU.
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        value.withContiguousUTF8 { utf8 in
            var runStart = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                appendEscape(of: b, to: &out)
                runStart = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the escape of one byte that JSON does not allow in a string.
    private static func appendEscape(of b: UInt8, to out: inout [UInt8]) {
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            // Below 0x20: \u00 then two lowercase hex digits.
            let hex = { (n: UInt8) -> UInt8 in n < 10 ? UInt8(ascii: "0") + n : UInt8(ascii: "a") + n - 10 }
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex(b >> 4), hex(b & 0xF)])
        }
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
