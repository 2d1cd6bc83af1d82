import Foundation

/// Strict JSON decoding for protocol messages.
///
/// Foundation's `JSONDecoder` accepts duplicate keys (keeping the first),
/// `1.0` and `1e2` for integers, and ignores unknown keys. Protocol messages
/// are signed or security relevant, so ambiguity is refused: a validating pass
/// rejects duplicate keys, fractions and exponents, excessive nesting and
/// oversize documents before decoding, and each message type rejects unknown
/// keys in its `init(from:)` (see `Decoder.rejectUnknownKeys`).
public enum StrictJSON {
    /// Limits applied by `decode`.
    public struct Limits: Sendable {
        /// The maximum document size in bytes.
        public var maxBytes: Int
        /// The maximum nesting depth of arrays and objects.
        public var maxDepth: Int
        /// Whether numbers may have a fraction or an exponent.
        public var allowFractions: Bool

        /// - Parameters:
        ///   - maxBytes: default 64 KiB.
        ///   - maxDepth: default 16.
        ///   - allowFractions: default false (protocol numbers are integers).
        public init(maxBytes: Int = 64 * 1024, maxDepth: Int = 16, allowFractions: Bool = false) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.allowFractions = allowFractions
        }
    }

    /// Validates `data` and decodes a `T`, mapping every failure to `malformed`
    /// (or `tooLarge` for size).
    public static func decode<T: Decodable>(_ type: T.Type, from data: [UInt8], limits: Limits = Limits()) throws(ProtocolError) -> T {
        try validate(data, limits: limits)
        do {
            return try JSONDecoder().decode(T.self, from: Data(data))
        } catch let error as ProtocolError {
            throw error
        } catch let DecodingError.keyNotFound(key, _) {
            throw .malformed("missing field \(key.stringValue)")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .malformed("wrong type at \(path(context))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw .malformed("null at \(path(context))")
        } catch let DecodingError.dataCorrupted(context) {
            throw .malformed("invalid value at \(path(context)): \(context.debugDescription)")
        } catch {
            throw .malformed("not valid JSON for \(T.self)")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let p = context.codingPath.map(\.stringValue).joined(separator: ".")
        return p.isEmpty ? "the top level" : p
    }

    /// Checks well-formedness (RFC 8259), size, depth, duplicate keys and numbers.
    public static func validate(_ data: [UInt8], limits: Limits = Limits()) throws(ProtocolError) {
        _ = try parse(data, limits: limits)
    }

    /// Parses `data` under the rules of `validate` into a `Value` tree, in one pass.
    public static func parse(_ data: [UInt8], limits: Limits = Limits()) throws(ProtocolError) -> Value {
        guard data.count <= limits.maxBytes else {
            throw ProtocolError(.tooLarge, "JSON document over \(limits.maxBytes) bytes")
        }
        var parser = Parser(bytes: data, limits: limits)
        return try parser.run()
    }

    private struct Parser {
        let bytes: [UInt8]
        let limits: Limits
        var i = 0

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        mutating func run() throws(ProtocolError) -> Value {
            skipSpace()
            let v = try value(depth: 0)
            skipSpace()
            guard i == bytes.count else { throw fail("trailing bytes after the JSON value") }
            return v
        }

        func fail(_ what: String) -> ProtocolError { .malformed("invalid JSON at byte \(i): \(what)") }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        mutating func value(depth: Int) throws(ProtocolError) -> Value {
            guard i < bytes.count else { throw fail("unexpected end") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return .object(try object(depth: depth + 1))
            case UInt8(ascii: "["): return .array(try array(depth: depth + 1))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return try number()
            }
        }

        mutating func literal(_ word: StaticString) throws(ProtocolError) {
            let n = word.utf8CodeUnitCount
            guard i + n <= bytes.count else { throw fail("unexpected end") }
            let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
            for k in 0..<n where bytes[i + k] != w[k] { throw fail("unknown literal") }
            i += n
        }

        mutating func object(depth: Int) throws(ProtocolError) -> [Member] {
            guard depth <= limits.maxDepth else { throw fail("nesting deeper than \(limits.maxDepth)") }
            i += 1
            var members: [Member] = []
            // Room for a protocol message's fields at once (an envelope has 13), not grown 1, 2, 4, 8, 16.
            members.reserveCapacity(16)
            var keys: Set<ArraySlice<UInt8>>?
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return members }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try string()
                // Protocol objects are small: a linear scan beats hashing
                // until an object grows large.
                if keys != nil {
                    guard keys!.insert(key).inserted else { throw fail("duplicate key") }
                } else {
                    guard !members.contains(where: { $0.key == key }) else { throw fail("duplicate key") }
                    if members.count == 15 { keys = Set(members.map(\.key) + [key]) }
                }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                i += 1
                skipSpace()
                members.append(Member(key: key, value: try value(depth: depth)))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return members }
                throw fail("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(ProtocolError) -> [Value] {
            guard depth <= limits.maxDepth else { throw fail("nesting deeper than \(limits.maxDepth)") }
            i += 1
            var elements: [Value] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return elements }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return elements }
                throw fail("expected ',' or ']'")
            }
        }

        /// Returns the unescaped UTF-8 bytes of the string.
        mutating func string() throws(ProtocolError) -> ArraySlice<UInt8> {
            i += 1
            let start = i
            // Without escapes the string is a slice of the document: no copy.
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return bytes[start..<i - 1]
                }
                if c == UInt8(ascii: "\\") { break }
                if c < 0x20 { throw fail("control character in a string") }
                i += c < 0x80 ? 1 : try utf8Length(at: i)
            }
            var decoded = Array(bytes[start..<i])
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return decoded[...]
                }
                if c < 0x20 { throw fail("control character in a string") }
                if c == UInt8(ascii: "\\") {
                    guard i + 1 < bytes.count else { throw fail("unexpected end") }
                    let e = bytes[i + 1]
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        let unescaped: UInt8
                        switch e {
                        case UInt8(ascii: "b"): unescaped = 0x08
                        case UInt8(ascii: "f"): unescaped = 0x0C
                        case UInt8(ascii: "n"): unescaped = 0x0A
                        case UInt8(ascii: "r"): unescaped = 0x0D
                        case UInt8(ascii: "t"): unescaped = 0x09
                        default: unescaped = e
                        }
                        decoded.append(unescaped)
                        i += 2
                    case UInt8(ascii: "u"):
                        guard i + 6 <= bytes.count else { throw fail("short \\u escape") }
                        var cp: UInt32 = 0
                        for k in 2..<6 {
                            guard let h = hex(bytes[i + k]) else { throw fail("bad \\u escape") }
                            cp = cp << 4 | UInt32(h)
                        }
                        i += 6
                        if (0xD800...0xDBFF).contains(cp) {
                            guard i + 6 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                                throw fail("unpaired surrogate")
                            }
                            var lo: UInt32 = 0
                            for k in 2..<6 {
                                guard let h = hex(bytes[i + k]) else { throw fail("bad \\u escape") }
                                lo = lo << 4 | UInt32(h)
                            }
                            guard (0xDC00...0xDFFF).contains(lo) else { throw fail("unpaired surrogate") }
                            i += 6
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(cp) {
                            throw fail("unpaired surrogate")
                        }
                        decoded.append(contentsOf: Array(String(Character(Unicode.Scalar(cp)!)).utf8))
                    default:
                        throw fail("unknown escape")
                    }
                    continue
                }
                // Validate one UTF-8 sequence.
                let len = try utf8Length(at: i)
                decoded.append(contentsOf: bytes[i..<i + len])
                i += len
            }
            throw fail("unterminated string")
        }

        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }

        func utf8Length(at p: Int) throws(ProtocolError) -> Int {
            let c = bytes[p]
            let len: Int
            let minCP: UInt32
            var cp: UInt32
            switch c {
            case 0x00...0x7F: return 1
            case 0xC2...0xDF: len = 2; cp = UInt32(c & 0x1F); minCP = 0x80
            case 0xE0...0xEF: len = 3; cp = UInt32(c & 0x0F); minCP = 0x800
            case 0xF0...0xF4: len = 4; cp = UInt32(c & 0x07); minCP = 0x10000
            default: throw fail("invalid UTF-8")
            }
            guard p + len <= bytes.count else { throw fail("truncated UTF-8") }
            for k in 1..<len {
                let b = bytes[p + k]
                guard b & 0xC0 == 0x80 else { throw fail("invalid UTF-8") }
                cp = cp << 6 | UInt32(b & 0x3F)
            }
            guard cp >= minCP, cp <= 0x10FFFF, !(0xD800...0xDFFF).contains(cp) else { throw fail("invalid UTF-8") }
            return len
        }

        mutating func number() throws(ProtocolError) -> Value {
            let start = i
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("unexpected character") }
            if bytes[i] == UInt8(ascii: "0") {
                i += 1
            } else {
                while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            }
            var fractional = false
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                fractional = true
                i += 1
                guard i < bytes.count, isDigit(bytes[i]) else { throw fail("digit expected after '.'") }
                while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                fractional = true
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard i < bytes.count, isDigit(bytes[i]) else { throw fail("digit expected in exponent") }
                while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            }
            if fractional && !limits.allowFractions { throw fail("only integers are allowed") }
            guard i - start <= 20 else { throw fail("number too long") }
            return .number(bytes[start..<i])
        }

        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    }
}
