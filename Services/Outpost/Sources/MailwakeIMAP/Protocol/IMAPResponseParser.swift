/// Parses one complete response (its literals inline, as read by
/// `IMAPResponseReader`) into an `IMAPResponse`. Tolerant of what real
/// servers send: any case in keywords, `[` section `]` atoms, `NIL`,
/// literals anywhere a string may be, and bytes that are not UTF-8.
public struct IMAPResponseParser {
    private let bytes: [UInt8]
    private var at = 0

    /// Nesting deeper than this is refused (a hostile server cannot exhaust the stack).
    public static let maxDepth = 64

    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The response in `line` (CRLF at the end optional).
    public static func parse(_ line: [UInt8]) throws(Malformed) -> IMAPResponse {
        var parser = IMAPResponseParser(bytes: line)
        return try parser.response()
    }

    private init(bytes: [UInt8]) {
        var end = bytes.count
        if end >= 2, bytes[end - 2] == 0x0D, bytes[end - 1] == 0x0A { end -= 2 } else if end >= 1, bytes[end - 1] == 0x0A { end -= 1 }
        self.bytes = Array(bytes[0..<end])
    }

    private mutating func response() throws(Malformed) -> IMAPResponse {
        if peek == UInt8(ascii: "+") {
            at += 1
            skipSpaces()
            return .continuation(rest())
        }
        let tag = word()
        guard !tag.isEmpty else { throw Malformed(description: "a response without a tag") }
        skipSpaces()
        if tag == "*" {
            var number: UInt32?
            var name = word()
            if let n = UInt32(name) {
                number = n
                skipSpaces()
                name = word()
            }
            if number == nil, let status = IMAPStatus(rawValue: name.uppercased()) {
                skipSpaces()
                let (code, text) = statusText()
                return .status(status, code: code, text: text)
            }
            guard !name.isEmpty else { throw Malformed(description: "an untagged response without a name") }
            skipSpaces()
            var values: [IMAPValue] = []
            while at < bytes.count {
                values.append(try value(depth: 0))
                skipSpaces()
            }
            return .data(name: name.uppercased(), number: number, values: values)
        }
        let word = word().uppercased()
        guard let status = IMAPStatus(rawValue: word), status == .ok || status == .no || status == .bad else {
            throw Malformed(description: "a tagged response whose status is not OK, NO or BAD")
        }
        skipSpaces()
        let (code, text) = statusText()
        return .tagged(tag: tag, status: status, code: code, text: text)
    }

    /// `[CODE …] text` or `text`.
    private mutating func statusText() -> (String?, String) {
        var code: String?
        if peek == UInt8(ascii: "[") {
            let start = at + 1
            var depth = 0
            var end = start
            while end < bytes.count {
                if bytes[end] == UInt8(ascii: "[") { depth += 1 }
                if bytes[end] == UInt8(ascii: "]") {
                    if depth == 0 { break }
                    depth -= 1
                }
                end += 1
            }
            code = String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self)
            at = min(end + 1, bytes.count)
            skipSpaces()
        }
        return (code, rest())
    }

    private mutating func value(depth: Int) throws(Malformed) -> IMAPValue {
        guard depth < Self.maxDepth else { throw Malformed(description: "lists nested too deeply") }
        guard let c = peek else { throw Malformed(description: "a value was expected at the end of the response") }
        switch c {
        case UInt8(ascii: "("):
            at += 1
            var items: [IMAPValue] = []
            skipSpaces()
            while peek != UInt8(ascii: ")") {
                guard at < bytes.count else { throw Malformed(description: "a list without its closing parenthesis") }
                items.append(try value(depth: depth + 1))
                skipSpaces()
            }
            at += 1
            return .list(items)
        case UInt8(ascii: "\""):
            return .string(try quoted())
        case UInt8(ascii: "{"):
            return .string(try literal())
        case UInt8(ascii: "~") where next == UInt8(ascii: "{"):
            return .string(try literal())
        default:
            let atom = atomText()
            guard !atom.isEmpty else { throw Malformed(description: "an unexpected character in a value") }
            if atom.count == 3, atom.uppercased() == "NIL" { return .null }
            return .atom(atom)
        }
    }

    private mutating func quoted() throws(Malformed) -> [UInt8] {
        at += 1
        var out: [UInt8] = []
        while at < bytes.count {
            let c = bytes[at]
            at += 1
            if c == UInt8(ascii: "\"") { return out }
            if c == UInt8(ascii: "\\"), at < bytes.count {
                out.append(bytes[at])
                at += 1
            } else {
                out.append(c)
            }
        }
        throw Malformed(description: "a quoted string without its closing quote")
    }

    /// `{N}` CRLF then N bytes (`~{N}` for literal8).
    private mutating func literal() throws(Malformed) -> [UInt8] {
        if peek == UInt8(ascii: "~") { at += 1 }
        at += 1
        var count = 0
        while let c = peek, c >= 0x30, c <= 0x39 {
            count = count * 10 + Int(c - 0x30)
            guard count <= Int(Int32.max) else { throw Malformed(description: "a literal too long") }
            at += 1
        }
        if peek == UInt8(ascii: "+") { at += 1 }
        guard peek == UInt8(ascii: "}") else { throw Malformed(description: "a literal without its closing brace") }
        at += 1
        if peek == 0x0D { at += 1 }
        guard peek == 0x0A else { throw Malformed(description: "a literal not followed by CRLF") }
        at += 1
        guard bytes.count - at >= count else { throw Malformed(description: "a literal shorter than announced") }
        defer { at += count }
        return Array(bytes[at..<at + count])
    }

    /// An atom; `[` … `]` (section specs with spaces and parentheses) and a
    /// following `<origin>` belong to it.
    private mutating func atomText() -> String {
        let start = at
        while let c = peek {
            if c == UInt8(ascii: "[") {
                var depth = 0
                while let d = peek {
                    at += 1
                    if d == UInt8(ascii: "[") { depth += 1 }
                    if d == UInt8(ascii: "]") {
                        depth -= 1
                        if depth == 0 { break }
                    }
                }
                continue
            }
            if c == 0x20 || c == UInt8(ascii: "(") || c == UInt8(ascii: ")") || c == UInt8(ascii: "\"") || c < 0x20 || c == 0x7F { break }
            at += 1
        }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    private mutating func word() -> String {
        let start = at
        while let c = peek, c != 0x20 { at += 1 }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    private mutating func rest() -> String {
        defer { at = bytes.count }
        return String(decoding: bytes[at...], as: UTF8.self)
    }

    private mutating func skipSpaces() {
        while peek == 0x20 { at += 1 }
    }

    private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }
    private var next: UInt8? { at + 1 < bytes.count ? bytes[at + 1] : nil }
}
